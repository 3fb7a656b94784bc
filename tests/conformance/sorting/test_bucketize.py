"""Conformance table of Bucketize-3."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, conformance, table_rng
from conformance.sorting.references import ref_bucketize


def ints(shape: tuple[int, ...], lo: int, hi: int, dtype: Any = np.int32) -> np.ndarray:
    return rng.integers(lo, hi, shape).astype(dtype)


# OpenVINO requires output_type in IR (the spec gives it a default, i64, which irexec accepts)
I64 = {"output_type": "i64"}


rng = table_rng("Bucketize-3")  # each table its own generator
BUCKETIZE = OpTable("Bucketize", "opset3", reference=ref_bucketize, cases=[
    Case("f32-right", [rng.uniform(-5, 5, (3, 4)).astype(np.float32), np.array([-2, 0, 0.5, 3], np.float32)], attrs=I64, const=(1,)),
    Case("on-boundaries-right", [np.array([-2, 0, 0.5, 3, 4, -3], np.float32), np.array([-2, 0, 0.5, 3], np.float32)],
         attrs=I64, const=(1,)),
    Case("on-boundaries-left", [np.array([-2, 0, 0.5, 3, 4, -3], np.float32), np.array([-2, 0, 0.5, 3], np.float32)],
         attrs={"with_right_bound": False, **I64}, const=(1,)),
    Case("i32-out", [ints((2, 5), -10, 10), np.array([-5, 0, 5], np.int32)], attrs={"output_type": "i32"}),
    Case("int-data-float-buckets", [ints((6,), -4, 4, np.int64), np.array([-1.5, 0.5, 2.5], np.float32)], attrs=I64),
    Case("f16", [rng.uniform(-3, 3, (5,)).astype(np.float16), np.array([-1, 1], np.float16)], attrs=I64, const=(1,)),
    Case("empty-buckets", [ints((4,), 0, 9), np.zeros(0, np.int32)], attrs=I64, const=(1,)),
    Case("zero-size-data", [np.zeros((0, 2), np.float32), np.array([1.0], np.float32)], attrs=I64),
    Case("scalar", [np.array(2.5, np.float32), np.array([1, 2, 3], np.float32)], attrs=I64),
], errors=[
    ErrorCase("buckets-2d", [ints((3,), 0, 4), ints((2, 2), 0, 4)], attrs=I64, code="bad-input-rank"),
    ErrorCase("output-type-f32", [ints((3,), 0, 4), ints((2,), 0, 4)], attrs={"output_type": "f32"}, code="bad-attribute"),
    ErrorCase("boolean-data", [np.array([True]), ints((2,), 0, 4)], attrs=I64, code="bad-input-type"),
])

TABLES = [BUCKETIZE]
test_conformance = conformance(TABLES)
