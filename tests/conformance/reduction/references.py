"""NumPy references of the reduction ops, written from the op specifications (each
takes a case's inputs and attributes and returns its outputs), and the helpers they share."""

from __future__ import annotations

import math
from typing import Any

import ml_dtypes
import numpy as np

from conformance.matmul.references import is_float


def ref_max(d: np.ndarray, ax: tuple[int, ...]) -> np.ndarray:
    low = -float(ml_dtypes.finfo(d.dtype).max) if is_float(d) else np.iinfo(d.dtype).min
    out = np.full(np.delete(np.array(d.shape, int), ax).tolist(), low, np.float64 if is_float(d) else object)
    it = np.moveaxis(d, ax, list(range(d.ndim - len(ax), d.ndim))) if ax else d[..., None]
    flat = it.reshape(out.shape + (math.prod(d.shape[a] for a in ax),))
    for idx in np.ndindex(out.shape):
        for v in flat[idx].tolist():
            if out[idx] < v:  # std::max: NaN never replaces the running value
                out[idx] = v
    return out


def ref_min(d: np.ndarray, ax: tuple[int, ...]) -> np.ndarray:
    if is_float(d) and math.prod(d.shape[a] for a in ax) == 0:
        # OpenVINO's reference starts ReduceMin from +inf (ReduceMax from the lowest finite value)
        return np.full(np.delete(np.array(d.shape, int), ax).tolist(), np.inf)
    return -ref_max(-d, ax) if is_float(d) else np.negative(ref_max(-d.astype(np.int64), ax))


def ref_cumsum(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data = x[0]
    a = int(np.asarray(x[1]).reshape(-1)[0]) if len(x) > 1 else 0
    a %= max(data.ndim, 1)
    exact = data.dtype.kind in "iu"
    n = data.shape[a]
    out = np.zeros(data.shape, object if exact else np.float64)
    for j in range(n):
        take = range(j + 1, n) if attrs.get("reverse") else range(j)
        if not attrs.get("exclusive"):
            take = [*take, j]
        total = sum((np.take(data, k, axis=a).astype(object if exact else np.float64) for k in take),
                    np.zeros(np.take(data, 0, axis=a).shape, object if exact else np.float64))
        idx = [slice(None)] * data.ndim
        idx[a] = j
        out[tuple(idx)] = total
    if exact:
        bits = data.dtype.itemsize * 8
        wrapped = [(int(v) + (1 << (bits - 1))) % (1 << bits) - (1 << (bits - 1)) if data.dtype.kind == "i"
                   else int(v) % (1 << bits) for v in out.reshape(-1)]
        return [np.array(wrapped, np.int64).astype(data.dtype).reshape(data.shape)]
    return [out.astype(data.dtype)]
