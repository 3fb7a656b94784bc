"""Conformance tables of Subtract-1, Multiply-1, Divide-1, Power-1, Maximum-1,
Minimum-1, Mod-1, FloorMod-1, SquaredDifference-1 and Add-1."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from conformance.elementwise.references import BF16, EDGE, EDGE_B, f64_ref, ref_add, ref_divide, ref_fmod, ref_max, ref_min, ref_power
from conformance.harness import (
    MINMAX_NAN,
    OV_READS_DEFAULT,
    Case,
    ErrorCase,
    OpTable,
    Tol,
    conformance,
    random_arrays,
    table_rng,
)

TABLES: list[OpTable] = []


def rand(shape: tuple[int, ...], dtype: Any = np.float32, lo: int = -100, hi: int = 100) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, lo), min(info.max, hi), shape, endpoint=True).astype(dtype)
    return (rng.standard_normal(shape) * 10).astype(dtype)


def nonzero(shape: tuple[int, ...], dtype: Any, lo: int = -100, hi: int = 100) -> np.ndarray:
    x = rand(shape, dtype, lo, hi)
    return np.where(x == 0, np.ones((), x.dtype), x)


def table(op: str, fn: Any, types: tuple[Any, ...], *, opset: str = "opset1", tol: Tol = Tol.EXACT,
          ov_tol: Tol | None = None, edges: bool = True, extra: list[Case] | None = None,
          errors: list[ErrorCase] | None = None, make_b: Any = rand, ov_skip: dict[str, str] | None = None,
          reference: Any = None, ov_elements: list[Any] | None = None) -> OpTable:
    """A table of the usual cases: each type broadcast, a scalar Const, a zero-size dim, float edge values."""
    skip = ov_skip or {}
    cases = []
    for t in types:
        name = np.dtype(t).name
        cases.append(Case(f"{name}-broadcast", [rand((2, 3, 4), t), make_b((3, 1), t)], ov=skip.get(name, True)))
    t0 = types[0]
    cases.append(Case("scalar-const", [rand((3, 4), t0), make_b((), t0)], const=(1,), ov=skip.get(np.dtype(t0).name, True)))
    cases.append(Case("zero-size", [rand((0, 3), t0), make_b((1, 3), t0)]))
    if edges and any(np.dtype(t).kind == "f" for t in types):
        cases.append(Case("f32-edges", [EDGE, EDGE_B], ov=skip.get("edges", True)))
    cases += extra or []
    return OpTable(op, opset, cases=cases, reference=reference or f64_ref(fn), tol=tol, ov_tol=ov_tol, errors=errors or [],
                   ov_elements=ov_elements or [])


F = (np.float32, np.float16, BF16)


INT = (np.int32, np.int64, np.uint8, np.int8)


small_exp = lambda shape, t: rand(shape, t, lo=-3, hi=5)  # noqa: E731


INT_DIV_EDGE = [np.array([-7, 7, -7, 7, -2**31, 0], np.int32), np.array([2, -2, -2, 2, -1, 5], np.int32)]


rng = table_rng("Subtract-1")  # each table its own generator
TABLES.append(table("Subtract", np.subtract, F + INT, ov_skip={"uint8": "OpenVINO CPU computes u8 in f32 and saturates",
                                                    "int8": "OpenVINO CPU saturates i8 overflow",
                                                    "bfloat16": "OpenVINO CPU rounds bf16 results differently in a few cases"}))


rng = table_rng("Multiply-1")  # each table its own generator
TABLES.append(table("Multiply", np.multiply, F + INT, ov_skip={"uint8": "OpenVINO CPU computes u8 in f32 and saturates",
                                                    "int8": "OpenVINO CPU saturates i8 overflow",
                                                    "int32": "OpenVINO CPU saturates i32 overflow",
                                                    "bfloat16": "OpenVINO CPU rounds bf16 results differently in a few cases"}))


rng = table_rng("Divide-1")  # each table its own generator
TABLES.append(OpTable("Divide", "opset1", reference=ref_divide, ov_tol=Tol(ulps=1), cases=[
    Case("f32-broadcast", [rand((2, 3, 4)), nonzero((3, 1), np.float32)]),
    Case("f16", [rand((2, 3), np.float16), nonzero((3,), np.float16)]),
    Case("bf16", [rand((2, 3), BF16), nonzero((3,), BF16)], ov="OpenVINO CPU divides bf16 in f32 with its own rounding"),
    Case("f32-edges", [EDGE, EDGE_B], ov="OpenVINO CPU flushes denormals to zero"),
    Case("i32-floor", INT_DIV_EDGE, ov="OpenVINO CPU divides integers through f32"),
    Case("i32-trunc", INT_DIV_EDGE, attrs={"m_pythondiv": False}, ov="OpenVINO CPU divides integers through f32"),
    # ONNX's test_div_int32_trunc as OpenVINO converts it: its IR says m_pythondiv="true", which OpenVINO's
    # reference (constant folding) and irexec floor, while its CPU plugin ignores the attribute and truncates
    Case("i32-onnx-trunc-as-written", [np.array([7, -7, 7, -7, 8, -8, 0, 5], np.int32),
                                       np.array([2, 2, -2, -2, 3, 3, 3, -3], np.int32)],
         ov="OpenVINO CPU ignores m_pythondiv and truncates; its reference floors"),
    Case("i32-trunc-small", [np.array([7, -7, 7, -7, 8, -8, 0, 5], np.int32),
                             np.array([2, 2, -2, -2, 3, 3, 3, -3], np.int32)], attrs={"m_pythondiv": False}),
    Case("i64-const", [rand((3, 4), np.int64), np.array(3, np.int64)], const=(1,),
         ov="OpenVINO CPU narrows i64 to i32 and truncates the quotient"),
    Case("u8", [rand((4,), np.uint8, 0, 255), nonzero((4,), np.uint8)]),
    Case("zero-size", [rand((0, 2)), nonzero((2,), np.float32)]),
], errors=[
    ErrorCase("bad-pythondiv", [rand((2,)), rand((2,))], attrs={"m_pythondiv": "maybe"}, code="bad-attribute",
              ov=OV_READS_DEFAULT),
    ErrorCase("incompatible", [rand((2, 3)), rand((4,))], code="incompatible-inputs"),
]))


rng = table_rng("Power-1")  # each table its own generator
TABLES.append(OpTable("Power", "opset1", reference=ref_power, tol=Tol(ulps=1), ov_tol=Tol(rtol=2e-6, atol=1e-30), cases=[
    Case("f32", [np.abs(rand((2, 3, 4))), rand((3, 1)) / 4]),
    Case("f16", [np.abs(rand((2, 3), np.float16)) / 4, small_exp((3,), np.float16)]),
    Case("i32", [nonzero((3, 4), np.int32, -5, 5), small_exp((4,), np.int32)], ov="OpenVINO CPU raises integers through f32"),
    Case("i64-negative-exponent", [np.array([1, -1, -1, 2, 5], np.int64), np.array([-3, -3, -2, -1, 3], np.int64)],
         ov="OpenVINO CPU raises integers through f32"),
    Case("f32-edges", [EDGE, EDGE_B], ov="OpenVINO CPU's pow differs on denormals and infinities"),
    Case("zero-size", [rand((0, 3)), rand((3,))]),
]))


rng = table_rng("Maximum-1")  # each table its own generator
TABLES.append(table("Maximum", None, F + INT, reference=ref_max, ov_elements=[MINMAX_NAN]))


rng = table_rng("Minimum-1")  # each table its own generator
TABLES.append(table("Minimum", None, F + INT, reference=ref_min, ov_elements=[MINMAX_NAN]))


rng = table_rng("Mod-1")  # each table its own generator
TABLES.append(table("Mod", ref_fmod, (np.float32, np.int32, np.int64, np.float16), make_b=nonzero,
      ov_tol=Tol(rtol=1e-5, atol=1e-5), ov_skip={"edges": "OpenVINO CPU computes x - trunc(x / y) * y, not an exact fmod",
                                                 "float16": "OpenVINO CPU computes x - trunc(x / y) * y in f16"},
      extra=[Case("i32-signs", [np.array([-7, 7, -7, 7], np.int32), np.array([3, 3, -3, -3], np.int32)])],
      errors=[ErrorCase("types-differ", [rand((2,)), rand((2,), np.int32)], code="bad-input-type")]))


rng = table_rng("FloorMod-1")  # each table its own generator
TABLES.append(table("FloorMod", np.remainder, (np.float32, np.int32, np.int64, np.float16), make_b=nonzero,
      ov_tol=Tol(rtol=1e-5, atol=1e-5), ov_skip={"edges": "OpenVINO CPU computes x - floor(x / y) * y, not an exact remainder",
                                                 "float16": "OpenVINO CPU computes x - floor(x / y) * y in f16"},
      extra=[Case("i32-signs", [np.array([-7, 7, -7, 7], np.int32), np.array([3, 3, -3, -3], np.int32)])]))


rng = table_rng("SquaredDifference-1")  # each table its own generator
TABLES.append(table("SquaredDifference", lambda a, b: (a - b) * (a - b), F + (np.int32,), tol=Tol(ulps=1),
      ov_tol=Tol(rtol=2e-7, atol=0), ov_skip={"bfloat16": "OpenVINO CPU rounds bf16 twice",
                                              "float16": "OpenVINO CPU rounds f16 twice"}))


edge = np.array([0.0, -0.0, 1e-45, -1e-45, np.inf, -np.inf, np.nan, 3.4e38, -3.4e38, 1.0], np.float32)


rand = random_arrays(table_rng("Add-1"))
ADD = OpTable("Add", "opset1", reference=ref_add, cases=[
    Case("f32-same-shape", [rand((2, 3, 4)), rand((2, 3, 4))]),
    Case("f32-broadcast", [rand((2, 1, 4)), rand((3, 1))]),
    Case("f32-scalar", [rand((3, 4)), np.array(2.5, np.float32)], const=(1,)),
    Case("f32-edges", [edge, edge[::-1].copy()]),
    Case("f16", [rand((5, 4), np.float16), rand((4,), np.float16)]),
    Case("bf16", [rand((5, 4), ml_dtypes.bfloat16), rand((4,), ml_dtypes.bfloat16)], ov="OpenVINO CPU adds bf16 in f32 "
         "and rounds differently from one rounding of the exact sum in a few cases"),
    Case("i32-wraps", [np.array([2**31 - 1, -2**31, 5], np.int32), np.array([1, -1, 7], np.int32)],
         ov="OpenVINO CPU saturates i32 overflow"),
    Case("i64", [rand((3, 2), np.int64), rand((2,), np.int64)]),
    Case("u8-wraps", [np.array([250, 3], np.uint8), np.array([10, 4], np.uint8)], ov="OpenVINO CPU computes u8 in f32 and saturates"),
    Case("zero-size", [rand((0, 3)), rand((1, 3))]),
    Case("pdpd", [rand((2, 3, 4)), rand((2, 1))], attrs={"auto_broadcast": "pdpd"}),
    Case("none", [rand((2, 3)), rand((2, 3))], attrs={"auto_broadcast": "none"}),
], errors=[
    ErrorCase("incompatible", [rand((2, 3)), rand((4,))], code="incompatible-inputs"),
    ErrorCase("types-differ", [rand((2, 3)), rand((3,), np.float16)], code="bad-input-type"),
    ErrorCase("boolean", [rand((2,), bool), rand((2,), bool)], code="bad-input-type"),
    ErrorCase("bad-broadcast", [rand((2, 3)), rand((2, 3))], attrs={"auto_broadcast": "sideways"}, code="bad-attribute"),
    ErrorCase("none-needs-equal", [rand((2, 3)), rand((1, 3))], attrs={"auto_broadcast": "none"}, code="incompatible-inputs"),
])

# The factories share one shape inference: OpenVINO's is compared on the first
# two cases of each table, which keeps the whole file fast.
for _t in TABLES:
    for _c in _t.cases[2:]:
        if _c.ov_shapes is True:
            _c.ov_shapes = "same broadcasting inference as the first cases"
TABLES.append(ADD)  # after the factories' tables: every case of Add checks OpenVINO's shape inference

test_conformance = conformance(TABLES)
