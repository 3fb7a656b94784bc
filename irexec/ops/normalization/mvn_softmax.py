"""Normalisations over axes: MVN-1/6, SoftMax-1/8, LogSoftmax-5 (the row machinery is
shared with batch_group_norm.py and normalize_l2_lrn.py).

Each works on rows: the reduced axes are made the last ones (a free view
when they already are, the usual case), and the rows are processed in blocks
of about 512 KiB, so the two or three passes over a block run in the cache, no
tensor-sized temporary is made, and the blocks are shared out between threads.
Sums are NumPy's pairwise sums in f32 (f64 for f64 data; f16 and bf16 are
computed in f32 and rounded once).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ... import parallel
from ..base import INTEGRAL, REAL, Attr, Enum, In, Inference, Op, TensorInfo, normalize_axis, op_error
from ..helpers import const_axes, normalize_axes
from ..registry import register

BLOCK_ELEMENTS = 1 << 17  # 512 KiB: a block and its output fit the 1 MiB L2 cache (256 KiB blocks cost 3-5% more)

RowKernel = Callable[[np.ndarray, np.ndarray, np.ndarray], None]  # (rows in, rows out, scratch)


def _work_dtype(dtype: np.dtype) -> np.dtype:
    return np.dtype(np.float64) if dtype == np.float64 else np.dtype(np.float32)


def over_rows(data: np.ndarray, axes: tuple[int, ...], kernel: RowKernel) -> np.ndarray:
    """Apply ``kernel`` to every row of ``data`` seen as [others, reduced axes]."""
    rank = data.ndim
    keep = [a for a in range(rank) if a not in axes]
    order = keep + sorted(axes)
    moved = order != list(range(rank))
    x = np.transpose(data, order) if moved else data
    m = math.prod(x.shape[:len(keep)])
    n = math.prod(x.shape[len(keep):])
    work = _work_dtype(data.dtype)
    if not moved and 0 < m * n <= BLOCK_ELEMENTS:  # one block: straight to the kernel (a transformer's rows)
        xb = data.reshape(m, n).astype(work, copy=False)
        out2 = np.empty((m, n), work)
        with np.errstate(all="ignore"):
            kernel(xb, out2, np.empty((m, n), work))
        return out2.reshape(data.shape).astype(data.dtype, copy=False)
    x2 = np.ascontiguousarray(x).reshape(m, n)
    out2 = np.empty((m, n), work)
    if m and n:
        rows = max(1, BLOCK_ELEMENTS // n)
        starts = list(range(0, m, rows))
        parts = parallel.spans(len(starts), parallel.pieces(out2.nbytes))

        def task(lo: int, hi: int) -> Callable[[], None]:
            def run() -> None:
                scratch = np.empty((rows, n), work)
                with np.errstate(all="ignore"):
                    for s in starts[lo:hi]:
                        xb = x2[s:s + rows]
                        if xb.dtype != work:
                            xb = xb.astype(work)
                        kernel(xb, out2[s:s + rows], scratch[:xb.shape[0]])
            return run

        parallel.run([task(lo, hi) for lo, hi in parts], out2.nbytes)
    out = out2.reshape(x.shape)
    if moved:
        out = np.transpose(out, np.argsort(order))
    return np.ascontiguousarray(out).astype(data.dtype, copy=False)


def mvn_kernel(normalize_variance: bool, eps: float, inside: bool) -> RowKernel:
    def kernel(x: np.ndarray, out: np.ndarray, scratch: np.ndarray) -> None:
        n = x.shape[1]
        mean = np.add.reduce(x, axis=1, keepdims=True)
        mean /= n
        np.subtract(x, mean, out=out)
        if not normalize_variance:
            return
        np.multiply(out, out, out=scratch)
        var = np.add.reduce(scratch, axis=1, keepdims=True)
        var /= n
        e = var.dtype.type(eps)
        if inside:
            var += e
            np.sqrt(var, out=var)
        else:
            np.sqrt(var, out=var)
            var += e
        # times the reciprocal: one more rounding (half an ulp), inside the stated bound;
        # a divide by a per-row value costs 1.6x the multiply
        np.divide(1, var, out=var)
        np.multiply(out, var, out=out)
    return kernel


def _softmax_kernel(log: bool) -> RowKernel:
    def kernel(x: np.ndarray, out: np.ndarray, scratch: np.ndarray) -> None:
        top = np.maximum.reduce(x, axis=1, keepdims=True)
        np.subtract(x, top, out=out)
        if log:
            np.exp(out, out=scratch)
            total = np.add.reduce(scratch, axis=1, keepdims=True)
            np.log(total, out=total)
            np.subtract(out, total, out=out)
        else:
            np.exp(out, out=out)
            total = np.add.reduce(out, axis=1, keepdims=True)
            np.divide(out, total, out=out)
    return kernel


SOFTMAX, LOG_SOFTMAX = _softmax_kernel(False), _softmax_kernel(True)


# ------------------------------------------------------------------ MVN


@register
class MVN1(Op):
    """Mean (and variance) normalisation over reduction_axes, or over every
    axis after 0 (across_channels) or after 1; eps inside the square root."""

    type, version, since_opset, family = "MVN", 1, 2, "normalization"
    summary = "(x - mean) / sqrt(variance + eps) over axes"
    inputs = (In("data", REAL),)
    attributes = {"across_channels": Attr("bool", False, doc="channels (dim 1) are reduced too"),
                  "normalize_variance": Attr("bool", False, doc="divide by the standard deviation"),
                  "eps": Attr("float", required=True, doc="added to the variance"),
                  "reduction_axes": Attr("ints", None, doc="axes to reduce; overrides across_channels")}

    def infer(self, data: TensorInfo) -> Inference:
        rank = data.shape.rank
        if rank is None:
            return Inference([TensorInfo(data.shape, data.etype)])
        if self.reduction_axes:
            axes = normalize_axes(list(self.reduction_axes), rank, "reduction_axes value", 0)
        else:
            axes = list(range(1 if self.across_channels else 2, rank))
        return Inference([TensorInfo(data.shape, data.etype)], tuple(sorted(set(axes))))

    def compute(self, plan: tuple[int, ...], data: np.ndarray) -> list[np.ndarray]:
        return [over_rows(data, plan, mvn_kernel(self.normalize_variance, self.eps, True))]


@register
class MVN6(Op):
    type, version, family = "MVN", 6, "normalization"
    summary = "(x - mean) / sqrt(variance + eps) (or sqrt(variance) + eps) over the axes input"
    inputs = (In("data", REAL), In("axes", INTEGRAL, rank=1, value=True))
    attributes = {"normalize_variance": Attr("bool", required=True, doc="divide by the standard deviation"),
                  "eps": Attr("float", required=True, doc="added to the variance or the deviation"),
                  "eps_mode": Enum("inside_sqrt", "outside_sqrt", doc="where eps is added")}

    def infer(self, data: TensorInfo, axes: TensorInfo) -> Inference:
        rank = data.shape.rank
        if rank is not None and axes.shape.rank == 1 and axes.shape[0].is_static and axes.shape[0].value > rank:
            raise op_error(f"axes has {axes.shape[0].value} values, more than the data's rank {rank}",
                           "incompatible-inputs", 1)
        values = const_axes(axes, rank, "axes", 1)
        plan = None if values is None or rank is None else tuple(sorted(set(values)))
        return Inference([TensorInfo(data.shape, data.etype)], plan)

    def compute(self, plan: tuple[int, ...], data: np.ndarray, axes: np.ndarray) -> list[np.ndarray]:
        return [over_rows(data, plan, mvn_kernel(self.normalize_variance, self.eps, self.eps_mode == "inside_sqrt"))]


# ------------------------------------------------------------------ SoftMax


class _Softmax(Op):
    family = "normalization"
    inputs = (In("data", REAL),)
    kernel: RowKernel

    def infer(self, data: TensorInfo) -> Inference:
        rank = data.shape.rank
        axis: Any = self.axis  # type: ignore[attr-defined]
        if rank is None:
            return Inference([TensorInfo(data.shape, data.etype)])
        if self.version == 1 and axis >= rank:
            raise op_error(f"axis {axis} is out of range [0, {rank - 1}] for rank {rank}", "axis-out-of-range", 0)
        return Inference([TensorInfo(data.shape, data.etype)], normalize_axis(axis, rank, "axis", "axis-out-of-range", 0))

    def compute(self, plan: int, data: np.ndarray) -> list[np.ndarray]:
        return [over_rows(data, (plan,), type(self).kernel)]


@register
class SoftMax1(_Softmax):
    type, version, summary = "SoftMax", 1, "exp(x - max) / sum(exp(x - max)) along axis"
    attributes = {"axis": Attr("uint", 1, doc="the axis normalised")}
    kernel = staticmethod(SOFTMAX)


@register
class SoftMax8(_Softmax):
    type, version, summary = "SoftMax", 8, "exp(x - max) / sum(exp(x - max)) along axis (negative counts from the end)"
    attributes = {"axis": Attr("int", 1, doc="the axis normalised, in [-rank, rank-1]")}
    kernel = staticmethod(SOFTMAX)


@register
class LogSoftmax5(_Softmax):
    type, version, summary = "LogSoftmax", 5, "x - max - log(sum(exp(x - max))) along axis"
    attributes = {"axis": Attr("int", 1, doc="the axis normalised, in [-rank, rank-1]")}
    kernel = staticmethod(LOG_SOFTMAX)


# ------------------------------------------------------------------ per-channel and windowed


def _wide(x: np.ndarray) -> np.ndarray:
    return x if x.dtype == np.float64 else x.astype(np.float64)


