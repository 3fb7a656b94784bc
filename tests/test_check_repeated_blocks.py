"""A check of a model that repeats one block: the inference shared by layers of one
signature (checker/inference_memo.py) still gives every layer its own findings, at
its own line; a failing inference is reported on each layer that fails."""

from __future__ import annotations

import json
import re

import numpy as np

from irexec.ops.framework.base import Op


def _chain(blocks: int, wrong: dict[int, int] | None = None, const_dims: int = 16) -> tuple[str, bytes]:
    """Parameter [1,16] -> blocks x (Add of a Const, Relu) -> Result; ``wrong`` maps a
    block to the last dim its Relu declares instead of 16."""
    wrong = wrong or {}
    layers = ['<layer id="0" name="x" type="Parameter" version="opset1"><data shape="1,16" element_type="f32"/>'
              '<output><port id="0" precision="FP32"><dim>1</dim><dim>16</dim></port></output></layer>']
    edges = []
    prev, lid = 0, 1
    for b in range(blocks):
        c, add, relu = lid, lid + 1, lid + 2
        lid += 3
        layers.append(f'<layer id="{c}" name="c{b}" type="Const" version="opset1">'
                      f'<data element_type="f32" shape="1,{const_dims}" offset="0" size="{4 * const_dims}"/>'
                      f'<output><port id="0" precision="FP32"><dim>1</dim><dim>{const_dims}</dim></port></output></layer>')
        layers.append(f'<layer id="{add}" name="add{b}" type="Add" version="opset1"><input>'
                      '<port id="0"><dim>1</dim><dim>16</dim></port>'
                      f'<port id="1"><dim>1</dim><dim>{const_dims}</dim></port></input>'
                      '<output><port id="2" precision="FP32"><dim>1</dim><dim>16</dim></port></output></layer>')
        layers.append(f'<layer id="{relu}" name="relu{b}" type="Relu" version="opset1"><input>'
                      '<port id="0"><dim>1</dim><dim>16</dim></port></input>'
                      f'<output><port id="1" precision="FP32"><dim>1</dim><dim>{wrong.get(b, 16)}</dim></port></output></layer>')
        edges += [f'<edge from-layer="{prev}" from-port="{1 if prev else 0}" to-layer="{add}" to-port="0"/>',
                  f'<edge from-layer="{c}" from-port="0" to-layer="{add}" to-port="1"/>',
                  f'<edge from-layer="{add}" from-port="2" to-layer="{relu}" to-port="0"/>']
        prev = relu
    layers.append(f'<layer id="{lid}" name="out" type="Result" version="opset1"><input>'
                  '<port id="0"><dim>1</dim><dim>16</dim></port></input></layer>')
    edges.append(f'<edge from-layer="{prev}" from-port="1" to-layer="{lid}" to-port="0"/>')
    xml = ('<?xml version="1.0"?>\n<net name="chain" version="11">\n<layers>\n' + "\n".join(layers)
           + "\n</layers>\n<edges>\n" + "\n".join(edges) + "\n</edges>\n</net>\n")
    return xml, np.zeros(const_dims, np.float32).tobytes()


def _line_of(xml: str, text: str) -> int:
    return xml[: xml.index(text)].count("\n") + 1


def test_every_repeated_block_gets_its_own_finding(run_cli, write_ir):
    xml, blob = _chain(40, wrong={12: 17, 31: 15})
    path = write_ir(xml, bin=blob)
    r = run_cli("check", path, "--format", "json")
    assert r.exit_code == 1
    found = [d for d in json.loads(r.stdout)["files"][0]["diagnostics"] if d["code"] == "shape-mismatch"]
    assert [(d["layer_name"], d["port"], d["line"]) for d in found] == [
        ("relu12", 1, _line_of(xml, 'name="relu12"')), ("relu31", 1, _line_of(xml, 'name="relu31"'))]
    assert "inferred [1,16]" in found[0]["message"] and "[1,17]" in found[0]["message"]


