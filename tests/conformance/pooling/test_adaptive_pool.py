"""Conformance tables of AdaptiveAvgPool-8 and AdaptiveMaxPool-8."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.harness import OV_TYPE_UNCHECKED, Case, ErrorCase, OpTable, Tol, conformance, table_rng
from conformance.pooling.references import ref_adaptive_avg, ref_adaptive_max, shape_of


def rand(shape: tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return rng.integers(-5, 5, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


rng = table_rng("AdaptiveAvgPool-8")  # each table its own generator
AAVG = OpTable("AdaptiveAvgPool", "opset8", reference=ref_adaptive_avg, tol=Tol(rtol=1e-5, atol=1e-6), cases=[
    Case("2d-down-uneven", [rand((2, 3, 7, 9)), shape_of(3, 4)], const=(1,)),
    Case("2d-global", [rand((1, 4, 5, 6)), shape_of(1, 1)], const=(1,)),
    Case("2d-up", [rand((1, 2, 3, 2)), shape_of(5, 4, dtype=np.int32)], const=(1,)),
    Case("1d", [rand((2, 3, 10)), shape_of(4)], const=(1,)),
    Case("3d", [rand((1, 2, 4, 5, 3)), shape_of(2, 3, 2)], const=(1,)),
    Case("f16", [rand((1, 2, 6, 6), np.float16), shape_of(4, 3)], const=(1,), ov="f16 sums differ in the last bit"),
    Case("f64", [rand((1, 2, 5, 5), np.float64), shape_of(2, 2)], const=(1,), ov="OpenVINO CPU computes f64 in f32"),
], errors=[
    ErrorCase("output-shape-count", [rand((1, 2, 5, 5)), shape_of(2, 2, 2)], const=(1,), code="incompatible-inputs"),
    ErrorCase("integer-data", [rand((1, 2, 5, 5), np.int32), shape_of(2, 2)], const=(1,), code="bad-input-type",
              ov=OV_TYPE_UNCHECKED),
])


I32 = {"index_element_type": "i32"}


rng = table_rng("AdaptiveMaxPool-8")  # each table its own generator
AMAX = OpTable("AdaptiveMaxPool", "opset8", reference=ref_adaptive_max, tol=Tol.EXACT, cases=[
    Case("2d-down-uneven", [rand((2, 3, 7, 9)), shape_of(3, 4)], I32, const=(1,)),
    Case("2d-global-i64", [rand((1, 4, 5, 6)), shape_of(1, 1)], const=(1,),
         ov="OpenVINO CPU cannot compile an i64 index output (oneDNN has no i64)"),
    Case("2d-up", [rand((1, 2, 3, 2)), shape_of(5, 4)], I32, const=(1,)),
    Case("ties", [np.ones((1, 2, 4, 4), np.float32), shape_of(2, 3)], I32, const=(1,)),
    Case("1d", [rand((2, 3, 10)), shape_of(4)], I32, const=(1,)),
    Case("3d", [rand((1, 2, 4, 5, 3)), shape_of(2, 3, 2)], I32, const=(1,)),
], errors=[
    ErrorCase("output-shape-count", [rand((1, 2, 5, 5)), shape_of(2)], const=(1,), code="incompatible-inputs"),
    ErrorCase("bad-index-type", [rand((1, 2, 5, 5)), shape_of(2, 2)], {"index_element_type": "f32"}, const=(1,),
              code="bad-attribute"),
])

TABLES = [AAVG, AMAX]
test_conformance = conformance(TABLES)
