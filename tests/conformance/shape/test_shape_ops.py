"""Conformance tables of ShapeOf-3, ShapeOf-1, Reshape-1, Squeeze-1, Squeeze-15,
Unsqueeze-1, Range-4 and Range-1."""

from __future__ import annotations

import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, conformance, i64, random_arrays, table_rng
from conformance.shape.references import BF16, ref_range, ref_reshape, ref_shapeof, ref_squeeze, ref_unsqueeze

rng = table_rng("ShapeOf-3")  # each table its own generator
rand = random_arrays(rng)
SHAPEOF3 = OpTable("ShapeOf", "opset3", reference=ref_shapeof, cases=[
    Case("f32-i64", [rand((2, 3, 4))], attrs={"output_type": "i64"}),
    Case("i8-i32", [rand((5, 1), np.int8)], attrs={"output_type": "i32"}),
    Case("scalar", [np.array(1.5, np.float32)], attrs={"output_type": "i64"}),
    Case("zero-size", [rand((0, 3), np.float16)], attrs={"output_type": "i32"}),
    Case("boolean", [rand((4,), bool)], attrs={"output_type": "i64"}),
], errors=[ErrorCase("bad-type", [rand((2,))], attrs={"output_type": "f32"}, code="bad-attribute")])


rng = table_rng("ShapeOf-1")  # each table its own generator
rand = random_arrays(rng)
SHAPEOF1 = OpTable("ShapeOf", "opset1", reference=ref_shapeof, cases=[
    Case("bf16", [rand((2, 7), BF16)]),
    Case("u64-rank4", [rand((1, 2, 1, 3), np.uint64)]),
])


rng = table_rng("Reshape-1")  # each table its own generator
rand = random_arrays(rng)
RESHAPE = OpTable("Reshape", "opset1", reference=ref_reshape, cases=[
    Case("spec-example", [rand((2, 5, 5, 0)), i64(0, 4)], attrs={"special_zero": False}, const=(1,),
         ov="OpenVINO CPU refuses a zero-size input"),
    Case("minus-one", [rand((2, 3, 4)), i64(-1, 4)], attrs={"special_zero": False}, const=(1,)),
    Case("special-zero", [rand((2, 3, 64), np.float16), i64(0, 0, 4, -1)], attrs={"special_zero": True}, const=(1,)),
    Case("zero-is-zero", [rand((0, 3), np.int32), i64(0, 5)], attrs={"special_zero": False}, const=(1,),
         ov="OpenVINO CPU refuses a zero-size input"),
    Case("to-scalar", [rand((1, 1), np.int64), np.zeros(0, np.int64)], attrs={"special_zero": False}, const=(1,)),
    Case("from-scalar", [np.array(3, np.uint8), i64(1, 1, 1)], attrs={"special_zero": False}, const=(1,)),
    Case("i32-pattern-bf16", [rand((6, 2), BF16), np.array([3, -1, 2], np.int32)], attrs={"special_zero": True}, const=(1,)),
    Case("flatten", [rand((2, 3, 4), bool), i64(-1)], attrs={"special_zero": False}, const=(1,)),
], errors=[
    ErrorCase("two-minus-one", [rand((2, 3)), i64(-1, -1)], attrs={"special_zero": False}, const=(1,), code="bad-value"),
    ErrorCase("count", [rand((2, 3)), i64(4, 2)], attrs={"special_zero": False}, const=(1,), code="incompatible-inputs"),
    ErrorCase("indivisible", [rand((2, 3)), i64(4, -1)], attrs={"special_zero": False}, const=(1,), code="incompatible-inputs"),
    ErrorCase("negative", [rand((2, 3)), i64(-2, 3)], attrs={"special_zero": False}, const=(1,), code="bad-value"),
    ErrorCase("zero-out-of-range", [rand((6,)), i64(1, 0)], attrs={"special_zero": True}, const=(1,), code="bad-value"),
    ErrorCase("scalar-pattern", [rand((1,)), np.array(1, np.int64)], attrs={"special_zero": False}, const=(1,),
              code="bad-input-rank"),
    ErrorCase("float-pattern", [rand((6,)), np.array([6.0], np.float32)], attrs={"special_zero": True}, const=(1,),
              code="bad-input-type"),
])


rng = table_rng("Squeeze-1")  # each table its own generator
rand = random_arrays(rng)
SQUEEZE1 = OpTable("Squeeze", "opset1", reference=ref_squeeze, cases=[
    Case("axes", [rand((1, 3, 1, 2)), i64(0, 2)], const=(1,)),
    Case("negative-axis", [rand((2, 1), np.int8), np.array(-1, np.int64)], const=(1,)),
    Case("no-axes", [rand((1, 3, 1), np.uint16)]),
    Case("empty-axes", [rand((1, 2, 1), BF16), np.zeros(0, np.int64)], const=(1,)),
    Case("to-scalar", [rand((1,), np.float64), i64(0)], const=(1,), ov="OpenVINO CPU rounds f64 data to f32"),
    Case("zero-size", [rand((0, 1)), np.array([1], np.int32)], const=(1,), ov="OpenVINO CPU refuses a zero-size input"),
    Case("not-one-kept", [rand((2, 3)), i64(0)], const=(1,)),
    Case("not-one-kept-among", [rand((1, 3, 1)), i64(0, 1)], const=(1,)),
    Case("real-axes", [rand((1, 1, 3)), np.array([0.7, -1.5], np.float32)], const=(1,)),
], errors=[
    ErrorCase("axis-range", [rand((1, 3)), i64(2)], const=(1,), code="axis-out-of-range"),
])


