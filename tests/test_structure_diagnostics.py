"""One test per structural diagnostic code: the code, its XML line and its message.

Each case is a small hand-written IR document with one defect; the expected
line is found by searching the document for a marker substring.
"""

from __future__ import annotations

import struct

import numpy as np
import pytest

import irexec

PARAM = """<layer id="{id}" name="{name}" type="Parameter" version="opset1">
  <data shape="2,3" element_type="f32"/>
  <output><port id="0" precision="FP32" names="{name}"><dim>2</dim><dim>3</dim></port></output>
</layer>"""
RESULT = """<layer id="{id}" name="{name}" type="Result" version="opset1">
  <input><port id="0" precision="FP32"><dim>2</dim><dim>3</dim></port></input>
</layer>"""
CONVERT = """<layer id="{id}" name="{name}" type="Convert" version="opset1">
  <data destination_type="f32"/>
  <input><port id="0" precision="FP32"><dim>2</dim><dim>3</dim></port></input>
  <output><port id="1" precision="FP32"><dim>2</dim><dim>3</dim></port></output>
</layer>"""


def doc(layers: str, edges: str, version: str = "11") -> str:
    return f'<?xml version="1.0"?>\n<net name="t" version="{version}">\n<layers>\n{layers}\n</layers>\n<edges>\n{edges}\n</edges>\n</net>\n'


def edge(a: int, ap: int, b: int, bp: int) -> str:
    return f'<edge from-layer="{a}" from-port="{ap}" to-layer="{b}" to-port="{bp}"/>'


def line_of(text: str, marker: str) -> int:
    before, found, _ = text.partition(marker)
    assert found, f"marker {marker!r} not in document"
    return before.count("\n") + 1


def simple(middle: str = "") -> str:
    return PARAM.format(id=0, name="x") + "\n" + middle + "\n" + RESULT.format(id=9, name="out")


def diagnostics(write_ir, text: str, bin: bytes | None = None):
    path = write_ir(text, bin=bin)
    return path, irexec.check(path).diagnostics


def only(diags, code: str):
    found = [d for d in diags if d.code == code]
    assert found, f"no {code} in {[d.format() for d in diags]}"
    return found[0]


