"""Conformance table of StridedSlice-1: exact, every element type.  The
reference builds a NumPy index entry by entry from the spec's mask rules."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from conformance.harness import OV_VALUE_UNCHECKED, Case, ErrorCase, OpTable, conformance, table_rng
from conformance.movement.references import ref_strided_slice

BF16 = ml_dtypes.bfloat16


def rand(shape: tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        return rng.integers(-100, 100, shape).astype(dtype) if dtype.kind == "i" else rng.integers(0, 200, shape).astype(dtype)
    return (rng.standard_normal(shape) * 10).astype(dtype)


def i64(*v: int) -> np.ndarray:
    return np.array(v, np.int64)


def masks(**kw: tuple[int, ...]) -> dict[str, Any]:
    n = max((len(v) for v in kw.values()), default=1)
    out: dict[str, Any] = {m: (0,) * n for m in ("begin_mask", "end_mask")}
    out.update(kw)
    return out


rng = table_rng("StridedSlice-1")  # each table its own generator
STRIDED_SLICE = OpTable("StridedSlice", "opset1", reference=ref_strided_slice, cases=[
    Case("plain", [rand((4, 6)), i64(1, 0), i64(3, 5), i64(1, 2)], attrs=masks(), const=(1, 2, 3)),
    Case("negative-stride", [rand((5, 4), np.int32), i64(-1, 3), i64(0, 0), i64(-2, -1)], attrs=masks(), const=(1, 2, 3)),
    Case("begin-end-mask", [rand((3, 5), np.float16), i64(2, 1), i64(0, 4), i64(1, 1)],
         attrs=masks(begin_mask=(1, 0), end_mask=(0, 1)), const=(1, 2, 3)),
    Case("mask-negative-stride", [rand((6,), np.int8), i64(4), i64(1), i64(-2)],
         attrs=masks(begin_mask=(1,), end_mask=(1,)), const=(1, 2, 3)),
    Case("new-axis", [rand((2, 3), BF16), i64(0, 0, 1), i64(0, 2, 3), i64(1, 1, 1)],
         attrs=masks(new_axis_mask=(1, 0, 0)), const=(1, 2, 3)),
    Case("shrink", [rand((3, 4, 2)), i64(1, -1), i64(2, 0), i64(1, 1)],
         attrs=masks(shrink_axis_mask=(1, 1)), const=(1, 2, 3)),
    Case("ellipsis", [rand((2, 3, 4, 5), np.uint8), i64(0, 1), i64(0, 4), i64(1, 2)],
         attrs=masks(ellipsis_mask=(1, 0)), const=(1, 2, 3)),
    Case("ellipsis-new-shrink", [rand((2, 3, 4), bool), i64(1, 0, 0, 2), i64(2, 0, 0, 3), i64(1, 1, 1, 1)],
         attrs=masks(shrink_axis_mask=(1, 0, 0, 0), ellipsis_mask=(0, 1, 0, 0), new_axis_mask=(0, 0, 1, 0)),
         const=(1, 2, 3)),
    Case("clamped", [rand((4,), np.int64), i64(-100), i64(100), i64(1)], attrs=masks(), const=(1, 2, 3),
         ov="OpenVINO CPU narrows i64 to i32"),
    Case("no-stride", [rand((4, 3)), i64(1), i64(3)], attrs=masks(), const=(1, 2)),
    Case("empty", [rand((4, 3)), i64(3), i64(1)], attrs=masks(), const=(1, 2), ov="OpenVINO CPU refuses an empty output"),
], errors=[
    ErrorCase("zero-stride", [rand((4,)), i64(0), i64(2), i64(0)], attrs=masks(), const=(1, 2, 3), code="bad-value"),
    ErrorCase("lengths", [rand((4, 2)), i64(0, 0), i64(2), i64(1)], attrs=masks(), const=(1, 2, 3),
              code="incompatible-inputs"),
    ErrorCase("two-ellipses", [rand((4, 2)), i64(0, 0), i64(2, 2), i64(1, 1)], attrs=masks(ellipsis_mask=(1, 1)),
              const=(1, 2, 3), code="bad-attribute"),
    ErrorCase("mask-lengths", [rand((4, 2)), i64(0, 0), i64(2, 2), i64(1, 1)], attrs=masks(begin_mask=(1, 1), end_mask=(0,)),
              const=(1, 2, 3), code="bad-attribute"),
    ErrorCase("shrink-range", [rand((4,)), i64(4), i64(5), i64(1)], attrs=masks(shrink_axis_mask=(1,)), const=(1, 2, 3),
              code="bad-value",
              ov=OV_VALUE_UNCHECKED),
])

TABLES = [STRIDED_SLICE]
test_conformance = conformance(TABLES)
