"""Conformance table of ConvertLike-1."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from conformance.convert.references import ref_convert_like
from conformance.harness import Case, OpTable, conformance, table_rng

TABLES: list[OpTable] = []

BF16 = ml_dtypes.bfloat16


def rand(shape: tuple[int, ...], dtype: Any = np.float32, lo: int = -100, hi: int = 100) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return rng.integers(0 if dtype.kind == "u" else lo, hi, shape).astype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    return rng.standard_normal(shape).astype(dtype)


rng = table_rng("ConvertLike-1")  # each table its own generator
TABLES.append(OpTable("ConvertLike", "opset1", reference=ref_convert_like, cases=[
    Case("f32-to-f16", [rand((3, 4)), np.zeros((1,), np.float16)]),
    Case("f32-to-i32", [rand((5,)) * 100, np.zeros((2, 2), np.int32)], const=(1,)),
    Case("i32-to-f32", [rand((2, 3), np.int32), np.zeros((), np.float32)]),
    Case("f32-to-bf16", [rand((4,)), np.zeros((1,), BF16)], ov="OpenVINO CPU truncates f32 to bf16; irexec rounds to nearest even"),
    Case("u8-to-i8", [np.arange(250, 256, dtype=np.uint8), np.zeros((1,), np.int8)]),
    Case("to-bool", [np.array([0.0, -0.0, 2.0, 0.5], np.float32), np.zeros((1,), bool)]),
    Case("nan-to-bool", [np.array([np.nan, 1.0], np.float32), np.zeros((1,), bool)],
         ov="OpenVINO CPU converts NaN to false; irexec to true (NaN != 0), as Convert does"),
    Case("zero-size", [np.zeros((0, 2), np.float32), np.zeros((1,), np.int64)],
         ov="OpenVINO CPU refuses a zero-size input"),
]))

test_conformance = conformance(TABLES)
