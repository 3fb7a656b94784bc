"""Binary arithmetic on the elementwise factory: NumPy broadcasting (or
none, or PDPD), one element type for both inputs, integers wrapping as in C.

Floats: Add, Subtract, Multiply, Divide are IEEE operations on the element
type (correctly rounded; f16/bf16 computed in f32 and rounded once).  Power
and SquaredDifference are computed in f64 and rounded once.  Mod and FloorMod
are exact (``fmod`` / ``remainder``).  Integer division and modulo by zero
are run-time errors.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...base import lowbit
from ...kernels.elementwise import pick
from ..framework.accuracy import EXACT, ROUNDED
from ..framework.base import Attr, Op, op_error
from .factory import add_bounds, binary, divide_bounds, maximum_bounds, minimum_bounds, multiply_bounds, subtract_bounds


def _is_int(a: np.ndarray) -> bool:
    # int4/uint4: ml_dtypes, kind "V", integer arithmetic all the same
    return a.dtype.kind in "iu" or lowbit.name_of(a.dtype) in ("i4", "u4")


def _check_nonzero(b: np.ndarray, what: str) -> None:
    if not b.all():
        raise op_error(f"integer {what} by zero (input b holds 0)", "bad-value", 1)


def _divide(a: np.ndarray, b: np.ndarray, op: Op) -> np.ndarray:
    if not _is_int(a):
        return np.divide(a, b)
    _check_nonzero(b, "division")
    q = np.floor_divide(a, b)
    if op.m_pythondiv or a.dtype.kind == "u":
        return q
    # truncation toward zero: floor moved up where the remainder is not 0 and the signs differ
    inexact = (q * b != a) & ((a < 0) != (b < 0))
    return q + inexact.astype(q.dtype)


def _mod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if _is_int(a):
        _check_nonzero(b, "modulo")
    return np.fmod(a, b)  # sign of the dividend, exact for floats


def _floor_mod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if _is_int(a):
        _check_nonzero(b, "modulo")
    return np.remainder(a, b)  # sign of the divisor, exact for floats


def _power(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if not _is_int(a):
        return np.power(a, b)
    neg = b < 0
    if not neg.any():
        return np.power(a, b)  # repeated multiplication in the type: wraps as in C
    # x**-n truncated toward zero: only |x| == 1 gives a non-zero result
    if (neg & (a == 0)).any():
        raise op_error("integer 0 raised to a negative power (input b < 0 where a == 0)", "bad-value", 1)
    pos = np.power(a, np.where(neg, 0, b))
    if a.dtype.kind == "u":
        small = np.where(a == 1, 1, 0).astype(a.dtype)
    else:
        odd = (b & 1).astype(bool)
        small = np.where(a == 1, 1, np.where(a == -1, np.where(odd, -1, 1), 0)).astype(a.dtype)
    return np.where(neg, small, pos)


_SIMD_TIES = (np.dtype(np.float32), np.dtype(np.float64))


def _select(a: np.ndarray, b: np.ndarray, ufunc: np.ufunc, better: np.ufunc, ignore_nan: np.ufunc) -> np.ndarray:
    """``better(a, b) ? a : b`` as OpenVINO computes Maximum and Minimum: NaN in
    b wins, NaN in a loses, of two equal zeros b is taken."""
    if a.dtype.kind in "iub":
        return ufunc(a, b)
    if a.dtype in _SIMD_TIES:
        if b.size == 1 and b.ndim <= a.ndim and a.size:  # a bound (a clamp written as Maximum, Minimum)
            return pick(a, b.item(), ufunc, ignore_nan)
        if a.shape == b.shape:
            return pick(a, b, ufunc, ignore_nan)
        out = ufunc(a, b)  # NaN from either side; equal values give b for these types
        if a.size and np.isnan(np.min(a)):  # rare: a NaN against a number gives that number
            out = np.where(np.isnan(a) & ~np.isnan(b), b, out)
        return out
    return np.where(better(a, b), a, b)


def maximum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return _select(a, b, np.maximum, np.greater, np.fmax)


def minimum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return _select(a, b, np.minimum, np.less, np.fmin)


def _squared_difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    d = np.subtract(a, b)
    return np.multiply(d, d, out=d)


binary("Add", 1, np.add, bounds=add_bounds, accuracy=ROUNDED, summary="a + b")
binary("Subtract", 1, np.subtract, bounds=subtract_bounds, accuracy=ROUNDED, summary="a - b")
binary("Multiply", 1, np.multiply, bounds=multiply_bounds, accuracy=ROUNDED, summary="a * b")
binary("Divide", 1, _divide, with_op=True, bounds=divide_bounds, accuracy=ROUNDED, summary="a / b (integers: floor division by default)",
       attributes={"m_pythondiv": Attr("bool", True, doc="integer division rounds toward -inf (true) or zero")})
Power1 = binary("Power", 1, _power, precise=True, summary="a ** b")
_F32 = np.dtype(np.float32)


def _power_compute(self: Op, plan: Any, *inputs: np.ndarray) -> Sequence[np.ndarray]:
    """f32 squared (an RMSNorm's ``x ** 2``) as one f32 multiply: the f64 square of an f32
    is exact, so rounding it once gives the same bits as the correctly rounded f32 product,
    without the round trip through f64 (0.2x the kernel time on an LLM's rows)."""
    a, b = inputs
    if a.dtype == _F32 and b.dtype == _F32 and b.size == 1 and b.ndim <= a.ndim and a.size and b.reshape(-1)[0] == 2:
        with np.errstate(all="ignore"):  # overflow to inf, NaN in: as the f64 path gives them
            return [np.multiply(a, a)]
    return _binary_compute(self, plan, *inputs)


_binary_compute = Power1.compute
Power1.compute = _power_compute  # type: ignore[method-assign]
binary("Maximum", 1, maximum, bounds=maximum_bounds, accuracy=EXACT, summary="max(a, b)")
binary("Minimum", 1, minimum, bounds=minimum_bounds, accuracy=EXACT, summary="min(a, b)")
binary("Mod", 1, _mod, accuracy=EXACT, summary="a mod b, sign of a (truncated)")
binary("FloorMod", 1, _floor_mod, accuracy=EXACT, summary="a mod b, sign of b (floored)")
binary("SquaredDifference", 1, _squared_difference, precise=True, summary="(a - b) ** 2")
