"""GatherElements-6: elements of data picked along one axis by an indices tensor of the same rank."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base.shapes import DYNAMIC, PartialShape
from ..framework.base import INDEX, Attr, In, Inference, Op, TensorInfo, normalize_axis, op_error
from ..framework.registry import register

DATA, INDICES = 0, 1


@register
class GatherElements6(Op):
    type, version = "GatherElements", 6
    family = "movement"
    summary = "output[i..] = data[.., indices[i..], ..] along axis (indices has data's rank)"
    inputs = (In("data", rank=(1, None)), In("indices", INDEX, rank=(1, None)))
    attributes = {"axis": Attr("int", required=True, doc="in [-rank, rank-1]")}
    moves_values = (DATA,)

    def infer(self, data: TensorInfo, indices: TensorInfo) -> Inference:
        d, i = data.shape.dims, indices.shape.dims
        rank = len(d) if d is not None else len(i) if i is not None else None
        if d is not None and i is not None and len(d) != len(i):
            raise op_error(f"data {data.shape} and indices {indices.shape} must have the same rank",
                           "incompatible-inputs", INDICES)
        if rank is None:
            return Inference([TensorInfo(PartialShape(None), data.etype)])
        axis = normalize_axis(self.axis, rank, "axis", "axis-out-of-range")
        if i is None:
            assert d is not None
            out = tuple(DYNAMIC if k == axis else dim for k, dim in enumerate(d))
            return Inference([TensorInfo(PartialShape(out), data.etype)], axis)
        dims = list(i)
        if d is not None:
            for k in range(rank):
                if k == axis:
                    continue
                m = d[k].intersect(i[k])
                if m is None:
                    raise op_error(f"data {data.shape} and indices {indices.shape} differ in dim {k} (not the axis {axis})",
                                   "incompatible-inputs", INDICES)
                dims[k] = m
        return Inference([TensorInfo(PartialShape(tuple(dims)), data.etype)], axis)

    def compute(self, plan: int, data: np.ndarray, indices: np.ndarray) -> Sequence[np.ndarray]:
        axis = plan
        dim = data.shape[axis]
        idx = indices
        if idx.size:
            lo, hi = int(idx.min()), int(idx.max())
            if lo < -dim or hi >= dim:
                bad = lo if lo < -dim else hi
                raise op_error(f"index {bad} is out of range [{-dim}, {dim - 1}] for axis {axis} of data {list(data.shape)}",
                               "bad-value", INDICES)
            if lo < 0:
                idx = np.where(idx < 0, idx + dim, idx)
        return [np.take_along_axis(data, idx.astype(np.intp, copy=False), axis)]
