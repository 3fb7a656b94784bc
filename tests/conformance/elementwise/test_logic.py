"""Conformance tables of Equal-1, NotEqual-1, Less-1, LessEqual-1, Greater-1,
GreaterEqual-1, LogicalAnd-1, LogicalOr-1, LogicalXor-1, Xor-1 (opset1's name of LogicalXor), LogicalNot-1, BitwiseAnd-13,
BitwiseOr-13, BitwiseXor-13, BitwiseNot-13, BitwiseLeftShift-15, BitwiseRightShift-15,
IsNaN-10, IsFinite-10 and IsInf-10."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from conformance.elementwise.references import BF16, EDGE, EDGE_B, ref_shift
from conformance.harness import (
    COMPARE_NAN,
    ISFINITE_DENORMAL,
    OV_READS_DEFAULT,
    OV_TYPE_UNCHECKED,
    Case,
    ErrorCase,
    OpTable,
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


I64_CPU = "OpenVINO CPU narrows i64 to i32"


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


xrand = random_arrays(table_rng("Xor-1"))  # the table's own generator
XOR = OpTable("Xor", "opset1", reference=lambda x, a: [np.logical_xor(x[0], x[1])], cases=[
    Case("broadcast", [xrand((2, 3, 4), bool), xrand((3, 1), bool)]),
    Case("all-pairs", [np.array([True, True, False, False]), np.array([True, False, True, False])]),
    Case("scalar", [np.array(True), xrand((5,), bool)]),
    Case("const", [xrand((2, 2), bool), xrand((2, 2), bool)], const=(1,)),
    Case("none-broadcast", [xrand((3,), bool), xrand((3,), bool)], attrs={"auto_broadcast": "none"}),
    Case("zero-size", [xrand((0, 2), bool), xrand((2,), bool)]),
], errors=[
    ErrorCase("not-boolean", [xrand((2,)), xrand((2,))], code="bad-input-type"),
    ErrorCase("shapes", [xrand((2, 3), bool), xrand((4,), bool)], code="incompatible-inputs"),
    ErrorCase("none-broadcast-differs", [xrand((2, 3), bool), xrand((3,), bool)], attrs={"auto_broadcast": "none"},
              code="incompatible-inputs"),
])


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

# Xor-1 (its own logic.py line) compares every case's shapes with OpenVINO's
TABLES.append(XOR)
test_conformance = conformance(TABLES)
