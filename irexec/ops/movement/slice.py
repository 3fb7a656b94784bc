"""Slice-8: strided windows of data along chosen axes (the slice arithmetic is
shared with StridedSlice-1).

Slice's output dims on dynamic inputs follow OpenVINO's shape inference: the
lower bound is the slice length at the dim's lowest value, the upper bound at
its highest, with start/stop bounds crossing zero widened the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base.shapes import Dim, PartialShape
from ...kernels.blocks import copy_parallel
from ..framework.base import INTEGRAL, UNBOUNDED, In, Inference, Op, TensorInfo, op_error
from ..framework.helpers import const_axes, const_ints
from ..framework.registry import register

_INT64_MAX = (1 << 63) - 1
_INT64_MIN = -(1 << 63)
_INF = -1  # OpenVINO's "infinite bound" marker in its slice arithmetic


# ----------------------------------------------------------------- Transpose

DATA = 0


# --------------------------------------------------------------------- Slice

START, STOP, STEP, AXES = 1, 2, 3, 4


def _sliced(dim: int, start: int, stop: int, step: int) -> int:
    """Elements a slice keeps of a dim (``_INF``: unbounded dim), as OpenVINO
    computes it; returns ``_INF`` when unbounded."""
    reverse = step < 0
    norm = _INT64_MAX if dim == _INF else dim
    dim_max = norm == _INT64_MAX
    start_neg = start < 0
    diff_sign = start_neg != (stop < 0)
    start_max = start == _INT64_MAX
    start_limit = start_max or start == _INT64_MIN
    stop_max = stop == _INT64_MAX
    any_max = start_max or stop_max
    if dim_max and (diff_sign or any_max or start_limit):
        if reverse:
            ub = _INF if (start_neg or any_max) else _INF - start
        elif start_neg and not start_limit:
            ub = -start if stop_max else stop
        else:
            ub = _INF
        lb = 0
    else:
        lower_max = norm - 1 if reverse else norm
        upper_min = _INF if reverse else 0
        lb = min(max(start + norm if start < 0 else start, 0), lower_max)
        ub = min(max(stop + norm if stop < 0 else stop, upper_min), norm)
    if dim_max and lb == 0 and ub == _INF:
        return _INF
    v = min(0, ub - lb) if reverse else max(0, ub - lb)
    if step == -1:
        v = -v
    elif v != 0 and step != 1:
        v = v + 1 if reverse else v - 1
        v = int(v / step)  # C++ division truncates toward zero
        v += 1
    return v


def _slice_dim(dim: Dim, start: tuple[int, int], stop: tuple[int, int], step: int) -> Dim:
    dmax = _INF if dim.hi is None else dim.hi

    def within_lb(lb: int) -> bool:
        return dmax == _INF or lb + dmax >= 0

    def within_ub(ub: int) -> bool:
        return dmax == _INF or ub < dmax

    s_cross = start[0] < 0 <= start[1]
    s_lb = 0 if s_cross and within_lb(start[0]) else start[0]
    s_ub = -1 if s_cross and within_ub(start[1]) else start[1]
    e_cross = stop[0] < 0 <= stop[1]
    e_lb = 0 if e_cross and within_lb(stop[0]) else stop[0]
    e_ub = -1 if e_cross and within_ub(stop[1]) else stop[1]
    if step > 0:
        lo, hi = _sliced(dim.lo, s_ub, e_lb, step), _sliced(dmax, s_lb, e_ub, step)
    else:
        lo, hi = _sliced(dim.lo, s_lb, e_ub, step), _sliced(dmax, s_ub, e_lb, step)
    return Dim(max(lo, 0), None if hi == _INF or hi >= _INT64_MAX else hi)


def _int_bounds(info: TensorInfo) -> list[tuple[int, int]] | None:
    b = info.bounds()
    if b is None:
        return None
    return [(int(lo), _INT64_MAX if hi >= UNBOUNDED else int(hi)) for lo, hi in zip(b[0].reshape(-1), b[1].reshape(-1))]


@register
class Slice8(Op):
    type, version = "Slice", 8
    family = "movement"
    summary = "strided window: start, stop, step per axis (negative counts from the end, clamped)"
    inputs = (In("data"), In("start", INTEGRAL, rank=1, value=True), In("stop", INTEGRAL, rank=1, value=True),
              In("step", INTEGRAL, rank=1, value=True), In("axes", INTEGRAL, rank=1, optional=True, value=True))
    moves_values = (DATA,)

    def infer(self, data: TensorInfo, start: TensorInfo, stop: TensorInfo, step: TensorInfo,
              axes: TensorInfo | None = None) -> Inference:
        lengths = [i.shape[0] for i in (start, stop, step) if i.shape.rank == 1]
        if axes is not None and axes.shape.rank == 1:
            lengths.append(axes.shape[0])
        for a, b in zip(lengths, lengths[1:]):
            if not a.compatible(b):
                raise op_error(f"start, stop, step and axes must have the same length, got {start.shape}, {stop.shape}, "
                               f"{step.shape}" + ("" if axes is None else f", {axes.shape}"), "incompatible-inputs", STOP)
        rank = data.shape.rank
        steps = const_ints(step, "step", STEP)
        if steps is not None and 0 in steps:
            raise op_error(f"step {steps} holds 0", "bad-value", STEP)
        if rank is not None and lengths and lengths[0].lo > rank:
            raise op_error(f"start has {lengths[0]} elements, more than the rank {rank} of data {data.shape}",
                           "incompatible-inputs", START)
        if rank is None:
            return Inference([TensorInfo(PartialShape(None), data.etype)])
        dims = data.shape.dims
        assert dims is not None
        starts, stops = _int_bounds(start), _int_bounds(stop)
        if axes is not None:
            raw = const_axes(axes, rank, "axes", AXES, unique=True)
            axis_list = raw
        else:
            axis_list = list(range(len(starts))) if starts is not None else None
        if axis_list is None:
            return Inference([TensorInfo(PartialShape(tuple(Dim(0, d.hi) for d in dims)), data.etype)])
        if len(axis_list) > rank:
            raise op_error(f"{len(axis_list)} axes for data {data.shape} of rank {rank}", "incompatible-inputs", AXES)
        out = list(dims)
        for i, ax in enumerate(axis_list):
            if starts is not None and stops is not None and steps is not None:
                out[ax] = _slice_dim(dims[ax], starts[i], stops[i], steps[i])
            else:
                out[ax] = Dim(0, dims[ax].hi)
        result = PartialShape(tuple(out))
        plan = None
        if data.shape.is_static and steps is not None and starts is not None and stops is not None:
            index = [slice(None)] * rank
            for i, ax in enumerate(axis_list):
                index[ax] = _py_slice(starts[i][0], stops[i][0], steps[i], dims[ax].value)
            plan = tuple(index)
        return Inference([TensorInfo(result, data.etype)], plan)

    def compute(self, plan: tuple[slice, ...], data: np.ndarray, *rest: np.ndarray) -> Sequence[np.ndarray]:
        view = data[plan]
        if view.flags.c_contiguous:
            return [view]
        out = np.empty(view.shape, data.dtype)
        copy_parallel(out, view)
        return [out]


def _py_slice(start: int, stop: int, step: int, dim: int) -> slice:
    """A Python slice equal to the spec's clamped window on a dim of ``dim``
    (Python's own clamping matches it once huge values are cut to the dim)."""
    cap = dim + 1
    return slice(max(min(start, cap), -cap), max(min(stop, cap), -cap), step)
