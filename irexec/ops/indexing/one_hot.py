"""OneHot-1: every index expanded into a vector of ``depth`` values, on_value
at the index and off_value elsewhere, inserted as a new axis.  An index
outside [0, depth-1] (negative ones included) gives a vector of off_value,
as the spec says."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base.shapes import Dim, PartialShape
from ..framework.base import INTEGRAL, Attr, In, Inference, Op, TensorInfo, normalize_axis, op_error, same_as
from ..framework.helpers import const_int, value_dims
from ..framework.registry import register

INDICES, DEPTH, ON, OFF = 0, 1, 2, 3


@register
class OneHot1(Op):
    type, version = "OneHot", 1
    family = "indexing"
    summary = "indices expanded into on/off vectors along a new axis"
    inputs = (In("indices", INTEGRAL), In("depth", INTEGRAL, rank=0, value=True),
              In("on_value", rank=0), In("off_value", same_as("on_value"), rank=0))
    attributes = {"axis": Attr("int", required=True, doc="where the new axis goes, in [-rank-1, rank]")}

    def infer(self, indices: TensorInfo, depth: TensorInfo, on: TensorInfo, off: TensorInfo) -> Inference:
        etype = on.etype if on.known_type else off.etype
        n = const_int(depth, "depth", DEPTH)
        if n is None:
            known = value_dims(depth)
            if known is not None and len(known) == 1 and isinstance(known[0], int):
                n = known[0]
        if n is not None and n < 0:
            raise op_error(f"depth must not be negative, got {n}", "bad-value", DEPTH)
        if indices.shape.dims is None:
            return Inference([TensorInfo(PartialShape(None), etype)])
        rank = len(indices.shape.dims) + 1
        axis = normalize_axis(self.axis, rank, "axis", "axis-out-of-range")
        dims = list(indices.shape.dims)
        dims.insert(axis, Dim(0, None) if n is None else Dim(n, n))
        return Inference([TensorInfo(PartialShape(tuple(dims)), etype)], (axis, n))

    def compute(self, plan: tuple[int, int], indices: np.ndarray, depth: np.ndarray, on: np.ndarray,
                off: np.ndarray) -> Sequence[np.ndarray]:
        axis, n = plan
        shape = (1,) * axis + (n,) + (1,) * (indices.ndim - axis)
        positions = np.arange(n, dtype=np.int64).reshape(shape)
        # a u64 index above 2^63 turns negative in int64: off, as it is out of range anyway
        hit = np.expand_dims(indices, axis).astype(np.int64) == positions
        return [np.where(hit, on.reshape(()), off.reshape(()))]
