"""NumPy references of the elementwise ops, written from the op specifications (each
takes a case's inputs and attributes and returns its outputs), and the helpers they share."""

from __future__ import annotations

import math
from typing import Any

import ml_dtypes
import numpy as np

BF16 = np.dtype(ml_dtypes.bfloat16)


def is_float(a: np.ndarray) -> bool:
    return a.dtype.kind == "f" or a.dtype == BF16


EDGE = np.array([0.0, -0.0, 1e-45, -1e-45, 1e-40, np.inf, -np.inf, np.nan, 3.4e38, -3.4e38, 1.0, -2.5], np.float32)


EDGE_B = np.array([-0.0, 0.0, 1e-45, 2.0, -1e-40, np.inf, 1.0, 1.0, 3.4e38, 2.0, np.nan, -np.inf], np.float32)


def f64_ref(fn: Any) -> Any:
    """Reference computed in f64 (exact or nearly) and rounded once to the type;
    integers wrap as in C."""
    def ref(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
        a, b = x
        with np.errstate(all="ignore"):
            if is_float(a):
                return [np.asarray(fn(a.astype(np.float64), b.astype(np.float64))).astype(a.dtype)]
            return [np.asarray(fn(a, b)).astype(a.dtype)]
    return ref


def c_trunc_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    q = np.floor_divide(a, b)
    return q + ((q * b != a) & ((a < 0) != (b < 0))).astype(q.dtype)


def ref_divide(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    a, b = x
    if is_float(a):
        with np.errstate(all="ignore"):
            return [(a.astype(np.float64) / b.astype(np.float64)).astype(a.dtype)]
    with np.errstate(over="ignore"):  # INT_MIN / -1 wraps, as C does
        if attrs.get("m_pythondiv", True) or a.dtype.kind == "u":
            return [np.floor_divide(a, b)]
        return [c_trunc_div(a, b)]


def ref_max(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    a, b = np.broadcast_arrays(*x)
    return [np.array([ai if ai > bi else bi for ai, bi in zip(a.reshape(-1), b.reshape(-1))], a.dtype).reshape(a.shape)]


def ref_min(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    a, b = np.broadcast_arrays(*x)
    return [np.array([ai if ai < bi else bi for ai, bi in zip(a.reshape(-1), b.reshape(-1))], a.dtype).reshape(a.shape)]


def ref_power(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    a, b = x
    if is_float(a):
        with np.errstate(all="ignore"):
            return [np.power(a.astype(np.float64), b.astype(np.float64)).astype(a.dtype)]
    a, b = np.broadcast_arrays(a, b)
    bits = a.dtype.itemsize * 8
    out = []
    for ai, bi in zip(a.reshape(-1).tolist(), b.reshape(-1).tolist()):
        if bi >= 0:
            v = pow(ai, bi, 1 << bits)  # exact power, wrapped
        else:
            v = 1 if ai == 1 else ((-1) ** (-bi) if ai == -1 else 0)
        out.append(v)
    info = np.iinfo(a.dtype)
    wrapped = [v - (1 << bits) if v > info.max else v for v in out]
    return [np.array(wrapped, a.dtype).reshape(a.shape)]


def ref_fmod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.fmod(a, b)


def ref_shift(left: bool) -> Any:
    def ref(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
        a, b = np.broadcast_arrays(*x)
        bits = a.dtype.itemsize * 8
        out = []
        for ai, bi in zip(a.reshape(-1).tolist(), b.reshape(-1).tolist()):
            if left:
                v = 0 if bi >= bits else (ai << bi) & ((1 << bits) - 1)
            else:
                v = ai >> min(bi, bits + 1)  # Python's >> is arithmetic on the exact value
            out.append(v)
        info = np.iinfo(a.dtype)
        arr = np.array(out, object)
        if left and info.min < 0:
            arr = np.array([v - (1 << bits) if v > info.max else v for v in out], object)
        return [arr.astype(a.dtype).reshape(a.shape)]
    return ref


def relu_ref(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    a = x[0]
    return [np.array([v if v > 0 else 0 for v in a.reshape(-1).tolist()], a.dtype).reshape(a.shape)]


def sign_ref(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    a = x[0]
    return [np.array([-1 if v < 0 else (1 if v > 0 else 0) for v in a.reshape(-1).tolist()], a.dtype).reshape(a.shape)]


def round_ref(mode: str) -> Any:
    def one(v: float) -> float:
        if math.isnan(v) or math.isinf(v):
            return v
        if mode == "half_to_even":
            return math.copysign(float(round(v)), v)  # Python rounds halves to even
        return math.copysign(math.floor(abs(v) + 0.5), v)
    def ref(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
        a = x[0]
        if not is_float(a):
            return [a.copy()]
        return [np.array([one(v) for v in a.astype(np.float64).reshape(-1).tolist()], np.float64).astype(a.dtype).reshape(a.shape)]
    return ref


def clamp_ref(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    a, lo, hi = x[0], attrs["min"], attrs["max"]
    if not is_float(a):  # integer bounds: ceil(min), floor(max)
        lo, hi = math.ceil(lo), math.floor(hi)
    out = [lo if v < lo else (hi if v > hi else v) for v in a.astype(np.float64).reshape(-1).tolist()]
    return [np.array(out, np.float64).astype(a.dtype).reshape(a.shape)]


def prelu_ref(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, slope = x
    if slope.ndim == 1 and data.ndim >= 2 and slope.shape[0] == data.shape[1] and slope.shape[0] != 1:
        slope = slope.reshape((-1,) + (1,) * (data.ndim - 2))
    d64, s64 = data.astype(np.float64), slope.astype(np.float64)
    return [np.where(d64 < 0, d64 * s64, d64).astype(data.dtype)]


def ref_add(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    a, b = x
    if attrs.get("auto_broadcast") == "pdpd":  # b laid onto a from dim 0
        b = b.reshape(b.shape + (1,) * (a.ndim - b.ndim))
    if a.dtype.kind == "f" or a.dtype == ml_dtypes.bfloat16:
        # exact sum in f64, rounded once: correctly rounded for f16/bf16/f32 (f64 holds their sums exactly)
        with np.errstate(invalid="ignore"):
            return [(a.astype(np.float64) + b.astype(np.float64)).astype(a.dtype)]
    with np.errstate(over="ignore"):
        return [np.add(a, b, dtype=a.dtype)]  # wraps as in C


def _inverse(y: float) -> float:
    if math.isnan(y) or abs(y) > 1:
        return math.nan
    if abs(y) == 1:
        return math.copysign(math.inf, y)
    if y == 0:
        return y
    lo, hi = 0.0, 6.0
    a = abs(y)
    for _ in range(200):  # to the last bit of f64 (erfc for the tail, where 1 - erf cancels)
        mid = (lo + hi) / 2
        if (math.erf(mid) < a) if a <= 0.5 else (math.erfc(mid) > 1 - a):
            lo = mid
        else:
            hi = mid
    return math.copysign((lo + hi) / 2, y)


def ref_erfinv(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    d = x[0]
    flat = [_inverse(float(v)) for v in d.astype(np.float64).reshape(-1)]
    return [np.array(flat, np.float64).reshape(d.shape).astype(d.dtype)]
