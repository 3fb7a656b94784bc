"""Normalisations over axes: MVN-1/6, SoftMax-1/8, LogSoftmax-5; and
BatchNormInference-1/5, GroupNormalization-12, NormalizeL2-1 and LRN-1.

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

from ...base.shapes import PartialShape
from ...kernels import mvn_compiled
from ...system import parallel
from ..framework.accuracy import TRANSCENDENTAL
from ..framework.base import INTEGRAL, REAL, Attr, Enum, In, Inference, Op, TensorInfo, normalize_axis, op_error
from ..framework.helpers import const_axes, normalize_axes
from ..framework.registry import register
from ..framework.shape_plans import plan_of

BLOCK_ELEMENTS = 1 << 17  # 512 KiB: a block and its output fit the 1 MiB L2 cache (256 KiB blocks cost 3-5% more)

RowKernel = Callable[[np.ndarray, np.ndarray, np.ndarray], None]  # (rows in, rows out, scratch)


def _work_dtype(dtype: np.dtype) -> np.dtype:
    return np.dtype(np.float64) if dtype == np.float64 else np.dtype(np.float32)


def _one_block(data: np.ndarray, axes: tuple[int, ...]) -> tuple[int, int, np.dtype] | None:
    """(rows, row length, working type) where ``data``'s rows need no move and fit one
    block (a transformer's rows), else None."""
    keep = [a for a in range(data.ndim) if a not in axes]
    if keep + sorted(axes) != list(range(data.ndim)):
        return None
    m, n = math.prod(data.shape[:len(keep)]), math.prod(data.shape[len(keep):])
    return (m, n, _work_dtype(data.dtype)) if 0 < m * n <= BLOCK_ELEMENTS else None


def over_rows(data: np.ndarray, axes: tuple[int, ...], kernel: RowKernel, owner: Op | None = None) -> np.ndarray:
    """Apply ``kernel`` to every row of ``data`` seen as [others, reduced axes]
    (``owner``: the op that keeps whether the rows are one block, per shape)."""
    one = (_one_block(data, axes) if owner is None
           else plan_of(owner, (data.shape, data.dtype, axes), lambda: _one_block(data, axes)))
    if one is not None:  # one block: straight to the kernel
        m, n, work = one
        xb = data.reshape(m, n).astype(work, copy=False)
        out2 = np.empty((m, n), work)
        with np.errstate(all="ignore"):
            kernel(xb, out2, np.empty((m, n), work))
        return out2.reshape(data.shape).astype(data.dtype, copy=False)
    rank = data.ndim
    keep = [a for a in range(rank) if a not in axes]
    order = keep + sorted(axes)
    moved = order != list(range(rank))
    x = np.transpose(data, order) if moved else data
    m = math.prod(x.shape[:len(keep)])
    n = math.prod(x.shape[len(keep):])
    work = _work_dtype(data.dtype)
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
        if mvn_compiled.run(x, out, normalize_variance, eps, inside):  # the same steps, one pass a row
            return
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

    # OpenVINO's opset tables hold MVN-1 from opset2, but its IR reader creates it for opset1 too
    type, version, since_opset, family = "MVN", 1, 1, "normalization"
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
        return [over_rows(data, plan, mvn_kernel(self.normalize_variance, self.eps, True), self)]


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
        return [over_rows(data, plan, mvn_kernel(self.normalize_variance, self.eps, self.eps_mode == "inside_sqrt"), self)]


# ------------------------------------------------------------------ SoftMax


class _Softmax(Op):
    family = "normalization"
    inputs = (In("data", REAL),)
    kernel: RowKernel

    def infer(self, data: TensorInfo) -> Inference:
        rank = data.shape.rank
        axis: Any = self.axis
        if rank is None:
            return Inference([TensorInfo(data.shape, data.etype)])
        if self.version == 1 and axis >= rank:
            raise op_error(f"axis {axis} is out of range [0, {rank - 1}] for rank {rank}", "axis-out-of-range", 0)
        return Inference([TensorInfo(data.shape, data.etype)], normalize_axis(axis, rank, "axis", "axis-out-of-range", 0))

    def compute(self, plan: int, data: np.ndarray) -> list[np.ndarray]:
        return [over_rows(data, (plan,), type(self).kernel, self)]


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


def _channel_param(info: TensorInfo, data: TensorInfo, name: str, port: int) -> None:
    """A 1-D input as long as data's channel dim (1)."""
    if data.shape.rank is None or info.shape.rank is None:
        return
    c, n = data.shape[1], info.shape[0]
    if c.intersect(n) is None:
        raise op_error(f"{name} has {n} values but the data {data.shape} has {c} channels (dim 1)",
                       "incompatible-inputs", port)


class _BatchNorm(Op):
    """gamma * (x - mean) / sqrt(variance + epsilon) + beta per channel (dim 1),
    computed in f64 and rounded once."""

    family = "normalization"
    accuracy = TRANSCENDENTAL  # computed in f64, rounded once
    attributes = {"epsilon": Attr("float", required=True, doc="added to the variance")}
    order: tuple[int, int, int, int, int]  # ports of data, gamma, beta, mean, variance

    def validate(self) -> list:
        if not self.epsilon >= 0:
            return [op_error(f"epsilon must be >= 0, got {self.epsilon}", "bad-attribute")]
        return []

    def infer(self, *ins: TensorInfo) -> Inference:
        d, *params = (ins[i] for i in self.order)
        for name, k, info in zip(("gamma", "beta", "mean", "variance"), self.order[1:], params):
            _channel_param(info, d, name, k)
        shape = d.shape
        if shape.dims is not None:  # the channel dim is what data and every parameter agree on
            c = shape[1]
            for info in params:
                if info.shape.dims is not None:
                    c = c.intersect(info.shape[0]) or c
            shape = PartialShape((shape[0], c) + tuple(shape.dims[2:]))
        return Inference([TensorInfo(shape, d.etype)])

    def compute(self, plan: object, *arrays: np.ndarray) -> list[np.ndarray]:
        x, gamma, beta, mean, var = (arrays[i] for i in self.order)
        shape = (-1,) + (1,) * (x.ndim - 2)
        with np.errstate(all="ignore"):
            scale = _wide(gamma) / np.sqrt(_wide(var) + self.epsilon)
            out = (_wide(x) - _wide(mean).reshape(shape)) * scale.reshape(shape) + _wide(beta).reshape(shape)
        return [out.astype(x.dtype)]


@register
class BatchNormInference1(_BatchNorm):
    type, version, summary = "BatchNormInference", 1, "per-channel normalisation with given statistics"
    inputs = (In("gamma", REAL, rank=1), In("beta", "same:gamma", rank=1), In("data", "same:gamma", rank=(2, None)),
              In("mean", "same:gamma", rank=1), In("variance", "same:gamma", rank=1))
    order = (2, 0, 1, 3, 4)


@register
class BatchNormInference5(_BatchNorm):
    type, version, summary = "BatchNormInference", 5, "per-channel normalisation with given statistics"
    inputs = (In("data", REAL, rank=(2, None)), In("gamma", "same:data", rank=1), In("beta", "same:data", rank=1),
              In("mean", "same:data", rank=1), In("variance", "same:data", rank=1))
    order = (0, 1, 2, 3, 4)


@register
class GroupNormalization12(Op):
    """MVN over each group of channels (and every spatial dim), then a
    per-channel scale and bias."""

    type, version, family = "GroupNormalization", 12, "normalization"
    summary = "normalisation over groups of channels, then scale and bias"
    inputs = (In("data", REAL, rank=(2, None)), In("scale", "same:data", rank=1), In("bias", "same:data", rank=1))
    attributes = {"num_groups": Attr("int", required=True, doc="channels are split into this many groups"),
                  "epsilon": Attr("float", required=True, doc="added to the variance")}

    def validate(self) -> list:
        if self.num_groups < 1:
            return [op_error(f"num_groups must be >= 1, got {self.num_groups}", "bad-attribute")]
        return []

    def infer(self, data: TensorInfo, scale: TensorInfo, bias: TensorInfo) -> Inference:
        _channel_param(scale, data, "scale", 1)
        _channel_param(bias, data, "bias", 2)
        if data.shape.rank is not None:
            c = data.shape[1]
            if c.is_static and c.value % self.num_groups:
                raise op_error(f"the {c.value} channels of data {data.shape} do not split into num_groups="
                               f"{self.num_groups}", "incompatible-inputs", 0)
        return Inference([TensorInfo(data.shape, data.etype)])

    def compute(self, plan: object, data: np.ndarray, scale: np.ndarray, bias: np.ndarray) -> list[np.ndarray]:
        n, c = data.shape[:2]
        g = self.num_groups
        work = _work_dtype(data.dtype)
        x = data.astype(work, copy=False)  # f16/bf16: one rounding at the end, not after the MVN
        grouped = x.reshape((n, g, -1)) if data.size else x.reshape((n, g, 0))
        normed = over_rows(grouped, (2,), mvn_kernel(True, self.epsilon, True)).reshape(data.shape)
        shape = (-1,) + (1,) * (data.ndim - 2)
        out = normed * scale.astype(work).reshape(shape) + bias.astype(work).reshape(shape)
        return [out.astype(data.dtype, copy=False)]


@register
class NormalizeL2_1(Op):  # noqa: N801 (Type_version)
    """x / sqrt(sum of squares over axes (+ or max) eps); empty axes: 1 where x != 0."""

    type, version, family = "NormalizeL2", 1, "normalization"
    accuracy = TRANSCENDENTAL  # computed in f64, rounded once
    summary = "x divided by its L2 norm over axes"
    inputs = (In("data", REAL), In("axes", INTEGRAL, rank=(0, 1), value=True))
    attributes = {"eps": Attr("float", required=True, doc="guards the division"),
                  "eps_mode": Enum("add", "max", doc="sqrt(sum + eps) or sqrt(max(sum, eps))")}

    def infer(self, data: TensorInfo, axes: TensorInfo) -> Inference:
        values = const_axes(axes, data.shape.rank, "axes", 1)
        plan = None if values is None or data.shape.rank is None else tuple(sorted(set(values)))
        return Inference([TensorInfo(data.shape, data.etype)], plan)

    def compute(self, plan: tuple[int, ...], data: np.ndarray, axes: np.ndarray) -> list[np.ndarray]:
        if not plan:
            return [(data != 0).astype(data.dtype)]
        x = _wide(data)
        with np.errstate(all="ignore"):
            total = np.sum(x * x, axis=plan, keepdims=True)
            total = total + self.eps if self.eps_mode == "add" else np.maximum(total, self.eps)
            return [(x / np.sqrt(total)).astype(data.dtype)]


def _box_sum(x: np.ndarray, axis: int, half: int) -> np.ndarray:
    """Sum over [i - half, i + half] along axis (clipped to the dim)."""
    n = x.shape[axis]
    c = np.cumsum(x, axis=axis)
    zero = np.zeros_like(np.take(c, [0], axis=axis))
    c = np.concatenate([zero, c], axis=axis)
    idx = np.arange(n)
    hi = np.minimum(idx + half + 1, n)
    lo = np.maximum(idx - half, 0)
    return np.take(c, hi, axis=axis) - np.take(c, lo, axis=axis)


@register
class LRN1(Op):
    """x / (bias + alpha / size**len(axes) * sum of x**2 over the window)**beta;
    the window spans (size - 1) / 2 on each side along every axis."""

    type, version, family = "LRN", 1, "normalization"
    accuracy = TRANSCENDENTAL  # computed in f64, rounded once
    summary = "local response normalisation over windows along axes"
    inputs = (In("data", REAL), In("axes", INTEGRAL, rank=1, value=True))
    attributes = {"alpha": Attr("float", required=True, doc="scale of the sum"),
                  "beta": Attr("float", required=True, doc="exponent"),
                  "bias": Attr("float", required=True, doc="added to the scaled sum"),
                  "size": Attr("uint", required=True, doc="window length along each axis")}

    def validate(self) -> list:
        if self.size < 1:
            return [op_error("size must be >= 1", "bad-attribute")]
        return []

    def infer(self, data: TensorInfo, axes: TensorInfo) -> Inference:
        values = const_axes(axes, data.shape.rank, "axes", 1, unique=True)
        plan = None if values is None or data.shape.rank is None else tuple(sorted(values))
        return Inference([TensorInfo(data.shape, data.etype)], plan)

    def compute(self, plan: tuple[int, ...], data: np.ndarray, axes: np.ndarray) -> list[np.ndarray]:
        x = _wide(data)
        sq = x * x
        half = (self.size - 1) // 2
        for a in plan:
            if sq.shape[a]:
                sq = _box_sum(sq, a, half)
        scale = self.alpha / float(self.size) ** len(plan)
        with np.errstate(all="ignore"):
            out = x / np.power(self.bias + scale * sq, self.beta)
        return [out.astype(data.dtype)]
