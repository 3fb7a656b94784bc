"""TopK: inference over partial shapes and value bounds, and k known only at run time."""

from __future__ import annotations

import numpy as np
import pytest

import irexec
from conformance.shape_helpers import I64, info, out_shape
from irexec.base.errors import OpError
from irexec.model.builder import IRBuilder
from irexec.ops.sorting.topk import TopK11


@pytest.mark.parametrize("data, k, want", [
    ("[5,8]", None, "[5,..8]"),
    ("[5,2..9]", None, "[5,..9]"),
    ("[5,?]", None, "[5,?]"),
    ("[5,?]", 3, "[5,3]"),
    ("[...]", 3, "[...]"),
])
def test_topk_inference_on_partial_shapes(data, k, want):
    kinfo = info("[]", I64, None if k is None else np.array(k, np.int64))
    op = TopK11(None, {"axis": -1, "mode": "max", "sort": "value", "index_element_type": I64})
    outs = op.inference([info(data), kinfo]).outputs
    assert [str(o.shape) for o in outs] == [want, want] and outs[1].etype.name == "i64"


def test_topk_k_from_shapeof_is_known_at_check_time(write_ir):
    b = IRBuilder()
    x = b.parameter("x", "?,4", "f32")
    shape = b.layer("ShapeOf", "opset3", [x], {"output_type": "i64"})
    k = b.layer("Gather", "opset8", [shape, b.const(np.array(1, np.int64)), b.const(np.array(0, np.int64))])
    data = b.parameter("data", [3, 7], "f32")
    top = b.layer("TopK", "opset11", [data, k], {"axis": 1, "mode": "min", "sort": "index"}, name="top")
    b.result(top)
    assert out_shape(write_ir(b), "top") == "[3,4]"


def test_topk_runtime_k_beyond_the_dim_is_a_run_time_error(write_ir):
    b = IRBuilder()
    data = b.parameter("data", [2, 3], "f32")
    k = b.parameter("k", [], "i64")
    b.result(b.layer("TopK", "opset3", [data, k], {"axis": 1, "mode": "max", "sort": "value"}))
    path = write_ir(b)
    out = irexec.run(path, {"data": np.array([[1, 5, 3], [9, 8, 7]], np.float32), "k": np.array(2, np.int64)})
    assert next(iter(out.values())).tolist() == [[5, 3], [9, 8]]
    with pytest.raises(OpError) as e:
        irexec.run(path, {"data": np.zeros((2, 3), np.float32), "k": np.array(4, np.int64)})
    assert e.value.diagnostics[0].code == "bad-value" and "k 4 exceeds dim 1" in e.value.diagnostics[0].message