def test_parallel_layers_of_one_failing_signature_each_report(run_cli, write_ir):
    xml = """<?xml version="1.0"?>
<net name="two" version="11">
<layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="1,16" element_type="f32"/>
<output><port id="0" precision="FP32"><dim>1</dim><dim>16</dim></port></output></layer>
<layer id="1" name="c" type="Const" version="opset1"><data element_type="f32" shape="1,3" offset="0" size="12"/>
<output><port id="0" precision="FP32"><dim>1</dim><dim>3</dim></port></output></layer>
<layer id="2" name="first" type="Add" version="opset1"><input><port id="0"><dim>1</dim><dim>16</dim></port>
<port id="1"><dim>1</dim><dim>3</dim></port></input><output><port id="2" precision="FP32"><dim>1</dim><dim>16</dim></port></output></layer>
<layer id="3" name="second" type="Add" version="opset1"><input><port id="0"><dim>1</dim><dim>16</dim></port>
<port id="1"><dim>1</dim><dim>3</dim></port></input><output><port id="2" precision="FP32"><dim>1</dim><dim>16</dim></port></output></layer>
<layer id="4" name="r1" type="Result" version="opset1"><input><port id="0"><dim>1</dim><dim>16</dim></port></input></layer>
<layer id="5" name="r2" type="Result" version="opset1"><input><port id="0"><dim>1</dim><dim>16</dim></port></input></layer>
</layers>
<edges>
<edge from-layer="0" from-port="0" to-layer="2" to-port="0"/><edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>
<edge from-layer="0" from-port="0" to-layer="3" to-port="0"/><edge from-layer="1" from-port="0" to-layer="3" to-port="1"/>
<edge from-layer="2" from-port="2" to-layer="4" to-port="0"/><edge from-layer="3" from-port="2" to-layer="5" to-port="0"/>
</edges>
</net>
"""
    path = write_ir(xml, bin=bytes(12))
    r = run_cli("check", path)
    assert r.exit_code == 1
    # each at its own layer's input port 1: the line after its <layer> tag
    lines = [str(_line_of(xml, f'name="{n}" type="Add"') + 1) for n in ("first", "second")]
    assert re.findall(r':(\d+): error\[incompatible-inputs\] layer \d+ "(\w+)"', r.stdout) == list(zip(lines, ["first", "second"]))


def test_an_ampersand_in_a_name_is_read_as_written(run_cli, write_ir):
    xml, blob = _chain(2)
    path = write_ir(xml.replace('name="out"', 'name="o&amp;u&#38;t"'), bin=blob)
    r = run_cli("check", path)
    assert r.exit_code == 0, r.stdout
    r = run_cli("inspect", path, "--format", "json")
    assert [o["name"] for o in json.loads(r.stdout)["outputs"]] == ["o&u&t"]


def test_an_op_with_its_own_infer_does_not_inherit_reuse():
    class Shared(Op):
        infer_from_types = True

        def infer(self, *inputs):  # type: ignore[no-untyped-def]
            return []

    class Overriding(Shared):
        def infer(self, *inputs):  # type: ignore[no-untyped-def]
            return []

    class Restating(Shared):
        infer_from_types = True

        def infer(self, *inputs):  # type: ignore[no-untyped-def]
            return []

    class Inheriting(Shared):
        pass

    assert Shared.infer_from_types and Restating.infer_from_types and Inheriting.infer_from_types
    assert not Overriding.infer_from_types


def test_layers_of_one_op_on_other_shapes_and_types_infer_their_own(run_cli, write_ir):
    from irexec.model.builder import IRBuilder

    b = IRBuilder()
    for i, (shape, etype, bias) in enumerate([("1,16", "f32", (1, 16)), ("2,8", "f32", (2, 1)), ("1,16", "f16", (1,)),
                                              ("2,8", "f32", (8,)), ("1,16", "f32", (1, 16))]):
        x = b.parameter(f"x{i}", shape, etype)
        x = b.layer("Relu", "opset1", [x])
        x = b.layer("Add", "opset1", [x, b.const(np.ones(bias, np.float16 if etype == "f16" else np.float32))])
        b.result(b.layer("Relu", "opset1", [x]), name=f"out{i}")
    for i, (rows, transpose) in enumerate([(2, "false"), (5, "false"), (2, "true"), (5, "true")]):
        x = b.parameter(f"m{i}", f"{rows},3")
        weight = b.const(np.ones((4, 3) if transpose == "true" else (3, 4), np.float32))
        x = b.layer("MatMul", "opset1", [x, weight], {"transpose_a": "false", "transpose_b": transpose})
        b.result(b.layer("Convert", "opset1", [x], {"destination_type": "f16" if i % 2 else "i32"}), name=f"mm{i}")
    path = write_ir(b)
    r = run_cli("check", path)
    assert r.exit_code == 0, r.stdout
    outputs = json.loads(run_cli("inspect", path, "--format", "json").stdout)["outputs"]
    assert [(o["inferred_shape"], o["inferred_type"]) for o in outputs] == [
        ("[1,16]", "f32"), ("[2,8]", "f32"), ("[1,16]", "f16"), ("[2,8]", "f32"), ("[1,16]", "f32"),
        ("[2,4]", "i32"), ("[5,4]", "f16"), ("[2,4]", "i32"), ("[5,4]", "f16")]
