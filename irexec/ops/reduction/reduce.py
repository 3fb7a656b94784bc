"""Reductions over axes given by a constant input, on one base class; each
op is one line naming its NumPy reduction.

Float inputs of 16 bits accumulate in f32 (NumPy's pairwise sums); the
result has the input's element type.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...base import lowbit
from ...base.dtypes import finfo, iinfo, is_bf16
from ...base.shapes import Dim, PartialShape
from ...kernels import reduce_compiled
from ..framework.accuracy import ACCUMULATING, EXACT
from ..framework.base import BOOLEAN, INTEGRAL, NUMERIC, UNBOUNDED, Attr, In, Inference, Op, TensorInfo
from ..framework.helpers import const_axes
from ..framework.registry import register

DATA, AXES = 0, 1
Reducer = Callable[[np.ndarray, tuple[int, ...], bool], np.ndarray]


class Reduce(Op):
    """``keep_dims`` and constant ``axes`` (negative counts from the end, empty: none)."""

    family = "reduction"
    inputs = (In("data", NUMERIC), In("axes", INTEGRAL, rank=(0, 1), value=True))
    attributes = {"keep_dims": Attr("bool", False, doc="keep reduced axes as dims of 1")}
    fn: Reducer
    # how value bounds reduce (ReduceProd of a shape is its element count); None: not tracked
    bounds_fn: Callable[[np.ndarray, tuple[int, ...]], np.ndarray] | None = None

    def infer(self, data: TensorInfo, axes: TensorInfo) -> Inference:
        rank = data.shape.rank
        values = const_axes(axes, rank, "axes", AXES)
        if values is None or rank is None:
            if self.keep_dims:
                return Inference([TensorInfo(PartialShape.dynamic(rank), data.etype)])
            return Inference([TensorInfo(PartialShape(None), data.etype)])
        reduced = set(values)
        dims: list[Dim] = []
        for a, d in enumerate(data.shape.dims or ()):
            if a not in reduced:
                dims.append(d)
            elif self.keep_dims:
                dims.append(Dim(1, 1))
        return Inference([TensorInfo(PartialShape(tuple(dims)), data.etype)], tuple(sorted(reduced)))

    def compute(self, plan: tuple[int, ...], data: np.ndarray, axes: np.ndarray) -> Sequence[np.ndarray]:
        with np.errstate(all="ignore"):
            out = type(self).fn(data, plan, self.keep_dims)
        return [np.asarray(out).astype(data.dtype, copy=False)]

    def fold(self, inputs: Sequence[TensorInfo], inference: Inference) -> list[TensorInfo]:
        outs = super().fold(inputs, inference)
        bounds_fn = type(self).bounds_fn
        b = inputs[0].bounds()
        if bounds_fn is None or outs[0].is_constant or b is None or inference.plan is None or not inputs[0].shape.is_static:
            return outs
        shape = inputs[0].shape.to_tuple()
        lo, hi = (bounds_fn(x.reshape(shape), inference.plan) for x in b)
        if self.keep_dims:
            lo, hi = (np.expand_dims(x, inference.plan) for x in (lo, hi))
        return [TensorInfo(outs[0].shape, outs[0].etype, None, (np.asarray(lo, np.int64), np.asarray(hi, np.int64)))]


def reduction(type_: str, version: int, fn: Reducer, *, types: Any = NUMERIC, since: int | None = None,
              summary: str = "", bounds: Callable[[np.ndarray, tuple[int, ...]], np.ndarray] | None = None,
              accuracy: str = ACCUMULATING) -> type[Op]:
    """Register a reduction: ``fn(data, axes, keep_dims)``."""
    cls = type(f"{type_}{version}", (Reduce,), {
        "accuracy": accuracy,
        "type": type_, "version": version, "since_opset": since if since is not None else version,
        "fn": staticmethod(fn), "summary": summary, "bounds_fn": staticmethod(bounds) if bounds else None,
        "inputs": (In("data", types), In("axes", INTEGRAL, rank=(0, 1), value=True)), "__module__": __name__,
    })
    return register(cls)


def _sum_f32(data: np.ndarray, axes: tuple[int, ...], keep: bool) -> np.ndarray:
    compiled = reduce_compiled.trailing_sum(data, axes, keep)  # the same pairwise sums, once Numba is loaded
    if compiled is not None:
        return compiled
    wide = np.float32 if data.dtype.kind == "f" and data.itemsize < 4 or is_bf16(data.dtype) else None
    return np.asarray(np.sum(data, axis=axes, keepdims=keep, dtype=wide))


def _prod_bounds(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    if (x < 0).any():
        return np.full(np.delete(np.array(x.shape), axes).tolist() or (), UNBOUNDED, np.int64)
    with np.errstate(over="ignore"):
        unbounded = (x >= UNBOUNDED).any(axis=axes)
        zero = (x == 0).any(axis=axes)
        prod = np.prod(np.minimum(x, 1 << 31).astype(np.float64), axis=axes)
        exact = np.prod(x, axis=axes)
    return np.where(zero, 0, np.where(unbounded | (prod >= 2.0**62), UNBOUNDED, exact))


reduction("ReduceSum", 1, _sum_f32, summary="sum over axes")
reduction("ReduceProd", 1, lambda d, a, k: np.prod(d, axis=a, keepdims=k), bounds=_prod_bounds, summary="product over axes")
def _integral(dtype: np.dtype) -> bool:
    return dtype.kind in "iu" or lowbit.name_of(dtype) in lowbit.NARROW_INTS  # u1, u2, u4, i4: ml_dtypes, kind "V"


def _lowest(dtype: np.dtype) -> Any:
    return dtype.type(iinfo(dtype).min) if _integral(dtype) else -finfo(dtype).max


def _highest(dtype: np.dtype) -> Any:
    return dtype.type(iinfo(dtype).max) if _integral(dtype) else finfo(dtype).max


def _max(data: np.ndarray, axes: tuple[int, ...], keep: bool) -> np.ndarray:
    # as OpenVINO's reference: start from the lowest finite value, NaN never wins, empty gives it
    return np.fmax.reduce(data, axis=axes, keepdims=keep, initial=_lowest(data.dtype))  # type: ignore[call-overload]  # axes: a tuple, as NumPy takes


def _min(data: np.ndarray, axes: tuple[int, ...], keep: bool) -> np.ndarray:
    # OpenVINO's reference starts from +inf where the type has one (an empty
    # reduction gives +inf, as ONNX expects), else from the largest value; its
    # ReduceMax starts from the lowest finite value, never -inf (see _max)
    return np.fmin.reduce(data, axis=axes, keepdims=keep, initial=_min_start(data.dtype))  # type: ignore[call-overload]  # as above


def _min_start(dtype: np.dtype) -> Any:
    if not _integral(dtype):
        inf = np.array(np.inf).astype(dtype)
        if np.isinf(inf):
            return inf
    return _highest(dtype)


def _mean(data: np.ndarray, axes: tuple[int, ...], keep: bool) -> np.ndarray:
    count = math.prod(data.shape[a] for a in axes)
    if data.dtype.kind in "iu":
        total = np.sum(data, axis=axes, keepdims=keep, dtype=data.dtype)  # wraps in the type, as C
        if count == 0:
            return np.zeros_like(total)
        q = total // count
        return q + ((q * count != total) & (total < 0)).astype(q.dtype)  # C division truncates
    total = np.asarray(_sum_f32(data, axes, keep))
    return total / count if count else total / 0.0


def _l1(data: np.ndarray, axes: tuple[int, ...], keep: bool) -> np.ndarray:
    return _sum_f32(np.abs(data), axes, keep)


def _l2(data: np.ndarray, axes: tuple[int, ...], keep: bool) -> np.ndarray:
    if data.dtype.kind in "iu":
        squares = np.multiply(data, data, dtype=data.dtype)
        return np.sqrt(np.sum(squares, axis=axes, keepdims=keep, dtype=data.dtype).astype(np.float64))
    squares = np.square(data, dtype=np.float32 if data.itemsize < 4 else data.dtype)
    return np.sqrt(np.sum(squares, axis=axes, keepdims=keep))


reduction("ReduceMax", 1, _max, accuracy=EXACT, summary="maximum over axes")
reduction("ReduceMin", 1, _min, accuracy=EXACT, summary="minimum over axes")
reduction("ReduceMean", 1, _mean, summary="mean over axes")
reduction("ReduceL1", 4, _l1, summary="sum of |x| over axes")
reduction("ReduceL2", 4, _l2, summary="square root of the sum of x**2 over axes")
reduction("ReduceLogicalAnd", 1, lambda d, a, k: np.all(d, axis=a, keepdims=k), types=BOOLEAN, accuracy=EXACT,
          summary="logical and over axes (empty: true)")
reduction("ReduceLogicalOr", 1, lambda d, a, k: np.any(d, axis=a, keepdims=k), types=BOOLEAN, accuracy=EXACT,
          summary="logical or over axes (empty: false)")
