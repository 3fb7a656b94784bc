"""Conformance table of CumSum-3: integers exact, floats against a float64
evaluation (the kernel adds in sequence in f32/f64; f16/bf16 accumulate in
f32 and round once per element)."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from conformance.harness import OV_VALUE_UNCHECKED, Case, ErrorCase, OpTable, Tol, conformance, table_rng

BF16 = ml_dtypes.bfloat16


def rand(shape: tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return rng.integers(0 if dtype.kind == "u" else -100, 100, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def ref_cumsum(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data = x[0]
    a = int(np.asarray(x[1]).reshape(-1)[0]) if len(x) > 1 else 0
    a %= max(data.ndim, 1)
    exact = data.dtype.kind in "iu"
    n = data.shape[a]
    out = np.zeros(data.shape, object if exact else np.float64)
    for j in range(n):
        take = range(j + 1, n) if attrs.get("reverse") else range(j)
        if not attrs.get("exclusive"):
            take = [*take, j]
        total = sum((np.take(data, k, axis=a).astype(object if exact else np.float64) for k in take),
                    np.zeros(np.take(data, 0, axis=a).shape, object if exact else np.float64))
        idx = [slice(None)] * data.ndim
        idx[a] = j
        out[tuple(idx)] = total
    if exact:
        bits = data.dtype.itemsize * 8
        wrapped = [(int(v) + (1 << (bits - 1))) % (1 << bits) - (1 << (bits - 1)) if data.dtype.kind == "i"
                   else int(v) % (1 << bits) for v in out.reshape(-1)]
        return [np.array(wrapped, np.int64).astype(data.dtype).reshape(data.shape)]
    return [out.astype(data.dtype)]


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
