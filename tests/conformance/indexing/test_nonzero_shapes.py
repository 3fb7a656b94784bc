"""NonZero: inference over partial shapes, and a graph whose shapes change per run."""

from __future__ import annotations

import numpy as np
import pytest

import irexec
from conformance.shape_helpers import info
from irexec.model.builder import IRBuilder
from irexec.ops.indexing.nonzero import NonZero3


@pytest.mark.parametrize("data, want", [("[2,3]", "[2,..6]"), ("[2..3,4]", "[2,..12]"), ("[?,4]", "[2,?]"),
                                        ("[0,4]", "[2,0]"), ("[...]", "[?,?]"), ("[]", "[1,..1]")])
def test_nonzero_inference(data, want):
    assert str(NonZero3().inference([info(data)]).outputs[0].shape) == want


def test_nonzero_feeds_a_graph_whose_shapes_change_per_run(write_ir):
    b = IRBuilder()
    x = b.parameter("x", [2, 3], "f32")
    nz = b.layer("NonZero", "opset3", [x], {"output_type": "i32"})
    b.result(b.layer("Transpose", "opset1", [nz, b.const(np.array([1, 0], np.int64))]))
    path = write_ir(b)
    for data in (np.array([[0, 1, 0], [2, 0, 3]], np.float32), np.zeros((2, 3), np.float32), np.ones((2, 3), np.float32)):
        got = next(iter(irexec.run(path, {"x": data}).values()))
        assert got.dtype == np.int32 and got.tolist() == np.argwhere(data).tolist()
