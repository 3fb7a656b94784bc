"""Conformance table of Transpose-1."""

from __future__ import annotations

import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, conformance, i64, random_arrays, table_rng
from conformance.movement.references import BF16, ref_transpose

rng = table_rng("Transpose-1")  # each table its own generator
rand = random_arrays(rng)
TRANSPOSE = OpTable("Transpose", "opset1", reference=ref_transpose, cases=[
    Case("f32", [rand((2, 3, 4)), i64(2, 0, 1)], const=(1,)),
    Case("empty-order", [rand((2, 3, 4), np.int16), np.zeros(0, np.int64)], const=(1,),
         ov_shapes="OpenVINO infers a scalar for data of dynamic rank with an empty order"),
    Case("i32-order", [rand((5, 2), BF16), np.array([1, 0], np.int32)], const=(1,)),
    Case("rank-1", [rand((3,), bool), i64(0)], const=(1,)),
    Case("u64", [rand((2, 1, 3), np.uint64), i64(1, 2, 0)], const=(1,), ov="OpenVINO CPU narrows u64 to i32"),
    Case("zero-size", [rand((0, 2)), i64(1, 0)], const=(1,), ov="OpenVINO CPU refuses a zero-size input"),
], errors=[
    ErrorCase("not-permutation", [rand((2, 3)), i64(0, 0)], const=(1,), code="bad-value"),
    ErrorCase("wrong-length", [rand((2, 3)), i64(0, 1, 2)], const=(1,), code="bad-value"),
])

TABLES = [TRANSPOSE]
test_conformance = conformance(TABLES)
