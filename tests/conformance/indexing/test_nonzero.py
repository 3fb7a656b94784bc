"""Conformance table of NonZero-3."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, conformance, table_rng
from conformance.indexing.references import ref_nonzero

TABLES: list[OpTable] = []

BF16 = ml_dtypes.bfloat16


def rand(shape: tuple[int, ...], dtype: Any = np.float32, lo: int = -100, hi: int = 100) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return rng.integers(0 if dtype.kind == "u" else lo, hi, shape).astype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    return rng.standard_normal(shape).astype(dtype)


def sparse(shape: tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    return (rand(shape, np.float32) * (rng.random(shape) < 0.4)).astype(dtype)


rng = table_rng("NonZero-3")  # each table its own generator
TABLES.append(OpTable("NonZero", "opset3", reference=ref_nonzero, cases=[
    Case("f32", [sparse((3, 4))]),
    Case("i32-out", [sparse((2, 3, 4), np.int32)], attrs={"output_type": "i32"}),
    Case("bool", [rand((5,), bool)]),
    Case("f16-signed-zero-nan", [np.array([0.0, -0.0, np.nan, 1.0, 0.0], np.float16)]),
    Case("bf16", [sparse((4, 2), BF16)]),
    Case("u8-all-zero", [np.zeros((2, 3), np.uint8)]),
    Case("i64", [sparse((6,), np.int64)]),
    Case("zero-size", [np.zeros((0, 3), np.float32)], ov="OpenVINO CPU refuses a zero-size input"),
    Case("scalar", [np.float32(2.5)], ov_shapes="OpenVINO infers [?,?] for a scalar, irexec [1,..1]"),
    Case("spec-example", [np.array([[1, 0], [0, 1]], np.int32)],
         expect=[np.array([[0, 1], [0, 1]], np.int64)]),
], errors=[ErrorCase("output-type", [rand((3,))], attrs={"output_type": "f32"}, code="bad-attribute")]))

test_conformance = conformance(TABLES)
