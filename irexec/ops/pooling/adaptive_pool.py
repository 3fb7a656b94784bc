"""AdaptiveAvgPool-8 and AdaptiveMaxPool-8: pooling of [N, C, *spatial]
(1-D to 3-D) into a given output size.  Bin ``i`` of an axis of length ``n``
pooled to ``m`` covers ``[floor(i n / m), ceil((i + 1) n / m))``.

Both are separable over the axes (a box is a product of per-axis ranges), so
the kernels reduce one axis at a time, one pass per position inside the
longest bin.  AdaptiveAvgPool sums in f32 (f64 for f64 data); AdaptiveMaxPool
returns the first maximum in C order of the box and its index flattened over
the spatial axes of its channel.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...base import dtypes
from ...base.shapes import DYNAMIC, Dim, PartialShape
from ...kernels.windows import accumulator
from ..framework.accuracy import EXACT
from ..framework.base import INTEGRAL, REAL, Enum, In, Inference, Op, TensorInfo, op_error
from ..framework.helpers import value_dims
from ..framework.registry import register

DATA, OUTPUT_SHAPE = 0, 1


@dataclass(frozen=True)
class AdaptivePlan:
    out_spatial: tuple[int, ...]


def _bins(n: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    i = np.arange(m, dtype=np.int64)
    return (i * n) // m, -((-(i + 1) * n) // m)


class _Adaptive(Op):
    family = "pooling"
    inputs = (In("data", REAL, rank=(3, 5)), In("output_shape", INTEGRAL, rank=1, value=True))

    def _shape(self, data: TensorInfo, out_shape: TensorInfo) -> tuple[PartialShape, AdaptivePlan | None]:
        n = out_shape.shape[0]
        if data.shape.rank is not None and n.is_static and n.value != data.shape.rank - 2:
            raise op_error(f"output_shape {out_shape.shape} must hold one value per spatial axis of data {data.shape}",
                           "incompatible-inputs", OUTPUT_SHAPE)
        if data.shape.rank is None:
            return PartialShape(None), None  # as OpenVINO infers it, whatever output_shape holds
        k = data.shape.rank - 2
        given = value_dims(out_shape)
        lead = data.shape.dims[:2] if data.shape.dims is not None else (DYNAMIC, DYNAMIC)
        spatial: list[Dim] = []
        for i in range(k):
            v = given[i] if given is not None else DYNAMIC
            if isinstance(v, int) and v < 0:
                raise op_error(f"output_shape {given} must not be negative", "bad-value", OUTPUT_SHAPE)
            spatial.append(Dim(v, v) if isinstance(v, int) else v)
        shape = PartialShape((*lead, *spatial))
        plan = AdaptivePlan(shape.to_tuple()[2:]) if shape.is_static and data.shape.is_static else None
        return shape, plan


def _reduce_axis(vals: np.ndarray, idx: np.ndarray | None, axis: int, m: int, stride: int, is_max: bool):
    """Pool one axis of ``vals`` into ``m`` bins (with ``idx``, the index of
    each value's winner so far, carried along for max)."""
    n = vals.shape[axis]
    start, end = _bins(n, m)
    longest = int((end - start).max()) if m else 0
    shape = [1] * vals.ndim
    shape[axis] = m
    start_b, end_b = start.reshape(shape), end.reshape(shape)
    out_shape = list(vals.shape)
    out_shape[axis] = m
    best = np.zeros(out_shape, vals.dtype) if not is_max else None
    best_idx = None
    for j in range(longest):
        pos = np.minimum(start + j, n - 1)
        cand = np.take(vals, pos, axis=axis)
        inside = (start_b + j) < end_b
        if not is_max:
            best += np.where(inside, cand, 0)
            continue
        assert idx is not None  # max pooling carries the indices
        cand_idx = np.take(idx, pos, axis=axis) + (start_b + j) * stride
        if best is None or best_idx is None:
            best, best_idx = cand.copy(), cand_idx
            continue
        with np.errstate(invalid="ignore"):
            better = inside & (cand > best)
        np.copyto(best, cand, where=better)
        np.copyto(best_idx, cand_idx, where=better)
    assert best is not None  # every window holds at least one position
    if not is_max:
        best = best / (end_b - start_b).astype(best.dtype)
    return best, best_idx


def _pool(data: np.ndarray, plan: AdaptivePlan, is_max: bool):
    k = len(plan.out_spatial)
    out_shape = data.shape[:2] + plan.out_spatial
    if math.prod(out_shape) == 0 or data.size == 0:
        return np.zeros(out_shape, data.dtype), np.zeros(out_shape, np.int64)
    vals = data if is_max else data.astype(accumulator(data.dtype), copy=False)
    idx = np.zeros((1,) * data.ndim, np.int64) if is_max else None
    spatial = data.shape[2:]
    for a in reversed(range(k)):
        if idx is not None:  # max pooling
            idx = np.broadcast_to(idx, vals.shape)
        vals, idx = _reduce_axis(vals, idx, 2 + a, plan.out_spatial[a], math.prod(spatial[a + 1:]), is_max)
    return vals.astype(data.dtype, copy=False), idx


@register
class AdaptiveAvgPool8(_Adaptive):
    type, version = "AdaptiveAvgPool", 8
    summary = "mean over adaptive bins to a given spatial size"

    def infer(self, data: TensorInfo, out_shape: TensorInfo) -> Inference:
        shape, plan = self._shape(data, out_shape)
        return Inference([TensorInfo(shape, data.etype)], plan)

    def compute(self, plan: AdaptivePlan, data: np.ndarray, out_shape: np.ndarray) -> list[np.ndarray]:
        return [_pool(data, plan, False)[0]]


@register
class AdaptiveMaxPool8(_Adaptive):
    type, version = "AdaptiveMaxPool", 8
    accuracy = EXACT  # selects, never rounds
    summary = "maximum over adaptive bins to a given spatial size, with its index"
    outputs = 2
    attributes = {"index_element_type": Enum("i64", "i32", doc="element type of the indices output")}

    def infer(self, data: TensorInfo, out_shape: TensorInfo) -> Inference:
        shape, plan = self._shape(data, out_shape)
        return Inference([TensorInfo(shape, data.etype), TensorInfo(shape, dtypes.get(self.index_element_type))], plan)

    def compute(self, plan: AdaptivePlan, data: np.ndarray, out_shape: np.ndarray) -> list[np.ndarray]:
        vals, idx = _pool(data, plan, True)
        return [vals, np.ascontiguousarray(idx, dtype=np.int64 if self.index_element_type == "i64" else np.int32)]
