"""ConvertLike: the bounds of a shape it converts."""

from __future__ import annotations

import numpy as np

from conformance.shape_helpers import out_shape
from irexec.model.builder import IRBuilder


def test_convert_like_keeps_the_bounds_of_a_shape(write_ir):
    b = IRBuilder()
    x = b.parameter("x", "?,3,4", "f32")
    shape = b.layer("ShapeOf", "opset3", [x], {"output_type": "i64"})
    narrow = b.layer("ConvertLike", "opset1", [shape, b.const(np.zeros(1, np.int32))])
    y = b.layer("Reshape", "opset1", [x, narrow], {"special_zero": False}, name="reshape")
    b.result(y)
    assert out_shape(write_ir(b), "reshape") == "[?,3,4]"
