"""Conformance tables of TopK-1, TopK-3 and TopK-11."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, conformance, table_rng
from conformance.sorting.references import BF16, i64, ref_topk

TABLES: list[OpTable] = []


def rand(shape: tuple[int, ...], dtype: Any = np.float32, lo: int = -100, hi: int = 100) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return rng.integers(0 if dtype.kind == "u" else lo, hi, shape).astype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    return rng.standard_normal(shape).astype(dtype)


def topk_cases(v: int) -> list[Case]:
    ties = np.array([[3, 1, 3, 2, 1, 3], [0, 0, 0, 0, 0, 0]], np.float32)
    cases = [
        Case("max-value", [rand((3, 7)), i64(3)], attrs={"axis": 1, "mode": "max", "sort": "value"}, const=(1,)),
        Case("min-index-axis0", [rand((6, 4), np.int32), np.array(2, np.int32)],
             attrs={"axis": 0, "mode": "min", "sort": "index"}, const=(1,)),
        Case("ties", [ties, i64(4)], attrs={"axis": -1, "mode": "max", "sort": "value"}, const=(1,)),
        Case("ties-min", [ties, i64(3)], attrs={"axis": -1, "mode": "min", "sort": "value"}, const=(1,)),
        Case("i64-indices", [rand((2, 3, 5)), i64(5)],
             attrs={"axis": -1, "mode": "min", "sort": "value", "index_element_type": "i64"}, const=(1,)),
        Case("f16", [rand((4, 5), np.float16), i64(2)], attrs={"axis": 1, "mode": "max", "sort": "index"}, const=(1,)),
        Case("u8", [rand((5, 3), np.uint8), i64(1)], attrs={"axis": 0, "mode": "max", "sort": "value"}, const=(1,)),
        Case("k-runtime", [rand((3, 8)), i64(5)], attrs={"axis": 1, "mode": "max", "sort": "value"}),
        Case("sort-none", [rand((3, 6)), i64(6)], attrs={"axis": 1, "mode": "max", "sort": "none"}, const=(1,)),
        Case("i64-data", [rand((3, 4), np.int64), i64(2)], attrs={"axis": 1, "mode": "min", "sort": "value"},
             const=(1,)),
        Case("bf16", [rand((2, 6), BF16), i64(3)], attrs={"axis": 1, "mode": "max", "sort": "value"}, const=(1,)),
    ]
    cases += [
        Case("many-ties-small-k", [rand((5, 40), np.int32, -3, 3), i64(4)],
             attrs={"axis": 1, "mode": "max" if v != 3 else "min", "sort": "value"}, const=(1,)),
        Case("small-k-axis0", [rand((50, 3)), i64(5)], attrs={"axis": 0, "mode": "min", "sort": "index"}, const=(1,)),
        Case("nan", [np.array([[1, np.nan, 3, np.nan, 2]], np.float32), i64(3)],
             attrs={"axis": 1, "mode": "max" if v != 3 else "min", "sort": "value"}, const=(1,),
             ov="OpenVINO CPU orders NaN arbitrarily; irexec counts it larger than every number"),
        Case("i64-wide", [np.array([[2**40, 5, -2**40, 2**33 + 1]], np.int64), i64(2)],
             attrs={"axis": 1, "mode": "max", "sort": "value"}, const=(1,), ov="OpenVINO CPU narrows i64 to i32"),
    ]
    if v == 11:
        cases.append(Case("stable", [ties, i64(5)], attrs={"axis": 1, "mode": "min", "sort": "value", "stable": True},
                          const=(1,)))
    return cases


def topk_errors() -> list[ErrorCase]:
    return [
        ErrorCase("axis", [rand((2, 3)), i64(1)], attrs={"axis": 2, "mode": "max", "sort": "value"}, const=(1,),
                  code="axis-out-of-range"),
        ErrorCase("k-negative", [rand((2, 3)), i64(-1)], attrs={"axis": 1, "mode": "max", "sort": "value"}, const=(1,),
                  code="bad-value"),
        ErrorCase("k-too-big", [rand((2, 3)), i64(4)], attrs={"axis": 1, "mode": "max", "sort": "value"}, const=(1,),
                  code="bad-value",
              ov="OpenVINO's shape inference passes k through; its CPU plugin refuses k past the dim"),
        ErrorCase("k-1d", [rand((2, 3)), i64([1])], attrs={"axis": 1, "mode": "max", "sort": "value"}, const=(1,),
                  code="bad-input-rank"),
        ErrorCase("scalar-data", [np.float32(1), i64(1)], attrs={"axis": 0, "mode": "max", "sort": "value"}, const=(1,),
                  code="bad-input-rank"),
    ]


for _v in (1, 3, 11):
    rng = table_rng(f"TopK-{_v}")  # each table its own generator
    TABLES.append(OpTable("TopK", f"opset{_v}", cases=topk_cases(_v), reference=ref_topk, errors=topk_errors()))

test_conformance = conformance(TABLES)
