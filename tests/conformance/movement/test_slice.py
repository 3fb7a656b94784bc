"""Conformance table of Slice-8."""

from __future__ import annotations

import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, conformance, i64, random_arrays, table_rng
from conformance.movement.references import BF16, ref_slice

rng = table_rng("Slice-8")  # each table its own generator
rand = random_arrays(rng)
SLICE = OpTable("Slice", "opset8", reference=ref_slice, cases=[
    Case("basic", [rand((10,)), i64(1), i64(8), i64(2)], const=(1, 2, 3)),
    Case("negative-step", [rand((10,), np.int32), i64(9), i64(-11), i64(-3)], const=(1, 2, 3)),
    Case("clamped", [rand((4, 5), np.float16), i64(-100, 2), i64(100, 2**62), i64(1, 1)], const=(1, 2, 3)),
    Case("axes", [rand((3, 4, 5), BF16), i64(1, -2), i64(3, 0), i64(1, -1), i64(2, 0)], const=(1, 2, 3, 4)),
    Case("negative-axes", [rand((3, 4), np.int64), i64(0), i64(-1), i64(1), i64(-1)], const=(1, 2, 3, 4)),
    Case("empty-result", [rand((5,)), i64(3), i64(1), i64(1)], const=(1, 2, 3), ov="OpenVINO CPU refuses an empty output"),
    Case("int64-max", [rand((6, 2), np.uint8), i64(-1), i64(-(2**63)), i64(-1)], const=(1, 2, 3)),
    Case("i32-params", [rand((4, 4)), np.array([1], np.int32), np.array([3], np.int32), np.array([1], np.int32)],
         const=(1, 2, 3)),
], errors=[
    ErrorCase("zero-step", [rand((5,)), i64(0), i64(5), i64(0)], const=(1, 2, 3), code="bad-value"),
    ErrorCase("repeated-axes", [rand((5, 5)), i64(0, 0), i64(2, 2), i64(1, 1), i64(0, 0)], const=(1, 2, 3, 4),
              code="bad-value"),
    ErrorCase("lengths", [rand((5, 5)), i64(0, 0), i64(2), i64(1)], const=(1, 2, 3), code="incompatible-inputs"),
])

TABLES = [SLICE]
test_conformance = conformance(TABLES)
