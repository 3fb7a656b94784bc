"""irexec implements every op the installed openvino_tokenizers registers.

Which op types the extension registers is asked of OpenVINO's IR reader, with the
extension loaded, for every name the extension's library holds (its op types are
strings there): the reader creates a registered type (and then fails on its
missing inputs) and refuses any other as "from unsupported opset".  A new op in a
new openvino_tokenizers release fails this test until irexec implements it."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

openvino_tokenizers = pytest.importorskip("openvino_tokenizers")

from irexec.ops.framework.registry import all_ops, resolve  # noqa: E402

# Reads a one-layer model of each named type (version="extension"), printing one
# line per name, "+" for read or created, "-" for refused, flushed as it goes: a
# constructor that crashes on the missing inputs ends the child after the name it
# was given, which the parent then counts as created.
_CHILD = r"""
import sys, tempfile, os
import openvino as ov, openvino_tokenizers
core = ov.Core()
core.add_extension(openvino_tokenizers._ext_path)
scratch = os.path.join(tempfile.mkdtemp(), "probe.xml")
for name in sys.argv[1:]:
    with open(scratch, "w") as f:
        f.write(f'<net name="n" version="11"><layers><layer id="0" name="x" type="{name}" version="extension">'
                '<output><port id="0" precision="FP32"/></output></layer>'
                '<layer id="1" name="r" type="Result" version="opset1"><input><port id="0"/></input></layer></layers>'
                '<edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/></edges></net>')
    try:
        core.read_model(scratch)
        refused = False
    except Exception as e:
        refused = "from unsupported opset" in str(e)
    print(("-" if refused else "+") + name, flush=True)
"""


def _candidates() -> list[str]:
    """Every identifier-like string in the extension's library, and irexec's own tokenizer op types."""
    with open(openvino_tokenizers._ext_path, "rb") as f:
        data = f.read()
    names = {m.decode() for m in re.findall(rb"(?<![A-Za-z0-9_])[A-Z][A-Za-z0-9]{2,60}(?=\x00)", data)}
    return sorted(names | set(_KNOWN))


def registered_types() -> set[str]:
    todo = _candidates()
    found: set[str] = set()
    while todo:
        child = subprocess.run([sys.executable, "-c", _CHILD, *todo], capture_output=True, text=True, timeout=600)
        done = [line for line in child.stdout.splitlines() if line[:1] in "+-"]
        found |= {line[1:] for line in done if line[0] == "+"}
        todo = todo[len(done):]
        if child.returncode != 0 and todo:  # crashed while creating todo[0]: the reader created it
            found.add(todo.pop(0))
    return found


# Op types irexec implements for the extension, and which the extension has registered
# in the releases irexec has been checked against: the probe must find them (it is not blind).
_KNOWN = ("BPETokenizer", "ByteFallback", "BytesToChars", "CaseFold", "CharsMapNormalization", "CharsToBytes",
          "CombineSegments", "ContribStringJoin", "ContribStringSplit", "EqualStr", "FuzeRagged", "NormalizeUnicode",
          "RaggedTensorPack", "RaggedToDense", "RaggedToRagged", "RaggedToSparse", "RegexNormalization", "RegexSplit",
          "SentencepieceDetokenizer", "SentencepieceStreamDetokenizer", "SentencepieceTokenizer", "SpecialTokensSplit",
          "StringTensorPack", "StringTensorUnpack", "StringToHashBucket", "TrieTokenizer", "Truncate", "UTF8Validate",
          "UnigramTokenizer", "VocabDecoder", "VocabEncoder", "WordpieceTokenizer")


def test_every_op_the_installed_extension_registers_is_implemented() -> None:
    registered = registered_types()
    # the probe sees what it should: the ops irexec knows the extension registers, and no made-up name
    assert {"RegexSplit", "BPETokenizer", "VocabDecoder", "StringTensorUnpack"} <= registered, sorted(registered)
    assert "AWAVAUATU" not in registered and "RaggedTensorToSparse" not in registered  # a TensorFlow op name only
    missing = sorted(t for t in registered if resolve(t, "extension") is None)
    assert missing == [], (f"openvino_tokenizers {openvino_tokenizers.__version__} registers op types irexec does not "
                           f"implement: {missing}")


def test_every_extension_op_irexec_implements_is_one_the_extension_registers() -> None:
    """The other way: no op of the family under a name the installed extension does not read."""
    registered = registered_types()
    ours = {c.type for c in all_ops() if c.extension}
    assert len(ours) >= 30
    assert sorted(ours - registered) == []
