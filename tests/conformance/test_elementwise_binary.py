"""Conformance tables of binary arithmetic, comparison, logical and bitwise
ops and the float classifiers."""

from __future__ import annotations

import operator
from typing import Any

import ml_dtypes
import numpy as np

from conformance.harness import (
    COMPARE_NAN,
    ISFINITE_DENORMAL,
    MINMAX_NAN,
    OV_READS_DEFAULT,
    OV_TYPE_UNCHECKED,
    Case,
    ErrorCase,
    OpTable,
    Tol,
    conformance,
    table_rng,
)

BF16 = np.dtype(ml_dtypes.bfloat16)


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


def is_float(a: np.ndarray) -> bool:
    return a.dtype.kind == "f" or a.dtype == BF16


EDGE = np.array([0.0, -0.0, 1e-45, -1e-45, 1e-40, np.inf, -np.inf, np.nan, 3.4e38, -3.4e38, 1.0, -2.5], np.float32)
EDGE_B = np.array([-0.0, 0.0, 1e-45, 2.0, -1e-40, np.inf, 1.0, 1.0, 3.4e38, 2.0, np.nan, -np.inf], np.float32)


def f64_ref(fn: Any) -> Any:
    """Reference computed in f64 (exact or nearly) and rounded once to the type;
    integers wrap as in C."""
    def ref(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
        a, b = x
        with np.errstate(all="ignore"):
            if is_float(a):
                return [np.asarray(fn(a.astype(np.float64), b.astype(np.float64))).astype(a.dtype)]
            return [np.asarray(fn(a, b)).astype(a.dtype)]
    return ref


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


I64_CPU = "OpenVINO CPU narrows i64 to i32"
F = (np.float32, np.float16, BF16)
INT = (np.int32, np.int64, np.uint8, np.int8)
NUM = (np.float32, np.int32, np.float16, np.int64)


def c_trunc_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    q = np.floor_divide(a, b)
    return q + ((q * b != a) & ((a < 0) != (b < 0))).astype(q.dtype)


def ref_divide(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    a, b = x
    if is_float(a):
        with np.errstate(all="ignore"):
            return [(a.astype(np.float64) / b.astype(np.float64)).astype(a.dtype)]
    with np.errstate(over="ignore"):  # INT_MIN / -1 wraps, as C does
        if attrs.get("m_pythondiv", True) or a.dtype.kind == "u":
            return [np.floor_divide(a, b)]
        return [c_trunc_div(a, b)]


def ref_max(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    a, b = np.broadcast_arrays(*x)
    return [np.array([ai if ai > bi else bi for ai, bi in zip(a.reshape(-1), b.reshape(-1))], a.dtype).reshape(a.shape)]


def ref_min(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    a, b = np.broadcast_arrays(*x)
    return [np.array([ai if ai < bi else bi for ai, bi in zip(a.reshape(-1), b.reshape(-1))], a.dtype).reshape(a.shape)]


def ref_power(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    a, b = x
    if is_float(a):
        with np.errstate(all="ignore"):
            return [np.power(a.astype(np.float64), b.astype(np.float64)).astype(a.dtype)]
    a, b = np.broadcast_arrays(a, b)
    bits = a.dtype.itemsize * 8
    out = []
    for ai, bi in zip(a.reshape(-1).tolist(), b.reshape(-1).tolist()):
        if bi >= 0:
            v = pow(ai, bi, 1 << bits)  # exact power, wrapped
        else:
            v = 1 if ai == 1 else ((-1) ** (-bi) if ai == -1 else 0)
        out.append(v)
    info = np.iinfo(a.dtype)
    wrapped = [v - (1 << bits) if v > info.max else v for v in out]
    return [np.array(wrapped, a.dtype).reshape(a.shape)]


def ref_fmod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.fmod(a, b)


small_exp = lambda shape, t: rand(shape, t, lo=-3, hi=5)  # noqa: E731

INT_DIV_EDGE = [np.array([-7, 7, -7, 7, -2**31, 0], np.int32), np.array([2, -2, -2, 2, -1, 5], np.int32)]

TABLES: list[OpTable] = []
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

# comparisons: boolean out, every type in
for _op, _fn in [("Equal", operator.eq), ("NotEqual", operator.ne), ("Less", operator.lt),
                 ("LessEqual", operator.le), ("Greater", operator.gt), ("GreaterEqual", operator.ge)]:
    rng = table_rng(f"{_op}-1")  # each table its own generator
    TABLES.append(OpTable(_op, "opset1", reference=(lambda fn: lambda x, a: [np.asarray(fn(x[0], x[1]))])(_fn), cases=[
        Case("f32", [rand((2, 3, 4)), rand((3, 1))]),
        Case("i32-scalar", [rand((3, 4), np.int32, -2, 2), np.array(0, np.int32)], const=(1,)),
        Case("i64", [rand((5,), np.int64, -2, 2), rand((5,), np.int64, -2, 2)]),
        Case("f16", [rand((4,), np.float16), rand((1,), np.float16)]),
        Case("boolean", [rand((2, 2), bool), rand((2,), bool)]),
        Case("f32-edges", [EDGE, EDGE_B]),
        Case("zero-size", [rand((0, 3), np.uint8), rand((3,), np.uint8)]),
    ], errors=[ErrorCase("types-differ", [rand((2,)), rand((2,), np.int32)], code="bad-input-type")],
        ov_elements=[COMPARE_NAN] if _op in ("Greater", "GreaterEqual") else []))

for _op, _fn in [("LogicalAnd", np.logical_and), ("LogicalOr", np.logical_or), ("LogicalXor", np.logical_xor)]:
    rng = table_rng(f"{_op}-1")  # each table its own generator
    TABLES.append(OpTable(_op, "opset1", reference=(lambda fn: lambda x, a: [fn(x[0], x[1])])(_fn), cases=[
        Case("broadcast", [rand((2, 3, 4), bool), rand((3, 1), bool)]),
        Case("all-pairs", [np.array([True, True, False, False]), np.array([True, False, True, False])]),
        Case("zero-size", [rand((0, 2), bool), rand((2,), bool)]),
    ], errors=[ErrorCase("not-boolean", [rand((2,)), rand((2,))], code="bad-input-type")]))

rng = table_rng("LogicalNot-1")  # each table its own generator
TABLES.append(OpTable("LogicalNot", "opset1", reference=lambda x, a: [np.logical_not(x[0])], cases=[
    Case("values", [np.array([[True, False], [False, False]])]),
    Case("zero-size", [rand((3, 0), bool)]),
], errors=[ErrorCase("not-boolean", [rand((2,), np.int32)], code="bad-input-type",
              ov=OV_TYPE_UNCHECKED)]))

for _op, _fn in [("BitwiseAnd", np.bitwise_and), ("BitwiseOr", np.bitwise_or), ("BitwiseXor", np.bitwise_xor)]:
    rng = table_rng(f"{_op}-13")  # each table its own generator
    TABLES.append(OpTable(_op, "opset13", reference=(lambda fn: lambda x, a: [fn(x[0], x[1])])(_fn), cases=[
        Case("boolean", [rand((2, 3, 4), bool), rand((3, 1), bool)]),
        Case("i32", [rand((3, 4), np.int32, -1000, 1000), rand((4,), np.int32, -1000, 1000)]),
        Case("u8-scalar", [rand((5,), np.uint8, 0, 255), np.array(0x5A, np.uint8)], const=(1,)),
        Case("i64", [rand((3,), np.int64, -2**40, 2**40), rand((3,), np.int64, -2**40, 2**40)], ov=I64_CPU),
        Case("i8", [rand((4,), np.int8), rand((4,), np.int8)]),
        Case("zero-size", [rand((0,), np.int16), rand((1,), np.int16)]),
    ], errors=[ErrorCase("float", [rand((2,)), rand((2,))], code="bad-input-type")]))

rng = table_rng("BitwiseNot-13")  # each table its own generator
TABLES.append(OpTable("BitwiseNot", "opset13", reference=lambda x, a: [np.invert(x[0])], cases=[
    Case("boolean", [rand((2, 3), bool)]),
    Case("i32", [rand((3, 4), np.int32, -1000, 1000)]),
    Case("u8", [rand((5,), np.uint8, 0, 255)]),
    Case("i64", [rand((3,), np.int64, -2**40, 2**40)], ov=I64_CPU),
], errors=[ErrorCase("float", [rand((2,))], code="bad-input-type")]))


def ref_shift(left: bool) -> Any:
    def ref(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
        a, b = np.broadcast_arrays(*x)
        bits = a.dtype.itemsize * 8
        out = []
        for ai, bi in zip(a.reshape(-1).tolist(), b.reshape(-1).tolist()):
            if left:
                v = 0 if bi >= bits else (ai << bi) & ((1 << bits) - 1)
            else:
                v = ai >> min(bi, bits + 1)  # Python's >> is arithmetic on the exact value
            out.append(v)
        info = np.iinfo(a.dtype)
        arr = np.array(out, object)
        if left and info.min < 0:
            arr = np.array([v - (1 << bits) if v > info.max else v for v in out], object)
        return [arr.astype(a.dtype).reshape(a.shape)]
    return ref


for _op, _left in [("BitwiseLeftShift", True), ("BitwiseRightShift", False)]:
    rng = table_rng(f"{_op}-15")  # each table its own generator
    TABLES.append(OpTable(_op, "opset15", reference=ref_shift(_left), cases=[
        Case("i32", [rand((2, 3), np.int32, -1000, 1000), rand((3,), np.int32, 0, 31)]),
        Case("u8", [rand((4,), np.uint8, 0, 255), rand((4,), np.uint8, 0, 7)]),
        Case("i64-const", [rand((3,), np.int64, -2**40, 2**40), np.array(3, np.int64)], const=(1,), ov=I64_CPU),
        Case("i8-overflow", [np.array([-128, 127, 64, -1], np.int8), np.array([1, 1, 1, 7], np.int8)]),
        Case("past-width", [np.array([5, -5, 1], np.int32), np.array([32, 40, 33], np.int32)],
             ov="the shift past the width is undefined in C; OpenVINO CPU takes it modulo the width"),
    ], errors=[ErrorCase("float", [rand((2,)), rand((2,))], code="bad-input-type"),
               ErrorCase("boolean", [rand((2,), bool), rand((2,), bool)], code="bad-input-type")]))


def float_edge_cases() -> list[Case]:
    return [
        Case("f32-edges", [EDGE]),
        Case("f16", [np.array([np.inf, -np.inf, np.nan, 0, 65504, -1], np.float16)]),
        Case("bf16", [np.array([np.inf, -np.inf, np.nan, 0, 1, -1], BF16)]),
        Case("f64", [np.array([np.inf, -np.inf, np.nan, 0, 1e308, -1], np.float64)],
             ov="OpenVINO CPU computes f64 in f32, where 1e308 is inf"),
        Case("zero-size", [rand((0, 3))]),
    ]


rng = table_rng("IsNaN-10")  # each table its own generator
TABLES.append(OpTable("IsNaN", "opset10", reference=lambda x, a: [np.isnan(x[0].astype(np.float64))], cases=float_edge_cases(),
        errors=[ErrorCase("integer", [rand((2,), np.int32)], code="bad-input-type")]))
rng = table_rng("IsFinite-10")  # each table its own generator
TABLES.append(OpTable("IsFinite", "opset10", reference=lambda x, a: [np.isfinite(x[0].astype(np.float64))], cases=float_edge_cases(),
        ov_elements=[ISFINITE_DENORMAL]))
rng = table_rng("IsInf-both")  # each table its own generator
TABLES.append(OpTable("IsInf", "opset10", id="IsInf-both", reference=lambda x, a: [np.isinf(x[0].astype(np.float64))],
        cases=float_edge_cases()))
rng = table_rng("IsInf-one-side")  # each table its own generator
TABLES.append(OpTable("IsInf", "opset10", id="IsInf-one-side", reference=lambda x, a: [
    (x[0].astype(np.float64) == np.inf) & a["detect_positive"] | (x[0].astype(np.float64) == -np.inf) & a["detect_negative"]],
    cases=[Case("positive", [EDGE], attrs={"detect_negative": False, "detect_positive": True}),
           Case("negative", [EDGE], attrs={"detect_negative": True, "detect_positive": False}),
           Case("neither", [EDGE], attrs={"detect_negative": False, "detect_positive": False})],
    errors=[ErrorCase("bad-flag", [EDGE], attrs={"detect_negative": "2"}, code="bad-attribute",
              ov=OV_READS_DEFAULT)]))

# The factories share one shape inference: OpenVINO's is compared on the first
# two cases of each table, which keeps the whole file fast.
for _t in TABLES:
    for _c in _t.cases[2:]:
        if _c.ov_shapes is True:
            _c.ov_shapes = "same broadcasting inference as the first cases"

test_conformance = conformance(TABLES)
