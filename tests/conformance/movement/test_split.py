"""Conformance tables of Split-1 and VariadicSplit-1."""

from __future__ import annotations

import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, conformance, i64, random_arrays, table_rng
from conformance.movement.references import BF16, ref_split, ref_vsplit

rand = random_arrays(table_rng("Split-1"))
SPLIT = OpTable("Split", "opset1", reference=ref_split, cases=[
    Case("three", [rand((2, 6)), np.array(1, np.int64)], attrs={"num_splits": 3}, const=(1,)),
    Case("negative-axis", [rand((4, 2, 2), np.int32), np.array(-3, np.int32)], attrs={"num_splits": 2}, const=(1,)),
    Case("one", [rand((3,), np.uint8), np.array(0, np.int64)], attrs={"num_splits": 1}, const=(1,)),
    Case("zero-size", [rand((0, 4)), np.array(1, np.int64)], attrs={"num_splits": 2}, const=(1,)),
], errors=[
    ErrorCase("uneven", [rand((2, 5)), np.array(1, np.int64)], attrs={"num_splits": 2}, const=(1,), code="incompatible-inputs"),
    ErrorCase("zero-splits", [rand((2, 4)), np.array(1, np.int64)], attrs={"num_splits": 0}, const=(1,), code="bad-attribute"),
    ErrorCase("axis-out-of-range", [rand((2, 4)), np.array(2, np.int64)], attrs={"num_splits": 2}, const=(1,),
              code="axis-out-of-range"),
    ErrorCase("axis-not-scalar", [rand((2, 4)), np.array([1], np.int64)], attrs={"num_splits": 2}, const=(1,),
              code="bad-input-rank"),
    ErrorCase("axis-2d", [rand((2, 4)), np.array([[1]], np.int64)], attrs={"num_splits": 2}, const=(1,),
              code="bad-input-rank"),
])


rng = table_rng("VariadicSplit-1")  # each table its own generator
rand = random_arrays(rng)
VSPLIT = OpTable("VariadicSplit", "opset1", reference=ref_vsplit, cases=[
    Case("basic", [rand((6, 4)), np.array(0, np.int64), i64(1, 2, 3)], const=(1, 2)),
    Case("minus-one", [rand((2, 10), np.int32), np.array(-1, np.int64), i64(4, -1, 2)], const=(1, 2)),
    Case("zero-length", [rand((3, 5), BF16), np.array(1, np.int32), np.array([0, 5], np.int32)], const=(1, 2),
         ov="OpenVINO CPU refuses an empty output"),
    Case("gpt2-qkv", [rand((1, 4, 24), np.float16), np.array(2, np.int64), i64(8, 8, 8)], const=(1, 2)),
    Case("axis-1d", [rand((4, 6)), np.array([1], np.int64), i64(2, 4)], const=(1, 2)),
    Case("axis-real", [rand((4, 6)), np.array(1.7, np.float32), i64(2, 4)], const=(1, 2)),
], errors=[
    ErrorCase("axis-two-values", [rand((4, 6)), i64(0, 1), i64(2, 4)], const=(1, 2), code="bad-input-rank"),
    ErrorCase("sum", [rand((6,)), np.array(0, np.int64), i64(1, 2)], const=(1, 2), code="incompatible-inputs"),
    ErrorCase("two-minus-one", [rand((6,)), np.array(0, np.int64), i64(-1, -1)], const=(1, 2), code="bad-value"),
])

TABLES = [SPLIT, VSPLIT]
test_conformance = conformance(TABLES)
