"""Conformance table of Inverse-14.  The reference is NumPy's LAPACK inverse in
f64 (transposed for adjoint); singular matrices are compared with the
infinities and NaNs of the LU algorithm OpenVINO's reference uses."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, Tol, conformance, random_arrays, table_rng


def ref_inverse(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    a = x[0].astype(np.float64)
    inv = np.linalg.inv(a) if a.size else np.zeros(a.shape)
    if attrs.get("adjoint") in (True, "true"):
        inv = np.swapaxes(inv, -1, -2)
    return [inv.astype(x[0].dtype)]


def well_conditioned(rand: Any, shape: tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    """Random matrices plus a dominant diagonal: the inverse is not ill-conditioned."""
    n = shape[-1]
    return (rand(shape, np.float64) / 10 + 4 * np.eye(n)).astype(dtype)


rand = random_arrays(table_rng("Inverse-14"))  # the table's own generator
INVERSE = OpTable("Inverse", "opset14", reference=ref_inverse, tol=Tol(rtol=1e-6, atol=1e-7),
                  ov_tol=Tol(rtol=1e-5, atol=1e-6), cases=[
    Case("3x3", [well_conditioned(rand, (3, 3))], attrs={"adjoint": False}),
    Case("batch", [well_conditioned(rand, (2, 3, 4, 4))], attrs={"adjoint": False}),
    Case("adjoint", [well_conditioned(rand, (2, 5, 5))], attrs={"adjoint": True}),
    Case("pivoting", [np.array([[0, 1, 2], [1, 0, 3], [4, -3, 8]], np.float32)], attrs={"adjoint": False}),
    Case("1x1", [np.array([[4.0]], np.float32)], attrs={"adjoint": False}),
    Case("f16", [well_conditioned(rand, (3, 3), np.float16)], attrs={"adjoint": False}),
    Case("bf16", [well_conditioned(rand, (2, 2), ml_dtypes.bfloat16)], attrs={"adjoint": True}),
    Case("zero-size", [np.zeros((0, 3, 3), np.float32)], attrs={"adjoint": False}),
], errors=[
    ErrorCase("rank-1", [rand((3,))], attrs={"adjoint": False}, code="bad-input-rank"),
    ErrorCase("not-square", [rand((2, 3))], attrs={"adjoint": False}, code="incompatible-inputs"),
    ErrorCase("integer", [rand((2, 2), np.int32)], attrs={"adjoint": False}, code="bad-input-type"),
])


# Singular matrices: the LU of OpenVINO's reference (pivot on the largest |value|, divisions by
# zero giving ±inf and NaN), worked by hand.
SINGULAR = OpTable("Inverse", "opset14", id="Inverse-opset14-singular", tol=Tol.EXACT, cases=[
    Case("rank-deficient", [np.array([[1, 2], [2, 4]], np.float32)], attrs={"adjoint": False},
         expect=[np.array([[-np.inf, np.inf], [np.inf, -np.inf]], np.float32)]),
    Case("zeros", [np.zeros((2, 2), np.float32)], attrs={"adjoint": False},
         expect=[np.full((2, 2), np.nan, np.float32)]),
])

test_conformance = conformance([INVERSE, SINGULAR])
