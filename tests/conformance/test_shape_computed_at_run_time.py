"""A shape computed at run time keeps what is known: ShapeOf -> Gather ->
Concat -> Reshape on a [?,?,64] input is checked as [?,?,4,16], the shape
OpenVINO's own inference gives, and runs to NumPy's reshape."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

ov = pytest.importorskip("openvino")
from oracle import core  # noqa: E402

import irexec  # noqa: E402
from irexec.base.shapes import parse_partial_shape  # noqa: E402
from irexec.model.builder import IRBuilder  # noqa: E402


def _split_heads(path: Path, special_zero: bool, pattern_tail: list[int]) -> str:
    b = IRBuilder(name="split_heads")
    x = b.parameter("x", "?,?,64", "f32")
    shape = b.layer("ShapeOf", "opset3", [x], {"output_type": "i64"})
    lead = b.layer("Gather", "opset8", [shape, b.const(np.array([0, 1], np.int64)), b.const(np.array(0, np.int64))],
                   {"batch_dims": 0})
    target = b.layer("Concat", "opset1", [lead, b.const(np.array(pattern_tail, np.int64))], {"axis": 0})
    y = b.layer("Reshape", "opset1", [x, target], {"special_zero": special_zero}, name="reshape")
    b.result(y)
    b.write(path)
    return str(path)


def _reshape_shape(result: irexec.CheckResult, xml: str) -> str:
    lid = next(layer.id for layer in irexec.read_model(xml).layers.values() if layer.name == "reshape")
    return str(result.tensors[(lid, 0)].shape)


def _openvino_shape(xml: str) -> str:
    model = core().read_model(xml)
    node = next(n for n in model.get_ops() if n.get_friendly_name() == "reshape")
    return str(parse_partial_shape(str(node.get_output_partial_shape(0))))


# Without symbols for the run-time dims, a -1 next to them stays unknown, in OpenVINO too.
@pytest.mark.parametrize("tail, want", [([4, 16], "[?,?,4,16]"), ([4, -1], "[?,?,4,?]"), ([-1, 8], "[?,?,?,8]")])
def test_split_heads_reshape_keeps_known_dims(tmp_path: Path, tail: list[int], want: str) -> None:
    xml = _split_heads(tmp_path / "model.xml", False, tail)
    result = irexec.check(xml)
    assert not result.errors
    assert _reshape_shape(result, xml) == want
    assert _openvino_shape(xml) == want
    x = np.arange(2 * 3 * 64, dtype=np.float32).reshape(2, 3, 64)
    out = irexec.run(xml, {"x": x})
    (got,) = out.values()
    np.testing.assert_array_equal(got, x.reshape(2, 3, *tail))