CASES = [
    # (code, document, marker for the expected line, message substring)
    ("unsupported-ir-version", doc(simple(), edge(0, 0, 9, 0), version="9"), "<net", "IR version '9' is not supported"),
    ("not-ir", '<?xml version="1.0"?>\n<model version="11"/>\n', "<model", "root element is <model>"),
    ("xml-syntax", '<?xml version="1.0"?>\n<net version="11">\n<layers>\n<layer id="0" name=>\n', "<layer id", "malformed XML"),
    ("missing-attribute", doc(simple('<layer id="3" name="c" version="opset1"/>'), edge(0, 0, 9, 0)), '<layer id="3"', "'type'"),
    ("bad-attribute", doc(simple('<layer id="x3" name="c" type="Convert" version="opset1"/>'), edge(0, 0, 9, 0)),
     '<layer id="x3"', "id='x3' is not an unsigned integer"),
    ("bad-dim", doc(PARAM.format(id=0, name="x").replace("<dim>3</dim>", "<dim>-2</dim>") + RESULT.format(id=9, name="o"),
                    edge(0, 0, 9, 0)), "<dim>-2</dim>", "<dim>-2</dim> must be an integer >= -1"),
    ("bad-element-type", doc(PARAM.format(id=0, name="x").replace('precision="FP32"', 'precision="float"')
                             + RESULT.format(id=9, name="o"), edge(0, 0, 9, 0)), 'precision="float"', "'float' is not an IR element type"),
    ("bad-element-type", doc(PARAM.format(id=0, name="x").replace('element_type="f32"', 'element_type="fp32"')
                             + RESULT.format(id=9, name="o"), edge(0, 0, 9, 0)), "<data", "element_type='fp32'"),
    ("bad-shape", doc(PARAM.format(id=0, name="x").replace('shape="2,3"', 'shape="2,x"') + RESULT.format(id=9, name="o"),
                      edge(0, 0, 9, 0)), "<data", "cannot parse dimension 'x'"),
    ("bad-shape", doc(PARAM.format(id=0, name="x").replace('shape="2,3"', 'shape="1,...,2"') + RESULT.format(id=9, name="o"),
                      edge(0, 0, 9, 0)), "<data", "'...'"),
    ("duplicate-port", doc(simple(CONVERT.format(id=3, name="c").replace(
        '<input><port id="0" precision="FP32"><dim>2</dim><dim>3</dim></port></input>',
        '<input><port id="0" precision="FP32"/><port id="0" precision="FP32"/></input>')), edge(0, 0, 3, 0) + edge(3, 1, 9, 0)),
     '<port id="0" precision="FP32"/><port', "input port id 0 appears twice"),
    ("duplicate-layer-id", doc(PARAM.format(id=0, name="x") + PARAM.format(id=0, name="y").replace('<layer id="0" name="y"', '<layer id="0" name="y" ')
                               + RESULT.format(id=9, name="o"), edge(0, 0, 9, 0)), 'name="y" ', "layer id 0 is already used by 'x'"),
    ("unknown-layer", doc(simple(), edge(0, 0, 9, 0) + "\n" + edge(7, 0, 9, 0)), 'from-layer="7"', "layer id 7, which does not exist"),
    ("unknown-port", doc(simple(), edge(0, 5, 9, 0)), 'from-port="5"', "output port 5, which the layer does not declare"),
    ("unknown-port", doc(simple(), edge(0, 0, 9, 4)), 'to-port="4"', "input port 4, which the layer does not declare"),
    ("input-fed-twice", doc(PARAM.format(id=0, name="x") + PARAM.format(id=1, name="y") + RESULT.format(id=9, name="o"),
                            edge(0, 0, 9, 0) + "\n" + edge(1, 0, 9, 0)), 'from-layer="1"', "already fed by layer 0"),
    ("unconnected-input", doc(simple(CONVERT.format(id=3, name="c")), edge(3, 1, 9, 0)),
     '<input><port id="0" precision="FP32"><dim>2</dim><dim>3</dim></port></input>\n  <output><port id="1"',
     "input port 0 is not fed by any edge"),
    ("result-without-input", doc(simple(), ""), '<input><port id="0" precision="FP32"><dim>2</dim><dim>3</dim></port></input>\n</layer>',
     "input port 0 is not fed by any edge"),
    ("cycle", doc(simple(CONVERT.format(id=3, name="a") + CONVERT.format(id=4, name="b")),
                  edge(3, 1, 4, 0) + edge(4, 1, 3, 0) + edge(0, 0, 9, 0)), '<layer id="3"', 'the graph has a cycle: 3 "a" -> 4 "b" -> 3 "a"'),
    ("unreachable-layer", doc(simple(CONVERT.format(id=3, name="dead")), edge(0, 0, 9, 0) + edge(0, 0, 3, 0)),
     '<layer id="3"', "no Result depends on this layer"),
    ("unsupported-op", doc(simple(CONVERT.format(id=3, name="c").replace('type="Convert"', 'type="NoSuchOpType"')),
                           edge(0, 0, 3, 0) + edge(3, 1, 9, 0)), '<layer id="3"', "op type 'NoSuchOpType' is not implemented"),
    ("unknown-op-version", doc(simple(CONVERT.format(id=3, name="c").replace('version="opset1"', 'version="opset99"')),
                               edge(0, 0, 3, 0) + edge(3, 1, 9, 0)), '<layer id="3"',
     "Convert has no version 'opset99': OpenVINO 2026.4.1 refuses the file (it reads Convert from opset1..opset17)"),
    ("unsupported-element-type", doc(PARAM.format(id=0, name="x").replace('element_type="f32"', 'element_type="dynamic"')
                                     + RESULT.format(id=9, name="o"), edge(0, 0, 9, 0)), "<data", "element type dynamic is valid IR but not supported"),
    ("wrong-port-count", doc(simple(CONVERT.format(id=3, name="c").replace(
        '<input><port id="0" precision="FP32"><dim>2</dim><dim>3</dim></port></input>',
        '<input><port id="0" precision="FP32"><dim>2</dim><dim>3</dim></port><port id="2" precision="FP32"/></input>')),
        edge(0, 0, 3, 0) + edge(0, 0, 3, 2) + edge(3, 1, 9, 0)), '<layer id="3"', "declares 2 input ports but Convert-1 takes 1 (data)"),
    ("shape-mismatch", doc(simple(CONVERT.format(id=3, name="c").replace(
        '<output><port id="1" precision="FP32"><dim>2</dim><dim>3</dim>', '<output><port id="1" precision="FP32"><dim>2</dim><dim>4</dim>')),
        edge(0, 0, 3, 0) + edge(3, 1, 9, 0)), '<output><port id="1" precision="FP32"><dim>2</dim><dim>4</dim>',
     "declared [2,4] but inferred [2,3]"),
    ("type-mismatch", doc(simple(CONVERT.format(id=3, name="c").replace('<output><port id="1" precision="FP32"', '<output><port id="1" precision="I32"')),
                          edge(0, 0, 3, 0) + edge(3, 1, 9, 0)), '<output><port id="1" precision="I32"', "declared precision I32 (i32) but inferred f32"),
]


