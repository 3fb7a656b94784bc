"""TopK, NonZero, OneHot, Reverse, DepthToSpace/SpaceToDepth, ShuffleChannels:
inference over partial shapes and value bounds, values known only at run
time, and properties of the kernels."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irexec
from irexec import dtypes
from irexec.errors import OpError
from irexec.ops.base import TensorInfo
from irexec.ops.indexing.nonzero import NonZero3
from irexec.ops.movement.rearrange import DepthToSpace1, ShuffleChannels1, SpaceToDepth1
from irexec.ops.sorting.topk import TopK11
from irexec.shapes import PartialShape, parse_partial_shape
from irexec.writer import IRBuilder

F32, I64 = dtypes.get("f32"), dtypes.get("i64")


def info(shape: str, etype=F32, value=None) -> TensorInfo:
    return TensorInfo(parse_partial_shape(shape), etype, value)


def out_shape(model_path: str, layer_name: str, port: int = 0) -> str:
    result = irexec.check(model_path)
    assert result.errors == [], [d.format() for d in result.errors]
    lid = next(layer.id for layer in irexec.read_model(model_path).layers.values() if layer.name == layer_name)
    return str(result.tensors[(lid, port)].shape)


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


def test_onehot_depth_known_only_at_run_time(write_ir):
    b = IRBuilder()
    idx = b.parameter("idx", [3], "i64")
    depth = b.parameter("depth", [], "i32")
    oh = b.layer("OneHot", "opset1", [idx, depth, b.const(np.float32(1)), b.const(np.float32(0))], {"axis": 0},
                 name="oh")
    b.result(oh)
    path = write_ir(b)
    assert out_shape(path, "oh") == "[?,3]"
    for n in (2, 5):
        got = next(iter(irexec.run(path, {"idx": np.array([1, 0, 4], np.int64), "depth": np.array(n, np.int32)}).values()))
        assert got.shape == (n, 3) and got.tolist() == (np.arange(n)[:, None] == [1, 0, 4]).astype(np.float32).tolist()


def test_reverse_moves_value_bounds_of_a_shape(write_ir):
    b = IRBuilder()
    x = b.parameter("x", "?,3,4", "f32")
    shape = b.layer("ShapeOf", "opset3", [x], {"output_type": "i64"})
    rev = b.layer("Reverse", "opset1", [shape, b.const(np.array([0], np.int64))], {"mode": "index"})
    y = b.layer("Reshape", "opset1", [x, rev], {"special_zero": False}, name="reshape")
    b.result(y)
    assert out_shape(write_ir(b), "reshape") == "[4,3,?]"


def test_depth_to_space_interval_dims_as_openvino():
    op = DepthToSpace1(None, {"mode": "blocks_first", "block_size": 2})
    assert str(op.inference([info("[1,7..20,3..5,2..9]")]).outputs[0].shape) == "[1,2..5,6..10,4..18]"
    with pytest.raises(OpError, match="holds no multiple"):
        SpaceToDepth1(None, {"mode": "blocks_first", "block_size": 4}).inference([info("[1,2,5..7,4]")])


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["blocks_first", "depth_first"]), st.integers(1, 3), st.integers(1, 3), st.integers(0, 2),
       st.integers(0, 3))
def test_space_to_depth_inverts_depth_to_space(mode, bs, k, c, seed):
    rng = np.random.default_rng(seed)
    shape = (2, (c + 1) * bs**k, *rng.integers(1, 3, k).tolist())
    data = rng.integers(-50, 50, shape).astype(np.int16)
    d2s = DepthToSpace1(None, {"mode": mode, "block_size": bs}).run(data)[0]
    back = SpaceToDepth1(None, {"mode": mode, "block_size": bs}).run(d2s)[0]
    assert back.tobytes() == data.tobytes() and back.shape == data.shape


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 4), st.integers(1, 4), st.integers(0, 9))
def test_shuffle_channels_is_undone_by_the_transposed_group(g, m, seed):
    data = np.random.default_rng(seed).standard_normal((2, g * m, 3)).astype(np.float32)
    once = ShuffleChannels1(None, {"axis": 1, "group": g}).run(data)[0]
    back = ShuffleChannels1(None, {"axis": 1, "group": m}).run(once)[0]
    assert back.tobytes() == data.tobytes()


def test_reverse_mask_length_against_interval_rank_is_checked():
    from irexec.ops.movement.rearrange import Reverse1

    op = Reverse1(None, {"mode": "mask"})
    mask = TensorInfo(PartialShape.static([3]), dtypes.get("boolean"))
    with pytest.raises(OpError, match="rank 2"):
        op.inference([info("[2,?]"), mask])


def test_convert_like_keeps_the_bounds_of_a_shape(write_ir):
    b = IRBuilder()
    x = b.parameter("x", "?,3,4", "f32")
    shape = b.layer("ShapeOf", "opset3", [x], {"output_type": "i64"})
    narrow = b.layer("ConvertLike", "opset1", [shape, b.const(np.zeros(1, np.int32))])
    y = b.layer("Reshape", "opset1", [x, narrow], {"special_zero": False}, name="reshape")
    b.result(y)
    assert out_shape(write_ir(b), "reshape") == "[?,3,4]"
