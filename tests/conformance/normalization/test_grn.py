"""Conformance table of GRN-1: x / sqrt(sum over axis 1 of x² + bias), the
reference in f64."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from conformance.harness import OV_READS_DEFAULT, OV_TYPE_UNCHECKED, Case, ErrorCase, OpTable, Tol, conformance, random_arrays, table_rng


def ref_grn(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    d = x[0].astype(np.float64)
    with np.errstate(all="ignore"):
        return [(d / np.sqrt((d * d).sum(axis=1, keepdims=True) + float(attrs["bias"]))).astype(x[0].dtype)]


rand = random_arrays(table_rng("GRN-1"))  # the table's own generator
GRN = OpTable("GRN", "opset1", reference=ref_grn, tol=Tol(ulps=1), ov_tol=Tol(rtol=1e-5, atol=1e-7), cases=[
    Case("rank-2", [rand((3, 5))], attrs={"bias": 1e-3}),
    Case("rank-3", [rand((2, 4, 3))], attrs={"bias": 1.0}),
    Case("rank-4", [rand((2, 3, 4, 5))], attrs={"bias": 0.5}),
    Case("one-channel", [rand((2, 1, 3))], attrs={"bias": 2.0}),
    Case("zero-bias-zeros", [np.zeros((1, 3, 2), np.float32)], attrs={"bias": 0.0}),
    Case("f16", [rand((2, 3, 4), np.float16)], attrs={"bias": 1e-2}),
    Case("bf16", [rand((2, 3, 4)).astype(ml_dtypes.bfloat16)], attrs={"bias": 1e-2}),
], errors=[
    ErrorCase("rank-1", [rand((3,))], attrs={"bias": 1.0}, code="bad-input-rank"),
    ErrorCase("rank-5", [rand((1, 2, 1, 2, 1))], attrs={"bias": 1.0}, code="bad-input-rank"),
    ErrorCase("integer", [rand((2, 3), np.int32)], attrs={"bias": 1.0}, code="bad-input-type", ov=OV_TYPE_UNCHECKED),
    ErrorCase("bias-missing", [rand((2, 3))], code="bad-attribute", ov=OV_READS_DEFAULT),
    ErrorCase("bias-not-a-number", [rand((2, 3))], attrs={"bias": "small"}, code="bad-attribute"),
])

rand = random_arrays(table_rng("GRN-1-f64"))
GRN_F64 = OpTable("GRN", "opset1", id="GRN-opset1-f64", reference=ref_grn, tol=Tol(rtol=1e-15), cases=[
    Case("f64", [rand((2, 3), np.float64)], attrs={"bias": 1e-6}, ov="OpenVINO CPU computes f64 in f32"),
])

test_conformance = conformance([GRN, GRN_F64])
