"""Conformance table of MatMul-1."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.harness import OV_READS_DEFAULT, Case, ErrorCase, OpTable, conformance, table_rng
from conformance.matmul.references import F32_ACC, ref_matmul


def rand(shape: tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        return rng.integers(0 if dtype.kind == "u" else -9, 9, shape, endpoint=True).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


rng = table_rng("MatMul-1")  # each table its own generator
MATMUL = OpTable("MatMul", "opset1", reference=ref_matmul, tol=F32_ACC, cases=[
    Case("2d", [rand((3, 4)), rand((4, 5))]),
    Case("transpose-a", [rand((4, 3)), rand((4, 5))], attrs={"transpose_a": True}),
    Case("transpose-b-const", [rand((2, 3, 4)), rand((5, 4))], attrs={"transpose_b": True}, const=(1,)),
    Case("batch-broadcast", [rand((2, 1, 3, 4)), rand((3, 4, 2))]),
    Case("1d-a", [rand((4,)), rand((2, 4, 3))], attrs={"transpose_a": True}),
    Case("1d-b", [rand((2, 3, 4)), rand((4,))]),
    Case("1d-both", [rand((4,)), rand((4,))]),
    Case("i32", [rand((3, 4), np.int32), rand((4, 2), np.int32)], ov="OpenVINO CPU multiplies integers through f32"),
    Case("f16", [rand((3, 8), np.float16), rand((8, 2), np.float16)]),
    Case("zero-k", [rand((3, 0)), rand((0, 2))], ov="OpenVINO CPU leaves the output of an empty product unwritten"),
    Case("zero-batch", [rand((0, 3, 4)), rand((4, 2))]),
], errors=[
    ErrorCase("k-differs", [rand((3, 4)), rand((5, 2))], code="incompatible-inputs"),
    ErrorCase("batch-differs", [rand((2, 3, 4)), rand((3, 4, 2))], code="incompatible-inputs"),
    ErrorCase("scalar", [np.array(1.0, np.float32), rand((2,))], code="bad-input-rank"),
    ErrorCase("types-differ", [rand((2, 2)), rand((2, 2), np.float16)], code="bad-input-type"),
    ErrorCase("bad-transpose", [rand((2, 2)), rand((2, 2))], attrs={"transpose_a": "yes"}, code="bad-attribute",
              ov=OV_READS_DEFAULT),
])

TABLES = [MATMUL]
test_conformance = conformance(TABLES)
