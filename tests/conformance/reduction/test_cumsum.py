"""Conformance table of CumSum-3: integers exact, floats against a float64
evaluation (the kernel adds in sequence in f32/f64; f16/bf16 accumulate in
f32 and round once per element)."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.harness import OV_VALUE_UNCHECKED, Case, ErrorCase, OpTable, Tol, conformance, table_rng
from conformance.reduction.references import ref_cumsum


def rand(shape: tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return rng.integers(0 if dtype.kind == "u" else -100, 100, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


CUMSUM_AXIS = "OpenVINO's shape inference takes a one-element axis of any rank; its CPU plugin refuses a non-scalar one"
rng = table_rng("CumSum-3")  # each table its own generator
CUMSUM = OpTable("CumSum", "opset3", reference=ref_cumsum, tol=Tol(rtol=1e-5, atol=1e-5),
                 ov_tol=Tol(rtol=1e-5, atol=1e-5), cases=[
    Case("default-axis", [rand((5, 3))], ov="OpenVINO's IR reader refuses CumSum without its optional axis input",
         ov_shapes="OpenVINO's IR reader refuses CumSum without its optional axis input"),
    Case("axis1", [rand((2, 6)), np.array(1, np.int64)], const=(1,)),
    Case("exclusive", [rand((4, 3), np.int32), np.array(0, np.int32)], attrs={"exclusive": True}, const=(1,)),
    Case("reverse", [rand((3, 4), np.int64), np.array(-1, np.int64)], attrs={"reverse": True}, const=(1,),
         ov="OpenVINO CPU narrows i64 to i32"),
    Case("exclusive-reverse", [rand((2, 5)), np.array(1, np.int64)], attrs={"exclusive": True, "reverse": True}, const=(1,)),
    Case("i8-wraps", [np.full((6,), 100, np.int8), np.array(0, np.int64)], const=(1,), ov="OpenVINO CPU saturates or widens i8"),
    Case("f16", [rand((8,), np.float16), np.array(0, np.int64)], const=(1,)),
    Case("zero-size", [rand((0, 3)), np.array(1, np.int64)], const=(1,), ov="OpenVINO CPU refuses a zero-size input"),
    Case("axis-1d", [rand((2, 6)), np.array([1], np.int64)], const=(1,), ov=CUMSUM_AXIS),
    Case("axis-2d", [rand((3, 2)), np.array([[0]], np.int32)], const=(1,), ov=CUMSUM_AXIS),
], errors=[ErrorCase("axis", [rand((2, 3)), np.array(2, np.int64)], const=(1,), code="axis-out-of-range",
              ov=OV_VALUE_UNCHECKED),
           ErrorCase("bool", [np.ones((2,), bool)], code="bad-input-type")])

TABLES = [CUMSUM]
test_conformance = conformance(TABLES)