rng = table_rng("Squeeze-15")  # each table its own generator
rand = random_arrays(rng)
SQUEEZE15 = OpTable("Squeeze", "opset15", reference=None, cases=[
    Case("skip", [rand((1, 3, 1)), i64(0, 1)], attrs={"allow_axis_skip": True}, const=(1,),
         expect=None),
    Case("no-skip", [rand((1, 3, 1), np.int32), i64(-1)], attrs={"allow_axis_skip": False}, const=(1,)),
    Case("no-skip-not-one-kept", [rand((1, 3, 1)), i64(0, 1)], attrs={"allow_axis_skip": False}, const=(1,)),
])


SQUEEZE15.reference = lambda x, a: [np.squeeze(x[0], axis=tuple(
    int(v) for v in np.asarray(x[1]).reshape(-1) if x[0].shape[int(v)] == 1))]


rng = table_rng("Unsqueeze-1")  # each table its own generator
rand = random_arrays(rng)
UNSQUEEZE = OpTable("Unsqueeze", "opset1", reference=ref_unsqueeze, cases=[
    Case("spec-example", [rand((2, 3)), i64(0, 3)], const=(1,)),
    Case("scalar", [np.array(7, np.int64), np.array(0, np.int64)], const=(1,)),
    Case("negative", [rand((2, 3), np.float16), i64(-1, 1)], const=(1,)),
    Case("bool", [rand((4,), bool), np.array([1], np.int32)], const=(1,)),
    Case("zero-size", [rand((0,)), i64(0)], const=(1,), ov="OpenVINO CPU refuses a zero-size input"),
    Case("repeated", [rand((2,)), i64(0, 0)], const=(1,)),
    Case("repeated-negative", [rand((3,)), i64(-1, -1, 0)], const=(1,)),
    Case("same-after-normalising", [rand((3,)), i64(0, -2)], const=(1,)),
    Case("real-axes", [rand((3,)), np.array([1.9, -0.5], np.float32)], const=(1,)),
], errors=[
    ErrorCase("range", [rand((2,)), i64(3)], const=(1,), code="axis-out-of-range"),
])


rng = table_rng("Range-4")  # each table its own generator
rand = random_arrays(rng)
RANGE4 = OpTable("Range", "opset4", reference=ref_range, cases=[
    Case("i64", [i64(0).reshape(()), i64(10).reshape(()), i64(3).reshape(())], attrs={"output_type": "i64"}, const=(0, 1, 2)),
    Case("f32-step", [np.array(1.0, np.float32), np.array(2.0, np.float32), np.array(0.1, np.float32)],
         attrs={"output_type": "f32"}, const=(0, 1, 2)),
    Case("negative-step", [np.array(5, np.int32), np.array(-3, np.int32), np.array(-2, np.int32)],
         attrs={"output_type": "i32"}, const=(0, 1, 2)),
    Case("empty", [np.array(5, np.int64), np.array(1, np.int64), np.array(1, np.int64)], attrs={"output_type": "i64"},
         const=(0, 1, 2), ov="OpenVINO CPU refuses an empty output"),
    Case("float-to-int", [np.array(0.5, np.float32), np.array(4.7, np.float32), np.array(1.5, np.float32)],
         attrs={"output_type": "i32"}, const=(0, 1, 2)),
    Case("f16", [np.array(-1, np.int64), np.array(1, np.int64), np.array(0.25, np.float32)],
         attrs={"output_type": "f16"}, const=(0, 1, 2)),
], errors=[
    ErrorCase("zero-step", [np.array(0, np.int64), np.array(3, np.int64), np.array(0, np.int64)],
              attrs={"output_type": "i64"}, const=(0, 1, 2), code="bad-value"),
    ErrorCase("not-scalar", [i64(0), np.array(3, np.int64), np.array(1, np.int64)],
              attrs={"output_type": "i64"}, const=(0, 1, 2), code="bad-input-rank"),
])


rng = table_rng("Range-1")  # each table its own generator
rand = random_arrays(rng)
RANGE1 = OpTable("Range", "opset1", reference=ref_range, cases=[
    Case("i32", [np.array(2, np.int32), np.array(11, np.int32), np.array(3, np.int32)], const=(0, 1, 2)),
    Case("f32", [np.array(0, np.float32), np.array(1, np.float32), np.array(0.3, np.float32)], const=(0, 1, 2)),
], errors=[ErrorCase("types-differ", [np.array(0, np.int32), np.array(3, np.int64), np.array(1, np.int32)],
                     const=(0, 1, 2), code="bad-input-type")])

TABLES = [SHAPEOF3, SHAPEOF1, RESHAPE, SQUEEZE1, SQUEEZE15, UNSQUEEZE, RANGE4, RANGE1]
test_conformance = conformance(TABLES)
