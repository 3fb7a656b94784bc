"""Conformance table of Unique-10."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, conformance, table_rng
from conformance.sorting.references import axis, ref_unique


def ints(shape: tuple[int, ...], lo: int, hi: int, dtype: Any = np.int32) -> np.ndarray:
    return rng.integers(lo, hi, shape).astype(dtype)


rows = np.array([[1, 2, 1, 2], [3, 3, 3, 3], [1, 2, 1, 2], [0, 5, 0, 5]], np.float32)


rng = table_rng("Unique-10")  # each table its own generator
UNIQUE = OpTable("Unique", "opset10", reference=ref_unique, cases=[
    Case("flat-sorted", [ints((3, 5), 0, 6)]),
    Case("flat-unsorted", [ints((12,), -3, 3, np.int64)], attrs={"sorted": False}),
    Case("i32-outputs", [ints((2, 6), 0, 4, np.int8)], attrs={"index_element_type": "i32", "count_element_type": "i32"}),
    Case("signed-zero", [np.array([0.0, -0.0, 1.5, -1.5, 1.5], np.float32)]),
    Case("axis-0", [rows, axis(0)], const=(1,)),
    Case("axis-1-unsorted", [rows, axis(1)], attrs={"sorted": False}, const=(1,)),
    Case("axis-negative", [rows.astype(np.int32), axis(-1)], const=(1,)),
    Case("axis-1d", [ints((3, 4, 2), 0, 2), np.array([2], np.int32)], const=(1,)),
    Case("f16", [np.array([3, 1, 2, 1, 3], np.float16)]),
    Case("bf16", [np.array([3, 1, 2, 1, 3], ml_dtypes.bfloat16)]),
    Case("scalar", [np.array(7, np.int64)]),
    Case("zero-size-axis", [np.zeros((0, 3), np.float32), axis(0)], const=(1,)),
], errors=[
    ErrorCase("axis-out-of-range", [rows, axis(2)], const=(1,), code="axis-out-of-range"),
    ErrorCase("axis-two-values", [rows, np.array([0, 1], np.int64)], const=(1,), code="bad-input-rank"),
    ErrorCase("axis-not-constant", [rows, axis(0)], code="bad-value"),
    ErrorCase("index-type-f32", [rows], attrs={"index_element_type": "f32"}, code="bad-attribute"),
])

TABLES = [UNIQUE]
test_conformance = conformance(TABLES)
