"""Conformance table of ErfInv-17.  The reference inverts Python's math.erf by
bisection in f64 (erf is increasing), then rounds once."""

from __future__ import annotations

import math
from typing import Any

import ml_dtypes
import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, Tol, conformance, table_rng


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


rng = table_rng("ErfInv-17")  # the table's own generator


def unit(shape: tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    return rng.uniform(-1, 1, shape).astype(dtype)


EDGES = np.array([0, -0.0, 1, -1, 0.5, -0.5, 0.9999999, 1 - 2 ** -24, 1e-30, 1.5, -2, np.inf, np.nan, 1e-45],
                 np.float32)
# OpenVINO CPU approximates erfinv: up to about 1e-4 relative off on these tables
ERFINV = OpTable("ErfInv", "opset17", reference=ref_erfinv, tol=Tol(ulps=1), ov_tol=Tol(rtol=1e-4, atol=1e-6), cases=[
    Case("f32", [unit((4, 50))]),
    Case("tails", [np.concatenate([1 - np.logspace(-7, -1, 40), -1 + np.logspace(-7, -1, 40)]).astype(np.float32)],
         ov="OpenVINO CPU's approximation is up to 0.5% off in the tails"),
    Case("edges", [EDGES], ov="OpenVINO CPU flushes the f32 denormal to zero"),
    Case("f16", [unit((30,), np.float16)]),
    Case("bf16", [unit((30,)).astype(ml_dtypes.bfloat16)]),
    Case("zero-size", [np.zeros((0, 2), np.float32)]),
], errors=[
    ErrorCase("integer", [np.zeros((2,), np.int32)], code="bad-input-type"),
])
ERFINV_F64 = OpTable("ErfInv", "opset17", id="ErfInv-opset17-f64", reference=ref_erfinv, tol=Tol(rtol=1e-14, atol=1e-300),
                     cases=[Case("f64", [rng.uniform(-1, 1, (20,))], ov="OpenVINO CPU computes f64 in f32")])

test_conformance = conformance([ERFINV, ERFINV_F64])
