"""Reverse, DepthToSpace/SpaceToDepth, ShuffleChannels: inference over partial
shapes and value bounds, and properties of the kernels."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.shape_helpers import info, out_shape
from irexec.base import dtypes
from irexec.base.errors import OpError
from irexec.base.shapes import PartialShape
from irexec.model.builder import IRBuilder
from irexec.ops.framework.base import TensorInfo
from irexec.ops.movement.rearrange import DepthToSpace1, ShuffleChannels1, SpaceToDepth1


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
