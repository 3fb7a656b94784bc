"""Conformance table of ConvertPromoteTypes-14.  Each case's outputs are worked
by hand: the common type read off OpenVINO's promotion rules, then NumPy's
conversion of values every type involved holds exactly."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, conformance, table_rng

rng = table_rng("ConvertPromoteTypes-14")  # the table's own generator


def vals(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """Small integers (0..7 for unsigned types, -8..7 for signed): exact in every type."""
    lo = 0 if np.dtype(dtype).kind in "ub" else -8
    return rng.integers(lo, 8, shape).astype(dtype)


def case(id: str, a: np.ndarray, b: np.ndarray, target: Any, **attrs: Any) -> Case:
    return Case(id, [a, b], attrs=attrs, expect=[a.astype(target), b.astype(target)])


BF16 = ml_dtypes.bfloat16
CPT = OpTable("ConvertPromoteTypes", "opset14", cases=[
    case("same", vals((2, 3), np.float32), vals((3,), np.float32), np.float32),
    case("boolean-yields", vals((2,), bool), vals((2, 2), np.int32), np.int32),
    case("int-to-wide-float", vals((2, 3), np.int16), vals((3,), np.float32), np.float32),
    case("int-to-float-unsafe", vals((4,), np.int32), vals((4,), np.float32), np.float32, promote_unsafe=True),
    case("i64-to-f16-unsafe", vals((4,), np.int64), vals((1,), np.float16), np.float16, promote_unsafe=True),
    case("wider-int", vals((3,), np.int32), vals((2, 3), np.int64), np.int64),
    case("wider-float", vals((3,), np.float16), vals((3,), np.float64), np.float64),
    case("u8-and-i16", vals((3,), np.uint8), vals((3,), np.int16), np.int16),
    case("u8-and-i8-unsafe", vals((3,), np.uint8), vals((3,), np.int8), np.int16, promote_unsafe=True),
    case("u16-and-i64", vals((3,), np.uint16), vals((3,), np.int64), np.int64),
    case("u32-and-i32-unsafe", vals((3,), np.uint32), vals((3,), np.int32), np.int64, promote_unsafe=True),
    case("u64-and-i8-unsafe", vals((3,), np.uint64), vals((3,), np.int8), np.float32, promote_unsafe=True),
    case("u64-target-i64", vals((3,), np.uint64), vals((3,), np.int32), np.int64, promote_unsafe=True,
         u64_integer_promotion_target="i64"),
    case("f16-and-bf16-unsafe", vals((3,), np.float16), vals((3,), BF16), np.float32, promote_unsafe=True),
    case("pytorch-scalar", vals((), np.int64), vals((2, 2), np.int32), np.int32, pytorch_scalar_promotion=True,
         promote_unsafe=True),
    case("pytorch-unsigned-scalar", vals((), np.uint8), vals((4,), np.int16), np.int16, pytorch_scalar_promotion=True),
    case("pytorch-float-scalar", vals((3,), np.float16), vals((), np.float64), np.float16, pytorch_scalar_promotion=True,
         promote_unsafe=True),
    case("pytorch-mixed-kinds", vals((), np.float32), vals((3,), np.int8), np.float32, pytorch_scalar_promotion=True),
    case("scalars", vals((), np.int8), vals((), np.int32), np.int32, pytorch_scalar_promotion=True),
], errors=[
    ErrorCase("int-to-narrow-float", [vals((2,), np.int32), vals((2,), np.float32)], code="bad-input-type"),
    ErrorCase("u8-and-i8", [vals((2,), np.uint8), vals((2,), np.int8)], code="bad-input-type"),
    ErrorCase("u32-and-i32", [vals((2,), np.uint32), vals((2,), np.int32)], code="bad-input-type"),
    ErrorCase("u64-and-i64", [vals((2,), np.uint64), vals((2,), np.int64)], code="bad-input-type"),
    ErrorCase("f16-and-bf16", [vals((2,), np.float16), vals((2,), BF16)], code="bad-input-type"),
    ErrorCase("pytorch-scalar-too-wide", [vals((), np.int64), vals((2,), np.int32)], attrs={"pytorch_scalar_promotion": True},
              code="bad-input-type"),
    ErrorCase("bad-target", [vals((2,), np.int8), vals((2,), np.int8)], attrs={"u64_integer_promotion_target": "f33"},
              code="bad-element-type"),
])

test_conformance = conformance([CPT])
