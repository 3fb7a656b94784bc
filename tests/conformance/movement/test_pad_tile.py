"""Conformance tables of Pad-1, Pad-12 and Tile-1: exact, every element type.
The references index the data position by position, from the specs."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, conformance, i64, random_arrays, table_rng
from conformance.movement.references import ref_pad, ref_tile

BF16 = ml_dtypes.bfloat16


def pad_cases() -> list[Case]:
    return [
        Case("constant-zero", [rand((2, 3)), i64(1, 2), i64(0, 1)], attrs={"pad_mode": "constant"}, const=(1, 2)),
        Case("constant-value", [rand((2, 3, 2), np.int8), i64(0, 1, 1), i64(1, 0, 2), np.array(7, np.int8)],
             attrs={"pad_mode": "constant"}, const=(1, 2, 3)),
        Case("value-parameter", [rand((3,)), i64(1), i64(2), np.array(-2.5, np.float32)], attrs={"pad_mode": "constant"},
             const=(1, 2), ov="OpenVINO CPU pads zeros when pad_value is not a constant"),
        Case("edge", [rand((3, 4), np.float16), i64(2, 1), i64(1, 3)], attrs={"pad_mode": "edge"}, const=(1, 2)),
        Case("reflect", [rand((3, 4), BF16), i64(2, 1), i64(1, 3)], attrs={"pad_mode": "reflect"}, const=(1, 2)),
        Case("symmetric", [rand((1, 3, 4), np.int64), i64(0, 3, 2), i64(1, 2, 4)], attrs={"pad_mode": "symmetric"},
             const=(1, 2), ov="OpenVINO CPU narrows i64 to i32"),
        Case("symmetric-i32", [rand((1, 3, 4), np.int32), i64(1, 3, 2), i64(0, 2, 4)], attrs={"pad_mode": "symmetric"},
             const=(1, 2)),
        Case("bool", [rand((4,), bool), np.array([2], np.int32), np.array([1], np.int32), np.array(True)],
             attrs={"pad_mode": "constant"}, const=(1, 2, 3)),
        Case("zero-size", [rand((0, 3)), i64(1, 0), i64(1, 1)], attrs={"pad_mode": "constant"}, const=(1, 2),
             ov="OpenVINO CPU refuses a zero-size input"),
        Case("f64", [rand((2, 2), np.float64), i64(1, 1), i64(1, 1)], attrs={"pad_mode": "edge"}, const=(1, 2),
             ov="OpenVINO CPU computes f64 in f32"),
    ]


rand = random_arrays(table_rng("Pad-1"))  # each table its own generator
PAD1 = OpTable("Pad", "opset1", reference=ref_pad, cases=pad_cases() + [
    Case("negative-crops", [rand((3,)), i64(-1), i64(0)], attrs={"pad_mode": "constant"}, const=(1, 2)),
    Case("negative-edge", [rand((2, 5)), i64(1, -2), i64(0, 1)], attrs={"pad_mode": "edge"}, const=(1, 2)),
], errors=[
    ErrorCase("length", [rand((3, 2)), i64(1), i64(0)], attrs={"pad_mode": "constant"}, const=(1, 2),
              code="incompatible-inputs"),
    ErrorCase("reflect-too-far", [rand((3,)), i64(3), i64(0)], attrs={"pad_mode": "reflect"}, const=(1, 2), code="bad-value"),
    ErrorCase("mode", [rand((3,)), i64(3), i64(0)], attrs={"pad_mode": "wrap"}, const=(1, 2), code="bad-attribute"),
])


rand = random_arrays(table_rng("Pad-12"))  # each table its own generator
PAD12 = OpTable("Pad", "opset12", reference=ref_pad, cases=pad_cases()[:4] + [
    Case("crop", [rand((4, 5)), i64(-1, 2), i64(-2, -1)], attrs={"pad_mode": "constant"}, const=(1, 2)),
    Case("crop-edge", [rand((4, 5), np.int32), i64(-2, 1), i64(2, -3)], attrs={"pad_mode": "edge"}, const=(1, 2)),
    Case("crop-reflect", [rand((4,)), i64(-2), i64(2)], attrs={"pad_mode": "reflect"}, const=(1, 2)),
    Case("crop-symmetric", [rand((2, 4), np.uint8), i64(1, -3), i64(0, 3)], attrs={"pad_mode": "symmetric"}, const=(1, 2)),
    # pad_value is read in constant mode only: any type or rank elsewhere
    Case("edge-ignores-value", [rand((3,)), i64(1), i64(1), np.array([0, 0], np.int32)], attrs={"pad_mode": "edge"},
         const=(1, 2, 3)),
    Case("reflect-ignores-value", [rand((2, 3)), i64(0, 1), i64(1, 1), np.array(0, np.int64)],
         attrs={"pad_mode": "reflect"}, const=(1, 2, 3)),
], errors=[
    ErrorCase("constant-value-1d", [rand((3,)), i64(1), i64(1), np.array([0], np.float32)], attrs={"pad_mode": "constant"},
              const=(1, 2, 3), code="bad-input-rank"),
    ErrorCase("constant-value-type", [rand((3,)), i64(1), i64(1), np.array(0, np.int32)], attrs={"pad_mode": "constant"},
              const=(1, 2, 3), code="bad-input-type"),
    ErrorCase("crop-past", [rand((3,)), i64(-2), i64(-2)], attrs={"pad_mode": "constant"}, const=(1, 2), code="bad-value",
              ov="OpenVINO's shape inference leaves a negative output dim dynamic"),
    ErrorCase("symmetric-too-far", [rand((3,)), i64(0), i64(4)], attrs={"pad_mode": "symmetric"}, const=(1, 2),
              code="bad-value"),
])


rand = random_arrays(table_rng("Tile-1"))  # each table its own generator
TILE = OpTable("Tile", "opset1", reference=ref_tile, cases=[
    Case("same-rank", [rand((2, 3)), i64(2, 3)], const=(1,)),
    Case("more-repeats", [rand((2, 3), np.int16), i64(2, 1, 2)], const=(1,)),
    Case("fewer-repeats", [rand((2, 1, 3), np.float16), np.array([3], np.int32)], const=(1,)),
    Case("scalar", [np.array(4, np.uint8), i64(3)], const=(1,)),
    Case("zero-repeat", [rand((2, 3), BF16), i64(0, 2)], const=(1,), ov="OpenVINO CPU refuses a zero-size output"),
    Case("bool", [rand((3,), bool), i64(2)], const=(1,)),
    Case("empty-repeats", [rand((2,), np.int32), np.zeros(0, np.int64)], const=(1,),
         ov="OpenVINO CPU returns uninitialised memory"),
    Case("negative", [rand((2,)), i64(-1)], const=(1,)),
    Case("negative-among", [rand((2, 3)), i64(2, -3, 1)], const=(1,)),
])

TABLES = [PAD1, PAD12, TILE]
test_conformance = conformance(TABLES)
