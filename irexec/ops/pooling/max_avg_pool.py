"""MaxPool-1/8/14 and AvgPool-1/14/16 over the spatial axes of [N, C, *spatial]
(1-D to 3-D), by strided views of the padded input, one pass per kernel
offset (no loop over output pixels).

MaxPool follows OpenVINO's reference: each window starts from the lowest
finite value and takes an element only when it is strictly greater, so NaN
never wins, padding never wins, and the index is that of the first maximum
(flattened from ``axis``).  AvgPool sums in f32 (f64 for f64 data, f32 for
f16/bf16) and divides once by the element count of the window: the elements
inside the input (``exclude-pad``) or the whole kernel.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...base import dtypes
from ...base.shapes import DYNAMIC, Dim, PartialShape
from ...kernels import pool_compiled
from ...kernels.windows import accumulator, fit_length, pad_spatial, window_offsets
from ...system import parallel
from ..framework.accuracy import EXACT
from ..framework.base import NUMERIC, Attr, Enum, In, Inference, Op, TensorInfo, normalize_axis, op_error
from ..framework.registry import register
from ..framework.spatial import AUTO_PAD, check_spatial, same_pads, window_count

DATA = 0


@dataclass(frozen=True)
class PoolPlan:
    pads_begin: tuple[int, ...]
    pads_end: tuple[int, ...]
    out_spatial: tuple[int, ...]
    dilations: tuple[int, ...]
    axis: int = 0


def _lowest(dtype: np.dtype) -> float | int:
    if dtype.kind in "iu":
        return int(np.iinfo(dtype).min)
    return float(dtypes.finfo(dtype).min)


class _Pool(Op):
    family = "pooling"
    inputs = (In("data", NUMERIC, rank=(3, 5)),)
    has_dilations = False

    def _dilations(self) -> tuple[int, ...]:
        return tuple(self.dilations) if self.has_dilations else (1,) * len(self.kernel)

    def validate(self) -> list:
        errors = []
        n = len(self.kernel)
        try:
            if not 1 <= n <= 3:
                raise op_error(f"kernel {list(self.kernel)} must name 1 to 3 spatial axes", "bad-attribute")
            check_spatial("kernel", self.kernel, n, port=None)
            check_spatial("strides", self.strides, n, port=None)
            if self.has_dilations:
                check_spatial("dilations", self.dilations or (1,) * n, n, port=None)
            if self.auto_pad in ("explicit", "notset"):
                for name in ("pads_begin", "pads_end"):
                    check_spatial(name, getattr(self, name), n, positive=False, port=None)
                    if any(p < 0 for p in getattr(self, name)):
                        raise op_error(f"{name} {list(getattr(self, name))} must not be negative", "bad-attribute")
        except Exception as e:  # noqa: BLE001 - every OpError becomes a finding
            errors.append(e)
        return errors

    def _spatial(self, data: TensorInfo) -> tuple[PartialShape, PoolPlan | None]:
        n = len(self.kernel)
        if data.shape.rank is not None and data.shape.rank != n + 2:
            raise op_error(f"data must have rank {n + 2} for kernel {list(self.kernel)}, got {data.shape}",
                           "bad-input-rank", DATA)
        if data.shape.dims is None:
            return PartialShape.dynamic(n + 2), None
        dims = data.shape.dims
        for a, what in ((0, "batch"), (1, "channel")):
            if dims[a].is_static and dims[a].value == 0:
                raise op_error(f"data {data.shape} has a zero {what} dim", "bad-shape", DATA)
        dil = self._dilations()
        out: list[Dim] = list(dims[:2])
        pb: list[int] = []
        pe: list[int] = []
        same = self.auto_pad in ("same_upper", "same_lower")
        for i in range(n):
            dim, k, s, d = dims[2 + i], self.kernel[i], self.strides[i], dil[i]
            if same:
                if not dim.is_static:
                    out.append(DYNAMIC)
                    continue
                b, e = same_pads(dim.value, k, s, d, self.auto_pad == "same_upper")
            elif self.auto_pad == "valid":
                b, e = 0, 0
            else:
                b, e = self.pads_begin[i], self.pads_end[i]
            pb.append(b)
            pe.append(e)
            dk = d * (k - 1) + 1
            out.append(window_count(dim, Dim(dk, dk), s, b, e, self.rounding_type, i, "kernel"))
        shape = PartialShape(tuple(out))
        plan = None
        if data.shape.is_static and shape.is_static:
            plan = PoolPlan(tuple(pb), tuple(pe), shape.to_tuple()[2:], dil)
        return shape, plan

    def fold_work(self, inputs: Sequence[TensorInfo], inference: Inference) -> int | None:
        """The pads and the windows size the padded copy and the taps, not the input."""
        plan, base = inference.plan, super().fold_work(inputs, inference)
        if not isinstance(plan, PoolPlan) or base is None:
            return None
        data = inputs[0].shape.to_tuple()
        padded = math.prod(max(0, d + b + e, (o - 1) * s + dl * (k - 1) + 1) for d, b, e, o, s, dl, k in
                           zip(data[2:], plan.pads_begin, plan.pads_end, plan.out_spatial, self.strides, plan.dilations,
                               self.kernel))
        taps = math.prod(plan.out_spatial) * math.prod(self.kernel)
        return base + data[0] * data[1] * (padded + taps)

    def _padded(self, data: np.ndarray, plan: PoolPlan, value: float | int) -> np.ndarray:
        """The input padded, then cut or extended at the end to exactly what
        the output windows read (ceil rounding may read past pads_end)."""
        x = pad_spatial(data, plan.pads_begin, plan.pads_end, value)
        need = [(o - 1) * s + d * (k - 1) + 1 for o, s, d, k in zip(plan.out_spatial, self.strides, plan.dilations,
                                                                     self.kernel)]
        return fit_length(x, need, value)


def _max_pool(op: _Pool, plan: PoolPlan, data: np.ndarray, with_index: np.dtype | None):
    out_shape = data.shape[:2] + plan.out_spatial
    if math.prod(out_shape) == 0:
        return np.empty(out_shape, data.dtype), (np.zeros(out_shape, with_index) if with_index is not None else None)
    low = _lowest(data.dtype)
    x = op._padded(data, plan, low)
    spatial = data.shape[2:]
    if with_index is None:
        compiled = pool_compiled.max_pool2d(x, plan.out_spatial, op.strides, plan.dilations, op.kernel, low)
        if compiled is not None:  # the same maxima, NaN as the lowest value, in one pass
            return compiled, None
        best = _max_by_channels(x, plan.out_spatial, op.strides, plan.dilations, op.kernel)
        if data.dtype.kind in "iu" or not np.isnan(np.max(best)):  # max: NaN if any is
            return best, None
        # a window holding a NaN: again, with the NaNs as the lowest value
        return _max_by_channels(_nan_as(x, low), plan.out_spatial, op.strides, plan.dilations, op.kernel), None
    if data.dtype.kind not in "iu":
        x = _nan_as(x, low)
    views = [v for _, v in window_offsets(x, plan.out_spatial, op.strides, plan.dilations, op.kernel)]
    best = views[0].copy()
    for view in views[1:]:
        np.maximum(best, view, out=best)
    # the first offset holding each window's maximum, as its flat position within
    # the plane relative to the window's start: tried from the last offset back,
    # each match overwriting the later ones (no masked copies: they are slow)
    plane_strides = [math.prod(spatial[i + 1:]) for i in range(len(spatial))]
    offsets = list(np.ndindex(*op.kernel))

    def rel(j: int) -> int:
        return sum(o * d * ps for o, d, ps in zip(offsets[j], plan.dilations, plane_strides))

    eq = np.empty(out_shape, bool)
    found = np.zeros(out_shape, np.int64)
    for j in range(len(views) - 1, -1, -1):
        np.equal(views[j], best, out=eq)
        found = np.where(eq, rel(j), found)
    start = 0
    for i, n in enumerate(plan.out_spatial):
        coord = (np.arange(n, dtype=np.int64) * op.strides[i] - plan.pads_begin[i]) * plane_strides[i]
        shape = [1] * len(out_shape)
        shape[2 + i] = n
        start = start + coord.reshape(shape)
    index = found + start
    alone = best == low
    if alone.any():
        index[alone] = 0  # nothing beat the lowest value (a window of padding alone): index 0, as the reference
    if index is not None:
        plane = math.prod(spatial)
        n, c = data.shape[:2]
        if plan.axis == 0:
            lead = np.arange(n * c, dtype=np.int64).reshape(n, c) * plane
        elif plan.axis == 1:
            lead = np.broadcast_to(np.arange(c, dtype=np.int64) * plane, (n, c))
        else:
            lead = np.zeros((n, c), np.int64)
        index += lead.reshape(n, c, *(1,) * len(spatial))
        index = index.astype(with_index, copy=False)
    return best, index


def _nan_as(x: np.ndarray, low: float | int) -> np.ndarray:
    """``x`` with its NaNs as ``low``: NaN never wins a window, as the lowest
    value, which never does either."""
    nan = x != x
    return np.where(nan, np.asarray(low, x.dtype), x) if nan.any() else x


def _max_by_channels(x: np.ndarray, out_spatial: Sequence[int], strides: Sequence[int], dilations: Sequence[int],
                     kernel: Sequence[int]) -> np.ndarray:
    """``_separable_max`` with the channels of a big input split over the
    threads (NumPy releases the GIL in each pass; on SqueezeNet's first
    pooling, [1,64,111,111], one timing gave 1.8 ms on one thread and 1.0 ms
    on two, though on the shared machine the gain varies)."""
    parts = min(parallel.num_threads(), x.shape[1]) if x.nbytes >= parallel.MIN_PARALLEL_BYTES else 1
    if parts <= 1:
        return _separable_max(x, out_spatial, strides, dilations, kernel)
    out = np.empty(x.shape[:2] + tuple(out_spatial), x.dtype)

    def part(c0: int, c1: int) -> None:
        out[:, c0:c1] = _separable_max(x[:, c0:c1], out_spatial, strides, dilations, kernel)

    parallel.run([functools.partial(part, a, b) for a, b in parallel.spans(x.shape[1], parts)], x.nbytes)
    return out


def _separable_max(x: np.ndarray, out_spatial: Sequence[int], strides: Sequence[int], dilations: Sequence[int],
                   kernel: Sequence[int]) -> np.ndarray:
    """The maximum over each window of the padded ``x``, one spatial axis at a
    time: sum(k - 1) passes instead of prod(k) - 1, each over a tensor already
    narrowed on the axes done.  Exact (max is; of a -0 and a +0 either may
    come out, as before).  The last axis goes last: NumPy's loops over a
    strided innermost axis do not vectorize, so its strided passes had better
    run on a tensor already narrowed on the others (SqueezeNet's 3x3 stride-2
    poolings: 0.75-0.86x the time of the last axis first)."""
    cur = x
    for a in range(len(kernel)):
        axis = x.ndim - len(kernel) + a
        o, s, d, k = out_spatial[a], strides[a], dilations[a], kernel[a]

        def tap(j: int, cur: np.ndarray = cur, axis: int = axis, o: int = o, s: int = s, d: int = d) -> np.ndarray:
            idx = [slice(None)] * cur.ndim
            idx[axis] = slice(j * d, j * d + (o - 1) * s + 1, s)
            return cur[tuple(idx)]

        best = np.maximum(tap(0), tap(1)) if k > 1 else tap(0).copy()
        for j in range(2, k):
            np.maximum(best, tap(j), out=best)
        cur = best
    return cur if cur is not x else cur.copy()


def _unread_index(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """A stand-in for an index output no layer reads: zeros of the right type
    and shape that take no memory."""
    return np.broadcast_to(np.zeros((), dtype), values.shape)


_ROUNDING = Enum("floor", "ceil", doc="output size rounding")
_POOL_ATTRS = {
    "strides": Attr("ints", required=True, doc="one positive stride per spatial axis"),
    "pads_begin": Attr("ints", (), doc="pads before each spatial axis (explicit auto_pad)"),
    "pads_end": Attr("ints", (), doc="pads after each spatial axis (explicit auto_pad)"),
    "kernel": Attr("ints", required=True, doc="window size per spatial axis"),
    "rounding_type": _ROUNDING,
    "auto_pad": AUTO_PAD,
}


@register
class MaxPool1(_Pool):
    type, version = "MaxPool", 1
    accuracy = EXACT  # selects, never rounds
    summary = "maximum over sliding windows"
    attributes = dict(_POOL_ATTRS)

    def infer(self, data: TensorInfo) -> Inference:
        shape, plan = self._spatial(data)
        return Inference([TensorInfo(shape, data.etype)], plan)

    def compute(self, plan: PoolPlan, data: np.ndarray) -> list[np.ndarray]:
        return [_max_pool(self, plan, data, None)[0]]


@register
class MaxPool8(_Pool):
    type, version = "MaxPool", 8
    accuracy = EXACT  # selects, never rounds
    summary = "maximum over dilated sliding windows, with the index of each maximum"
    outputs = 2
    has_dilations = True
    attributes = {**_POOL_ATTRS,
                  "dilations": Attr("ints", (), doc="one positive dilation per spatial axis (default 1)"),
                  "index_element_type": Enum("i64", "i32", doc="element type of the indices output"),
                  "axis": Attr("int", 0, doc="indices are flattened from this axis on")}

    def _dilations(self) -> tuple[int, ...]:
        return tuple(self.dilations) if self.dilations else (1,) * len(self.kernel)

    def infer(self, data: TensorInfo) -> Inference:
        shape, plan = self._spatial(data)
        rank = data.shape.rank
        if rank is not None:
            axis = normalize_axis(self.axis, rank, "axis", "axis-out-of-range")
            if plan is not None:
                plan = PoolPlan(plan.pads_begin, plan.pads_end, plan.out_spatial, plan.dilations, axis)
        itype = dtypes.get(self.index_element_type)
        return Inference([TensorInfo(shape, data.etype), TensorInfo(shape, itype)], plan)

    def compute(self, plan: PoolPlan, data: np.ndarray) -> list[np.ndarray]:
        values, index = _max_pool(self, plan, data, self._index_dtype())
        return [values, index]

    def compute_unread(self, unread: frozenset[int], plan: PoolPlan, data: np.ndarray) -> list[np.ndarray]:
        if 1 not in unread:
            return self.compute(plan, data)
        values, _ = _max_pool(self, plan, data, None)  # the index is the costly part
        return [values, _unread_index(values, self._index_dtype())]

    def _index_dtype(self) -> np.dtype:
        return np.dtype(np.int64 if self.index_element_type == "i64" else np.int32)


@register
class MaxPool14(MaxPool8):
    type, version = "MaxPool", 14
    summary = "MaxPool-8 plus ceil_torch rounding (no window starts in the end padding)"
    attributes = {**MaxPool8.attributes,
                  "rounding_type": Enum("floor", "ceil", "ceil_torch", doc="output size rounding")}


def _avg_pool(op: _Pool, plan: PoolPlan, data: np.ndarray) -> np.ndarray:
    out_shape = data.shape[:2] + plan.out_spatial
    if math.prod(out_shape) == 0:
        return np.empty(out_shape, data.dtype)
    acc = accumulator(data.dtype) if data.dtype.kind not in "iu" else np.dtype(np.float64)
    x = op._padded(data.astype(acc, copy=False), plan, 0)
    total = np.zeros(out_shape, acc)
    for _, view in window_offsets(x, plan.out_spatial, op.strides, plan.dilations, op.kernel):
        total += view
    # elements per window, one axis at a time: those inside the input, or the
    # whole kernel (OpenVINO counts the part a ceil rounding adds past pads_end too)
    count: np.ndarray | float = 1.0
    for i, n in enumerate(plan.out_spatial):
        dim = data.shape[2 + i]
        start = np.arange(n) * op.strides[i] - plan.pads_begin[i]
        if plan.dilations[i] == 1:
            lo, hi = (0, dim) if op.exclude_pad else (-(1 << 62), 1 << 62)  # include-pad: the whole kernel
            per = np.clip(start + op.kernel[i], lo, hi) - np.clip(start, lo, hi)
        else:  # the dilated taps that land inside the input, or inside the padded input
            taps = start[:, None] + np.arange(op.kernel[i]) * plan.dilations[i]
            lo, hi = (0, dim) if op.exclude_pad else (-plan.pads_begin[i], dim + plan.pads_end[i])
            per = ((taps >= lo) & (taps < hi)).sum(axis=1)
        count = np.multiply.outer(count, per) if i else per.astype(np.float64)
    count = np.asarray(count, acc)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.divide(total, count, out=np.zeros_like(total), where=count > 0)
    if data.dtype.kind in "iu":
        out = np.trunc(out)
    return out.astype(data.dtype, copy=False)


@register
class AvgPool1(_Pool):
    type, version = "AvgPool", 1
    summary = "mean over sliding windows"
    attributes = {**_POOL_ATTRS, "exclude-pad": Attr("bool", required=True, doc="do not count padding elements")}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.exclude_pad = getattr(self, "exclude-pad")

    def infer(self, data: TensorInfo) -> Inference:
        shape, plan = self._spatial(data)
        return Inference([TensorInfo(shape, data.etype)], plan)

    def compute(self, plan: PoolPlan, data: np.ndarray) -> list[np.ndarray]:
        return [_avg_pool(self, plan, data)]


@register
class AvgPool14(AvgPool1):
    type, version = "AvgPool", 14
    summary = "AvgPool-1 plus ceil_torch rounding (no window starts in the end padding)"
    attributes = {**AvgPool1.attributes, "rounding_type": Enum("floor", "ceil", "ceil_torch", doc="output size rounding")}


@register
class AvgPool16(AvgPool14):
    type, version, since_opset = "AvgPool", 16, 16
    summary = "AvgPool-14 plus dilations (the kernel's taps spread apart; exclude-pad counts the taps inside the input)"
    has_dilations = True
    attributes = {**AvgPool14.attributes,
                  "dilations": Attr("ints", (), doc="one positive dilation per spatial axis (default 1)")}

    def _dilations(self) -> tuple[int, ...]:
        return tuple(self.dilations) if self.dilations else (1,) * len(self.kernel)