@pytest.mark.parametrize("code,text,marker,message", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_structural_diagnostic(write_ir, code, text, marker, message):
    path, diags = diagnostics(write_ir, text)
    d = only(diags, code)
    assert d.line == line_of(text, marker), d.format()
    assert message in d.message, d.format()
    assert d.file == path


def test_a_bad_dim_is_one_error_not_a_cascade(write_ir):
    """The port stays (its edge and the port count are fine): only the dim itself is reported."""
    text = doc(simple(CONVERT.format(id=3, name="c").replace("<dim>3</dim></port></input>", "<dim>three</dim></port></input>")),
               edge(0, 0, 3, 0) + edge(3, 1, 9, 0))
    _, diags = diagnostics(write_ir, text)
    errors = [d for d in diags if d.severity == "error"]
    assert [(d.code, d.layer_id, d.port) for d in errors] == [("bad-dim", 3, 0)], [d.format() for d in errors]


def test_result_without_input_port(write_ir):
    text = doc(PARAM.format(id=0, name="x") + '\n<layer id="9" name="out" type="Result" version="opset1"/>', "")
    _, diags = diagnostics(write_ir, text)
    d = only(diags, "result-without-input")
    assert d.line == line_of(text, '<layer id="9"') and "declares no input port" in d.message


def test_unsafe_xml_entities_are_refused_not_expanded(write_ir, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET")
    text = (f'<?xml version="1.0"?>\n<!DOCTYPE net [<!ENTITY xxe SYSTEM "file://{secret}">]>\n'
            '<net version="11"><layers><layer id="0" name="&xxe;" type="Parameter" version="opset1"/></layers></net>\n')
    _, diags = diagnostics(write_ir, text)
    d = only(diags, "unsafe-xml")
    assert "declares XML entities" in d.message and d.line == 2
    assert all("TOPSECRET" not in x.message for x in diags)


def _const_doc(offset: int, size: int, shape: str = "4", etype: str = "i64") -> str:
    const = f"""<layer id="1" name="k" type="Const" version="opset1">
  <data element_type="{etype}" shape="{shape}" offset="{offset}" size="{size}"/>
  <output><port id="0" precision="I64"><dim>4</dim></port></output>
</layer>"""
    res = '<layer id="2" name="o" type="Result" version="opset1"><input><port id="0" precision="I64"><dim>4</dim></port></input></layer>'
    return doc(const + "\n" + res, edge(1, 0, 2, 0))


@pytest.mark.parametrize(
    "offset,size,bin_bytes,code,message",
    [
        (0, 16, 32, "const-size-mismatch", "size=16 bytes is less than shape [4] x i64 needs (32 bytes)"),
        (8, 32, 32, "weights-out-of-bounds", "offset=8 + size=32 = 40 is past the end of the 32-byte weights file"),
        (0, 32, None, "missing-weights", "needs 32 bytes from the weights file"),
    ],
)
def test_const_weights_diagnostics(write_ir, offset, size, bin_bytes, code, message):
    text = _const_doc(offset, size)
    bin = None if bin_bytes is None else struct.pack("<4q", 0, 3, 2, 1)[:bin_bytes]
    _, diags = diagnostics(write_ir, text, bin=bin)
    d = only(diags, code)
    assert d.line == line_of(text, "<data"), d.format()
    assert message in d.message


def test_const_reads_unaligned_offsets_and_oversized_size(write_ir):
    payload = b"\x00\x00\x00" + np.array([5, -6, 7, 8], "<i8").tobytes()
    text = _const_doc(3, 36)
    path = write_ir(text, bin=payload + b"\x00" * 5)
    out = irexec.run(path, {})
    np.testing.assert_array_equal(out["o"], [5, -6, 7, 8])


def test_missing_bin_is_fine_when_no_const_needs_bytes(write_ir):
    text = doc(simple(), edge(0, 0, 9, 0))
    path, diags = diagnostics(write_ir, text)
    assert diags == []
    out = irexec.run(path, {"x": np.ones((2, 3), np.float32)})
    assert list(out) == ["x"]


def test_every_defect_reported_at_once(write_ir):
    text = doc(simple(CONVERT.format(id=3, name="c").replace('type="Convert"', 'type="Conv"')),
               edge(0, 7, 3, 0) + edge(3, 1, 9, 0) + edge(42, 0, 9, 0))
    _, diags = diagnostics(write_ir, text)
    codes = sorted(d.code for d in diags)
    assert {"unknown-port", "unknown-layer", "unsupported-op"} <= set(codes), codes
    assert [d.line for d in diags] == sorted(d.line for d in diags)


_FREE_FORM_DOC = """<?xml version="1.0"?>
<net name="m" version="11">
\t<rt_info><edge from-layer="0" from-port="0" to-layer="9" to-port="0"/><layers><layer id="7" name="no" type="Relu" version="opset1"/></layers></rt_info>
\t<layers>
\t\t<layer id="0" name="x" type="Parameter" version="opset1">
\t\t\t<data shape="2,3" element_type="f32"/>
\t\t\t<output><port id="0" precision="FP32" names="x"><dim>2</dim><dim>3</dim></port></output>
\t\t</layer>
\t\t<layer id="1" name="y" type="Result" version="opset1">
\t\t\t<input><port id="0" precision="FP32"><dim>2</dim><dim>3</dim></port></input>
\t\t</layer>
\t</layers>
\t<edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/></edges>
</net>
"""


@pytest.mark.parametrize("edit", [lambda d: d, lambda d: d.replace('to-layer="1"', f'to-layer="{10**30}"', 1)],
                         ids=["clean", "id past int64"])
def test_the_streaming_reader_gives_the_tree_readers_records(tmp_path, edit):
    """A schema-valid document is read as it is parsed; records, findings and
    lines are those of the tree reader, free-form sections are not read as
    layers or edges, and an id past int64 survives the packed edge table."""
    from irexec.ir.reader import _read_tree
    from irexec.ir.stream_reader import read_streaming

    path = tmp_path / "m.xml"
    path.write_text(edit(_FREE_FORM_DOC))
    streamed, tree = read_streaming(str(path)), _read_tree(str(path))
    assert streamed is not None
    assert (streamed.layers, list(streamed.edges), streamed.diagnostics) == (tree.layers, list(tree.edges), tree.diagnostics)
    assert [layer.id for layer in streamed.layers] == [0, 1] and len(streamed.edges) == 1
    assert streamed.edges[0].line == 13 and streamed.layers[1].inputs[0].line == 10


@pytest.mark.parametrize("text", ["<net version='11'><layers>", '<!DOCTYPE net><net version="11"><layers/></net>', ""])
def test_documents_the_streaming_reader_leaves_to_the_tree_reader(tmp_path, text):
    from irexec.ir.stream_reader import read_streaming

    path = tmp_path / "m.xml"
    path.write_text(text)
    assert read_streaming(str(path)) is None


def test_a_check_through_the_streaming_reader_finds_what_the_tree_reader_finds(tmp_path, monkeypatch):
    """Large documents are streamed; made to stream a small one, a check finds
    the same things, each at the same line (a bad attribute and the note it causes)."""
    from irexec.ir import reader

    path = tmp_path / "m.xml"
    path.write_text(_FREE_FORM_DOC.replace('<dim>3</dim></port></input>', '<dim>4</dim></port></input>')
                    .replace('element_type="f32"', 'element_type="f33"'))
    whole = [d.format() for d in irexec.check(str(path)).diagnostics]
    monkeypatch.setattr(reader, "_STREAM_FROM_BYTES", 0)
    monkeypatch.setattr(reader, "_read_tree", lambda p: pytest.fail("read from the tree"))
    assert [d.format() for d in irexec.check(str(path)).diagnostics] == whole
    assert len(whole) == 2
