"""Conformance tables of SentencepieceTokenizer, SentencepieceDetokenizer and
SentencepieceStreamDetokenizer (openvino_tokenizers) against OpenVINO with the extension
loaded, on the SentencePiece models of tests/data/tokenizers (make_sentencepiece.py)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("openvino_tokenizers")
pytest.importorskip("sentencepiece")
from conformance.harness import OV_VALUE_UNCHECKED, Case, ErrorCase, OpTable, conformance  # noqa: E402
from conformance.tokenizers.ragged_inputs import strings  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "data" / "tokenizers"


def model_const(kind: str) -> np.ndarray:
    """The serialized SentencePiece model: the largest u8 Const of the converted tokenizer."""
    xml = DATA / kind / "openvino_tokenizer.xml"
    blob = xml.with_suffix(".bin").read_bytes()
    data = max((layer.find("data") for layer in ET.parse(xml).getroot().iter("layer")
                if layer.get("type") == "Const" and layer.find("data").get("element_type") == "u8"),  # type: ignore[union-attr]
               key=lambda d: int(d.get("size")))  # type: ignore[union-attr, arg-type]
    offset, size = int(data.get("offset")), int(data.get("size"))  # type: ignore[union-attr, arg-type]
    return np.frombuffer(blob[offset:offset + size], np.uint8).copy()


LLAMA, T5 = model_const("llama-sentencepiece"), model_const("t5-sentencepiece")
TEXTS = ["Hello world", "", " ", "  leading and trailing  ", "The quick brown fox.", "ＡＢＣ ﬁne ① ½ ²", "naïve café",
         "e\u0301\u0327", "日本語のテキスト", "emoji 😀 👍🏽 🇯🇵", "tab\tnew\nline", "x" * 60, "ǅ İstanbul", "\u3000\u00a0x"]
BYTES = [b"a\xffb", b"\xc3", b"x\xe2\x98 y", b"\xc0\x80", b"a\x00b"]
# special tokens as the converter passes them (sorted in reverse), with an all-letter one: matched
# only at a word boundary, as chatglm's "sop"
SPECIALS = ["sop", "<unk>", "<s>", "</s>"]
SPECIAL_IDS = np.array([5, 0, 1, 2], np.int32)
SPECIAL_TEXTS = ["<s>Hello</s>", "a<s>b</s>c", "<s><s></s>", "sop people sop. xsop sopx (sop)", "<unk>x<s", "", "</s>",
                 "héllo<s>日本</s>", "é sop_ sop1 _sop"]
ATTRS = {"nbest_size": 1, "alpha": 1.0, "add_bos": False, "add_eos": False, "reverse": False}


def text(items: list[str | bytes]) -> np.ndarray:
    return np.array([s if isinstance(s, bytes) else s.encode() for s in items], dtype=object).astype(bytes)


def tokenize(id_: str, model: np.ndarray, items: list[str | bytes], decomposed: bool = False, specials: bool = False,
             tokens: tuple[list[str], np.ndarray] = (SPECIALS, SPECIAL_IDS), **attrs: object) -> Case:
    inputs = [model, *(strings(items) if decomposed else [text(items)])]
    const = [0]
    if specials:
        const += range(len(inputs), len(inputs) + 4)
        inputs += [*strings(tokens[0]), tokens[1]]  # type: ignore[arg-type, list-item]
    return Case(id_, inputs, attrs={**ATTRS, **attrs}, const=tuple(const), dynamic=True)


TOKENIZER = OpTable("SentencepieceTokenizer", "extension", cases=[
    tokenize("unigram-eos", T5, TEXTS, add_eos=True),
    tokenize("bpe-byte-fallback", LLAMA, TEXTS + BYTES),
    tokenize("bos-eos-reverse", LLAMA, TEXTS, add_bos=True, add_eos=True, reverse=True),
    tokenize("decomposed", T5, TEXTS + BYTES, decomposed=True, add_bos=False, add_eos=True, reverse=True),
    tokenize("nbest-zero", T5, TEXTS, nbest_size=0),
    tokenize("special-tokens", LLAMA, SPECIAL_TEXTS + TEXTS, specials=True),
    tokenize("special-tokens-eos-reverse", LLAMA, SPECIAL_TEXTS, specials=True, add_eos=True, reverse=True),
    # malformed UTF-8 after the last special token (before one, OpenVINO's extension crashes: docs)
    tokenize("special-tokens-invalid-utf8", LLAMA, [b"<s>\xc3", b"a\xffb", b"<s>a\xff", b"</s>\xe2\x98", b"sop \xff"],
             specials=True),
    # an empty token is an empty alternative guarded by \b: the first match is empty at a word boundary
    tokenize("special-tokens-empty-last", LLAMA, SPECIAL_TEXTS, specials=True,
             tokens=(["<s>", "</s>", ""], np.array([1, 2, 7], np.int32))),
    tokenize("special-tokens-empty-first", LLAMA, SPECIAL_TEXTS + [" <s>", "<s> x"], specials=True,
             tokens=(["", "<s>"], np.array([7, 1], np.int32))),
    tokenize("special-tokens-repeated", LLAMA, SPECIAL_TEXTS, specials=True,
             tokens=(["<s>", "<s>", "s>"], np.array([1, 9, 8], np.int32))),
    tokenize("special-tokens-bos-each-part", LLAMA, SPECIAL_TEXTS, specials=True, add_bos=True),
    tokenize("special-tokens-decomposed", T5, SPECIAL_TEXTS, decomposed=True, specials=True, add_eos=True),
    tokenize("empty-batch", LLAMA, []),
], errors=[
    ErrorCase("model-i32", [T5.view(np.int32)[:100], text(["a"])], attrs=ATTRS, const=(0,), code="bad-input-type"),
    ErrorCase("three-inputs", [T5, *strings(["a"])[:2]], attrs=ATTRS, const=(0,), code="wrong-port-count"),
    ErrorCase("ids-short", [LLAMA, text(["a"]), *strings(SPECIALS), SPECIAL_IDS[:2]], attrs=ATTRS, const=(0, 2, 3, 4, 5),
              code="bad-value", ov="OpenVINO's shape inference does not count them; its run reads past the ids"),
    ErrorCase("not-a-model", [np.frombuffer(b"\xff\xff\xffnot a model", np.uint8).copy(), text(["a"])], attrs=ATTRS,
              const=(0,), code="bad-value", ov=OV_VALUE_UNCHECKED),
])


def detokenize(id_: str, model: np.ndarray, ids: np.ndarray) -> Case:
    return Case(id_, [model, ids.astype(np.int32)], const=(0,), dynamic=True)


def _ids(vocab: int, seed: int) -> np.ndarray:
    """Random ids with ids past the vocabulary; byte pieces (3..258 in the Llama model) often."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, vocab + 4, (24, 10))


