"""Conformance table of OneHot-1."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, conformance, table_rng
from conformance.indexing.references import ref_onehot

TABLES: list[OpTable] = []

def i64(v: Any) -> np.ndarray:
    return np.array(v, np.int64)


def rand(shape: tuple[int, ...], dtype: Any = np.float32, lo: int = -100, hi: int = 100) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return rng.integers(0 if dtype.kind == "u" else lo, hi, shape).astype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    return rng.standard_normal(shape).astype(dtype)


ON, OFF = np.float32(2.5), np.float32(-1.0)


rng = table_rng("OneHot-1")  # each table its own generator
TABLES.append(OpTable("OneHot", "opset1", reference=ref_onehot, cases=[
    Case("last-axis", [np.array([0, 2, 1, 3], np.int64), i64(4), ON, OFF], attrs={"axis": -1}, const=(1, 2, 3)),
    Case("axis0-i32", [rand((2, 3), np.int32, 0, 5), np.array(5, np.int32), np.int32(7), np.int32(0)],
         attrs={"axis": 0}, const=(1, 2, 3)),
    Case("out-of-range", [np.array([[-1, 5], [4, 0]], np.int32), i64(5), ON, OFF], attrs={"axis": 1},
         const=(1, 2, 3)),
    Case("f16", [np.array([1, 0], np.int64), i64(2), np.float16(1), np.float16(0)], attrs={"axis": -1},
         const=(1, 2, 3)),
    Case("bool", [np.array([2, 0, 1], np.int64), i64(3), np.bool_(True), np.bool_(False)], attrs={"axis": -2},
         const=(1, 2, 3)),
    Case("depth-runtime", [np.array([[1, 3]], np.int32), i64(4), ON, OFF], attrs={"axis": 1}, const=(2, 3)),
    Case("on-off-runtime", [np.array([0, 1, 2], np.int64), i64(3), ON, OFF], attrs={"axis": 0}, const=(1,)),
    Case("depth-0", [np.array([1, 0], np.int64), i64(0), ON, OFF], attrs={"axis": -1}, const=(1, 2, 3),
         ov="OpenVINO CPU refuses a zero-size output"),
    Case("spec-example", [np.array([0, 3, 1, 2], np.int64), i64(3), np.int64(1), np.int64(0)], attrs={"axis": -1},
         const=(1, 2, 3),
         expect=[np.array([[1, 0, 0], [0, 0, 0], [0, 1, 0], [0, 0, 1]], np.int64)]),
], errors=[
    ErrorCase("axis", [np.array([0, 1], np.int64), i64(3), ON, OFF], attrs={"axis": 2}, const=(1, 2, 3),
              code="axis-out-of-range"),
    ErrorCase("depth-negative", [np.array([0, 1], np.int64), i64(-3), ON, OFF], attrs={"axis": 1}, const=(1, 2, 3),
              code="bad-value"),
    ErrorCase("on-off-types", [np.array([0, 1], np.int64), i64(3), ON, np.int32(0)], attrs={"axis": 1},
              const=(1, 2, 3), code="bad-input-type"),
    ErrorCase("depth-1d", [np.array([1, 0], np.int64), i64([2]), ON, OFF], attrs={"axis": -1}, const=(1, 2, 3),
              code="bad-input-rank"),
    ErrorCase("float-indices", [np.array([0, 1], np.float32), i64(3), ON, OFF], attrs={"axis": 1}, const=(1, 2, 3),
              code="bad-input-type"),
    ErrorCase("on-not-scalar", [np.array([0, 1], np.int64), i64(3), np.ones(2, np.float32), OFF], attrs={"axis": 1},
              const=(1, 2, 3), code="bad-input-rank"),
]))

test_conformance = conformance(TABLES)
