"""NumPy references of the matmul ops, written from the op specifications (each
takes a case's inputs and attributes and returns its outputs), and the helpers they share."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from conformance.harness import Case, Tol

BF16 = np.dtype(ml_dtypes.bfloat16)


F32_ACC = Tol(rtol=1e-5, atol=1e-5)  # f32 accumulation of unit-scale data


def is_float(a: np.ndarray) -> bool:
    return a.dtype.kind == "f" or a.dtype == BF16


def ref_matmul(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    a, b = x
    if attrs.get("transpose_a") and a.ndim > 1:
        a = np.swapaxes(a, -1, -2)
    if attrs.get("transpose_b") and b.ndim > 1:
        b = np.swapaxes(b, -1, -2)
    if is_float(a):
        return [np.matmul(a.astype(np.float64), b.astype(np.float64)).astype(a.dtype)]
    wide = np.matmul(a.astype(object), b.astype(object))  # exact, then wrapped to the type
    bits = a.dtype.itemsize * 8
    wrapped = np.vectorize(lambda v: ((int(v) + (1 << (bits - 1))) % (1 << bits)) - (1 << (bits - 1)), otypes=[object])
    return [np.asarray(wrapped(wide) if np.ndim(wide) else wrapped(np.array(wide, object)), a.dtype)]


ACC = Tol(rtol=1e-5, atol=1e-5)


SAME = "same shape inference as the first cases"


def later_shapes_same(cases: list[Case]) -> list[Case]:
    for c in cases[2:]:
        if c.ov_shapes is True:
            c.ov_shapes = SAME
    return cases


def ref_einsum(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    wide = [a.astype(np.float64) if a.dtype.kind == "f" else a.astype(object) for a in x]
    out = np.einsum(attrs["equation"], *wide) if x[0].dtype.kind == "f" else np.einsum(attrs["equation"], *wide, dtype=object)
    return [np.asarray(out).astype(x[0].dtype)]