DETOKENIZER_CASES = [
    detokenize("llama-random", LLAMA, _ids(400, 1)),
    detokenize("llama-bytes", LLAMA, np.array([[1, 3 + 0xE6, 3 + 0x97, 3 + 0xA5, 2], [3 + 0xE6, 3 + 0x97, 300, 3 + 0xFF, 0],
                                               [259, 3 + 0x41, 400, 401, 2]])),
    detokenize("t5-random", T5, _ids(137, 2)),
    detokenize("empty-rows", T5, np.zeros((3, 0))),
    detokenize("no-rows", LLAMA, np.zeros((0, 4))),
]
ERRORS = [
    ErrorCase("ids-i64", [LLAMA, np.array([[5, 1]], np.int64)], const=(0,), code="bad-input-type",
              ov="OpenVINO's shape inference does not check it (its run reads the ids as i32)"),
    ErrorCase("ids-rank-1", [LLAMA, np.array([5, 1], np.int32)], const=(0,), code="bad-input-rank"),
]
DETOKENIZER = OpTable("SentencepieceDetokenizer", "extension", cases=DETOKENIZER_CASES, errors=ERRORS)
STREAM_DETOKENIZER = OpTable("SentencepieceStreamDetokenizer", "extension", cases=DETOKENIZER_CASES, errors=ERRORS)

test_conformance = conformance([TOKENIZER, DETOKENIZER, STREAM_DETOKENIZER])


