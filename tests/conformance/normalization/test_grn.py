"""Conformance table of GRN-1: a float64 reference written from the spec,
rounded once (1 ulp); OpenVINO CPU sums the squares in f32 (8 ulp)."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.harness import OV_READS_DEFAULT, OV_TYPE_UNCHECKED, Case, ErrorCase, OpTable, Tol, conformance, random_arrays, table_rng


def ref_grn(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data = x[0].astype(np.float64)
    out = np.empty_like(data)
    for index in np.ndindex(data.shape[:1] + data.shape[2:]):  # every position but the channel
        at = index[:1] + (slice(None),) + index[1:]
        out[at] = data[at] / np.sqrt(np.sum(data[at] ** 2) + attrs["bias"])
    return [out.astype(x[0].dtype)]


rand = random_arrays(table_rng("GRN-1"))  # the table's own generator
GRN = OpTable("GRN", "opset1", reference=ref_grn, tol=Tol(ulps=1), ov_tol=Tol(ulps=8), cases=[
    Case("nchw", [rand((2, 3, 4, 5))], attrs={"bias": 1e-3}),
    Case("nc", [rand((4, 6))], attrs={"bias": 1.0}),
    Case("ncw", [rand((2, 5, 3))], attrs={"bias": 0.5}),
    Case("one-channel", [rand((3, 1, 2))], attrs={"bias": 1e-6}),
    Case("f16", [rand((2, 4, 3), np.float16)], attrs={"bias": 1e-3}),
    Case("f64", [rand((2, 3, 2), np.float64)], attrs={"bias": 1e-3}, ov="OpenVINO CPU computes f64 in f32"),
    Case("const", [rand((1, 3, 2, 2))], attrs={"bias": 2.0}, const=(0,),
         ov="OpenVINO CPU crashes (segmentation fault) compiling a GRN whose data is a Const"),
    Case("zero-batch", [rand((0, 3, 2))], attrs={"bias": 1.0}),
    Case("three-four-five", [np.array([[3, 4]], np.float32)], attrs={"bias": 0.0},
         expect=[np.array([[0.6, 0.8]], np.float32)]),
], errors=[
    ErrorCase("rank-1", [rand((4,))], attrs={"bias": 1.0}, code="bad-input-rank"),
    ErrorCase("rank-5", [rand((1, 2, 1, 2, 1))], attrs={"bias": 1.0}, code="bad-input-rank"),
    ErrorCase("integer-data", [rand((2, 3), np.int32)], attrs={"bias": 1.0}, code="bad-input-type", ov=OV_TYPE_UNCHECKED),
    ErrorCase("bias-missing", [rand((2, 3))], code="bad-attribute", ov=OV_READS_DEFAULT),
    ErrorCase("bias-not-a-number", [rand((2, 3))], attrs={"bias": "one"}, code="bad-attribute"),
    ErrorCase("rank-1-dynamic", [rand((4,))], attrs={"bias": 1.0}, shapes={0: ("?", "f32")}, code="bad-input-rank"),
])

test_conformance = conformance([GRN])
