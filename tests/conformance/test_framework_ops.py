"""Conformance tables of the ops that prove the framework (Add: broadcasting
on the factory; Concat: variadic inputs; Split: outputs from an attribute)
and of the ops ported onto it (Roll, ReverseSequence, Gather, Convert)."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from conformance.harness import OV_READS_DEFAULT, Case, ErrorCase, OpTable, conformance, random_arrays, table_rng

# ------------------------------------------------------------------ Add-1

def ref_add(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    a, b = x
    if attrs.get("auto_broadcast") == "pdpd":  # b laid onto a from dim 0
        b = b.reshape(b.shape + (1,) * (a.ndim - b.ndim))
    if a.dtype.kind == "f" or a.dtype == ml_dtypes.bfloat16:
        # exact sum in f64, rounded once: correctly rounded for f16/bf16/f32 (f64 holds their sums exactly)
        with np.errstate(invalid="ignore"):
            return [(a.astype(np.float64) + b.astype(np.float64)).astype(a.dtype)]
    with np.errstate(over="ignore"):
        return [np.add(a, b, dtype=a.dtype)]  # wraps as in C


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


# ------------------------------------------------------------------ Concat-1

def ref_concat(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    return [np.concatenate(x, axis=int(attrs["axis"]))]


rand = random_arrays(table_rng("Concat-1"))
CONCAT = OpTable("Concat", "opset1", reference=ref_concat, cases=[
    Case("two", [rand((2, 3)), rand((2, 5))], attrs={"axis": 1}),
    Case("negative-axis", [rand((2, 3, 4)), rand((2, 3, 1)), rand((2, 3, 2))], attrs={"axis": -1}),
    Case("one-input", [rand((4, 2), np.int8)], attrs={"axis": 0}),
    Case("zero-size-input", [rand((0, 3), np.int64), rand((2, 3), np.int64)], attrs={"axis": 0}),
    Case("const-and-param", [rand((2,), np.int32), np.array([7, 8], np.int32)], attrs={"axis": 0}, const=(1,)),
    Case("boolean", [rand((1, 2), bool), rand((3, 2), bool)], attrs={"axis": 0}),
    Case("f16", [rand((2, 2), np.float16), rand((2, 2), np.float16)], attrs={"axis": 1}),
], errors=[
    ErrorCase("axis-out-of-range", [rand((2, 3)), rand((2, 3))], attrs={"axis": 2}, code="axis-out-of-range"),
    ErrorCase("dims-differ", [rand((2, 3)), rand((3, 3))], attrs={"axis": 1}, code="incompatible-inputs"),
    ErrorCase("ranks-differ", [rand((2, 3)), rand((3,))], attrs={"axis": 0}, code="incompatible-inputs"),
    ErrorCase("types-differ", [rand((2, 3)), rand((2, 3), np.int32)], attrs={"axis": 0}, code="bad-input-type"),
    ErrorCase("axis-missing", [rand((2, 3))], code="bad-attribute",
              ov=OV_READS_DEFAULT),
])


# ------------------------------------------------------------------ Split-1

def ref_split(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    return [np.ascontiguousarray(p) for p in np.split(x[0], int(attrs["num_splits"]), axis=int(x[1]))]


rand = random_arrays(table_rng("Split-1"))
SPLIT = OpTable("Split", "opset1", reference=ref_split, cases=[
    Case("three", [rand((2, 6)), np.array(1, np.int64)], attrs={"num_splits": 3}, const=(1,)),
    Case("negative-axis", [rand((4, 2, 2), np.int32), np.array(-3, np.int32)], attrs={"num_splits": 2}, const=(1,)),
    Case("one", [rand((3,), np.uint8), np.array(0, np.int64)], attrs={"num_splits": 1}, const=(1,)),
    Case("zero-size", [rand((0, 4)), np.array(1, np.int64)], attrs={"num_splits": 2}, const=(1,)),
], errors=[
    ErrorCase("uneven", [rand((2, 5)), np.array(1, np.int64)], attrs={"num_splits": 2}, const=(1,), code="incompatible-inputs"),
    ErrorCase("zero-splits", [rand((2, 4)), np.array(1, np.int64)], attrs={"num_splits": 0}, const=(1,), code="bad-attribute"),
    ErrorCase("axis-out-of-range", [rand((2, 4)), np.array(2, np.int64)], attrs={"num_splits": 2}, const=(1,),
              code="axis-out-of-range"),
    ErrorCase("axis-not-scalar", [rand((2, 4)), np.array([1], np.int64)], attrs={"num_splits": 2}, const=(1,),
              code="bad-input-rank"),
    ErrorCase("axis-2d", [rand((2, 4)), np.array([[1]], np.int64)], attrs={"num_splits": 2}, const=(1,),
              code="bad-input-rank"),
])


# ------------------------------------------------------------------ ported ops

def ref_roll(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, shift, axes = x
    shifts, axis_list = shift.reshape(-1).tolist(), axes.reshape(-1).tolist()
    if len(shifts) == 1:
        shifts = shifts * len(axis_list)
    out = data
    for s, a in zip(shifts, axis_list):
        if data.shape[a]:
            out = np.roll(out, s, axis=a)
    return [np.array(out)]


MATRIX = np.arange(1, 13, dtype=np.int32).reshape(4, 3)
rand = random_arrays(table_rng("Roll-7"))
ROLL = OpTable("Roll", "opset7", reference=ref_roll, cases=[
    Case("one-axis", [rand((3, 4)), np.array([1], np.int64), np.array([0], np.int64)], const=(1, 2)),
    Case("two-axes", [rand((3, 4, 5), np.int16), np.array([2, -1], np.int32), np.array([0, 2], np.int64)], const=(1, 2)),
    Case("scalar-shift-every-axis", [rand((3, 4)), np.array(1, np.int64), np.array([0, 1], np.int64)], const=(1, 2),
         ov="OpenVINO CPU refuses a one-element shift with several axes (the spec allows it)"),
    Case("negative-axis", [rand((2, 5), np.float16), np.array([7], np.int64), np.array([-1], np.int64)], const=(1, 2)),
    # the spec's examples and OpenVINO's reference test, with their hand-worked outputs
    Case("spec-example-1", [MATRIX, np.array(1, np.int64), np.array(0, np.int64)], const=(1, 2),
         expect=[np.array([[10, 11, 12], [1, 2, 3], [4, 5, 6], [7, 8, 9]], np.int32)]),
    Case("spec-example-2", [MATRIX, np.array([-1, 2], np.int64), np.array([0, 1], np.int64)], const=(1, 2),
         expect=[np.array([[5, 6, 4], [8, 9, 7], [11, 12, 10], [2, 3, 1]], np.int32)]),
    Case("spec-example-3-repeated-axes", [MATRIX, np.array([1, 2, 1], np.int64), np.array([0, 1, 0], np.int64)],
         const=(1, 2), expect=[np.array([[8, 9, 7], [11, 12, 10], [2, 3, 1], [5, 6, 4]], np.int32)]),
    Case("openvino-negative-axes", [np.arange(1, 25, dtype=np.float32).reshape(4, 2, 3), np.array([2, -1, -7], np.int64),
                                    np.array([-1, -1, -2], np.int64)], const=(1, 2),
         expect=[np.array([6, 4, 5, 3, 1, 2, 12, 10, 11, 9, 7, 8, 18, 16, 17, 15, 13, 14, 24, 22, 23, 21, 19, 20],
                          np.float32).reshape(4, 2, 3)]),
])

rand = random_arrays(table_rng("Gather-8"))
GATHER = OpTable("Gather", "opset8", reference=None, cases=[
    Case("axis1", [rand((3, 4)), np.array([[0, 2], [3, 1]], np.int32), np.array(1, np.int64)], const=(2,),
         expect=None),
    Case("batch", [rand((2, 3, 4), np.int8), np.array([[0, 2], [1, 1]], np.int64), np.array(1, np.int64)],
         attrs={"batch_dims": 1}, const=(2,)),
    Case("negative-index", [rand((5,)), np.array([-1, 0], np.int64), np.array(0, np.int64)], const=(2,)),
])

rand = random_arrays(table_rng("ReverseSequence-1"))
REVERSE_SEQUENCE = OpTable("ReverseSequence", "opset1", reference=None, cases=[
    Case("spec-like", [rand((4, 3)), np.array([1, 2, 3], np.int32)], attrs={"batch_axis": 1, "seq_axis": 0}, const=(1,)),
    Case("batch0", [rand((2, 5, 3), np.int32), np.array([5, 2], np.int64)], attrs={"batch_axis": 0, "seq_axis": 1}, const=(1,),
         ov="OpenVINO CPU runs integer ReverseSequence through f32"),
    # OpenVINO's reference tests, with their hand-worked outputs
    Case("openvino-2d-batch1-seq0", [np.arange(16, dtype=np.float32).reshape(4, 4), np.array([4, 3, 2, 1], np.int32)],
         attrs={"batch_axis": 1, "seq_axis": 0}, const=(1,),
         expect=[np.array([[12, 9, 6, 3], [8, 5, 2, 7], [4, 1, 10, 11], [0, 13, 14, 15]], np.float32)]),
    Case("openvino-2d-batch0-seq1", [np.arange(16, dtype=np.int8).reshape(4, 4), np.array([1, 2, 3, 4], np.int32)],
         attrs={"batch_axis": 0, "seq_axis": 1}, const=(1,), ov="OpenVINO CPU runs integer ReverseSequence through f32",
         expect=[np.array([[0, 1, 2, 3], [5, 4, 6, 7], [10, 9, 8, 11], [15, 14, 13, 12]], np.int8)]),
])

rand = random_arrays(table_rng("Convert-1"))
CONVERT = OpTable("Convert", "opset1", reference=lambda x, a: [x[0].astype(np.float16)], cases=[
    Case("f32-to-f16", [rand((3, 4))], attrs={"destination_type": "f16"}),
    Case("f32-to-f16-zero-size", [rand((0, 4))], attrs={"destination_type": "f16"}),
])

test_conformance = conformance([ADD, CONCAT, SPLIT, ROLL, GATHER, REVERSE_SEQUENCE, CONVERT])