@pytest.mark.parametrize("table", [DETOKENIZER, STREAM_DETOKENIZER], ids=str)
def test_negative_ids_are_refused_as_openvino_fails(table, tmp_path, run_cli):
    """sentencepiece has no piece for a negative id: irexec's run is bad-value.  OpenVINO's
    SentencepieceDetokenizer fails; its stream detokenizer reads outside the model's pieces
    (it may crash the process), so only the first is run."""
    import openvino as ov
    import openvino_tokenizers  # noqa: F401

    from conformance.harness import _add_case, _write
    from irexec.model.builder import IRBuilder

    b = IRBuilder()
    _add_case(b, table, 0, [LLAMA, np.zeros((1, 2), np.int32)], {}, (0,))
    xml = _write(b, tmp_path / "model.xml")
    ids = np.array([[5, -1]], np.int32)
    if table is DETOKENIZER:
        with pytest.raises(RuntimeError):
            ov.Core().compile_model(xml, "CPU")([ids])
    np.savez(tmp_path / "in.npz", c0_in1=ids)
    r = run_cli("run", xml, "--inputs", tmp_path / "in.npz")
    assert r.exit_code == 1 and "bad-value" in r.output and "negative" in r.output, r.output


@pytest.mark.parametrize("nbest_size", [-1, 2, 64])
def test_sampling_is_unsupported_op(nbest_size, tmp_path, run_cli):
    """nbest_size other than 0 or 1 samples a random segmentation (sentencepiece's SampleEncode)."""
    from conformance.harness import _add_case, _write
    from irexec.model.builder import IRBuilder

    b = IRBuilder()
    _add_case(b, TOKENIZER, 0, [T5, text(["a"])], {**ATTRS, "nbest_size": nbest_size, "alpha": 0.1}, (0,))
    r = run_cli("check", _write(b, tmp_path / "model.xml"))
    assert "warning[unsupported-op]" in r.output and "SampleEncode" in r.output, r.output


def test_without_sentencepiece_a_coded_error_names_the_extra(run_cli, tmp_path):
    import os

    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "sentencepiece.py").write_text("raise ImportError('sentencepiece is not installed')\n")
    inputs = tmp_path / "in.npz"
    env = {"PYTHONPATH": os.pathsep.join([str(shadow), os.environ.get("PYTHONPATH", "")])}
    for kind, name in (("t5-sentencepiece", "string_input"), ("t5-charsmap", "Parameter_1")):
        np.savez(inputs, **{name: np.array(["hello world"])})
        r = run_cli.subprocess("run", DATA / kind / "openvino_tokenizer.xml", "--inputs", inputs, env=env)
        assert r.returncode == 1, r.stderr
        assert "missing-extra" in r.stderr and "irexec[tokenizers]" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("model", ["t5-sentencepiece", "llama-sentencepiece"])
def test_every_code_point_encodes_as_openvino_does(model):
    """Each assigned code point on its own, through the model's normalizer (T5's nmt_nfkc
    charsmap; Llama's identity) and its pieces (byte fallback in Llama's)."""
    import unicodedata

    import openvino as ov
    from openvino import opset15
    from openvino_tokenizers import _get_factory

    from irexec.ops.tokenizers.sentencepiece_ops import SentencepieceTokenizer

    cps = [c for c in range(1, 0x110000) if unicodedata.category(chr(c)) not in ("Cn", "Co", "Cs")]
    texts = np.array([chr(c).encode() for c in cps])
    p = opset15.parameter([-1], ov.Type.string)
    attrs = {**ATTRS, "add_eos": True}
    n = _get_factory().create("SentencepieceTokenizer", [opset15.constant(model_const(model)).output(0), p.output(0)],
                              attrs).outputs()
    request = ov.Core().compile_model(ov.Model(n, [p]), "CPU").create_infer_request()
    request.infer([ov.Tensor(texts)])
    theirs = [np.array(request.get_output_tensor(i).data) for i in range(3)]
    ours = SentencepieceTokenizer(attrs=attrs).run(model_const(model), texts.astype(object))
    for got, want in zip(ours, theirs):
        assert got.dtype == want.dtype and got.shape == want.shape
        bad = np.argwhere(got != want)
        assert not bad.size, f"{len(bad)} elements differ, first at {bad[0]}"
