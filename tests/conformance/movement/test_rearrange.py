"""Conformance tables of Reverse-1, DepthToSpace-1, SpaceToDepth-1, ShuffleChannels-1
and Identity-16."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, conformance, table_rng
from conformance.movement.references import BF16, ref_depth_to_space, ref_reverse, ref_shuffle, ref_space_to_depth

TABLES: list[OpTable] = []

def i64(v: Any) -> np.ndarray:
    return np.array(v, np.int64)


def rand(shape: tuple[int, ...], dtype: Any = np.float32, lo: int = -100, hi: int = 100) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return rng.integers(0 if dtype.kind == "u" else lo, hi, shape).astype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    return rng.standard_normal(shape).astype(dtype)


rng = table_rng("Reverse-1")  # each table its own generator
TABLES.append(OpTable("Reverse", "opset1", reference=ref_reverse, cases=[
    Case("index", [rand((3, 4, 2)), i64([0, 2])], attrs={"mode": "index"}, const=(1,)),
    Case("index-negative-i32", [rand((2, 5), np.int32), np.array([-1], np.int32)], attrs={"mode": "index"}, const=(1,)),
    Case("mask", [rand((3, 4), np.uint8), np.array([False, True])], attrs={"mode": "mask"}, const=(1,)),
    Case("mask-all", [rand((2, 3, 2), np.float16), np.array([True, True, True])], attrs={"mode": "mask"}, const=(1,)),
    Case("empty-axes", [rand((4,)), np.zeros((0,), np.int64)], attrs={"mode": "index"}, const=(1,)),
    Case("repeated-axis", [rand((3, 2)), i64([0, 0])], attrs={"mode": "index"}, const=(1,)),
    Case("bf16", [rand((2, 3), BF16), i64([1])], attrs={"mode": "index"}, const=(1,)),
    Case("bool", [rand((5,), bool), i64([0])], attrs={"mode": "index"}, const=(1,)),
    Case("axes-runtime", [rand((3, 3)), i64([1])], attrs={"mode": "index"}),
    Case("zero-size", [np.zeros((0, 3), np.float32), i64([1])], attrs={"mode": "index"}, const=(1,),
         ov="OpenVINO CPU refuses a zero-size input"),
], errors=[
    ErrorCase("axis-range", [rand((2, 3)), i64([2])], attrs={"mode": "index"}, const=(1,), code="axis-out-of-range"),
    ErrorCase("mask-length", [rand((2, 3)), np.array([True])], attrs={"mode": "mask"}, const=(1,),
              code="incompatible-inputs"),
    ErrorCase("mask-type", [rand((2, 3)), i64([1, 0])], attrs={"mode": "mask"}, const=(1,), code="bad-input-type"),
    ErrorCase("index-type", [rand((2, 3)), np.array([True, False])], attrs={"mode": "index"}, const=(1,),
              code="bad-input-type"),
    ErrorCase("mode", [rand((2, 3)), i64([1])], attrs={"mode": "axes"}, const=(1,), code="bad-attribute"),
]))


def block_cases(to_space: bool) -> list[Case]:
    def shp(c: int, *space: int, bs: int) -> tuple[int, ...]:
        return (1, c * bs ** len(space), *space) if to_space else (1, c, *(d * bs for d in space))

    return [
        Case("bf-2d", [rand(shp(3, 2, 3, bs=2))], attrs={"mode": "blocks_first", "block_size": 2}),
        Case("df-2d", [rand(shp(3, 2, 3, bs=2), np.int32)], attrs={"mode": "depth_first", "block_size": 2}),
        Case("bf-1d", [rand(shp(2, 4, bs=3), np.uint8)], attrs={"mode": "blocks_first", "block_size": 3}),
        Case("df-3d", [rand(shp(1, 2, 1, 2, bs=2), np.float16)], attrs={"mode": "depth_first", "block_size": 2}),
        Case("bs1", [rand(shp(4, 2, 2, bs=1))], attrs={"mode": "depth_first", "block_size": 1}),
        Case("default-block-size", [rand(shp(2, 3, bs=1))], attrs={"mode": "blocks_first"},
             ov="OpenVINO reads a missing block_size as 0 and refuses it; the spec's default is 1",
             ov_shapes="OpenVINO reads a missing block_size as 0 and refuses it; the spec's default is 1"),
        Case("bf16-batch2", [np.concatenate([rand(shp(2, 2, 1, bs=2), BF16)] * 2)],
             attrs={"mode": "blocks_first", "block_size": 2}),
        Case("i64", [rand(shp(1, 1, 2, bs=2), np.int64)], attrs={"mode": "depth_first", "block_size": 2}),
    ]


BLOCK_ERRORS = [
    ErrorCase("rank2", [rand((4, 4))], attrs={"mode": "blocks_first", "block_size": 2}, code="bad-input-rank"),
    ErrorCase("block-0", [rand((1, 4, 2, 2))], attrs={"mode": "blocks_first", "block_size": 0}, code="bad-attribute"),
    ErrorCase("mode", [rand((1, 4, 2, 2))], attrs={"mode": "first", "block_size": 2}, code="bad-attribute"),
]


rng = table_rng("DepthToSpace-1")  # each table its own generator
TABLES.append(OpTable("DepthToSpace", "opset1", reference=ref_depth_to_space, cases=block_cases(True), errors=[
    *BLOCK_ERRORS,
    ErrorCase("channels", [rand((1, 6, 2, 2))], attrs={"mode": "blocks_first", "block_size": 2}, code="incompatible-inputs")]))


rng = table_rng("SpaceToDepth-1")  # each table its own generator
TABLES.append(OpTable("SpaceToDepth", "opset1", reference=ref_space_to_depth, cases=block_cases(False), errors=[
    *BLOCK_ERRORS,
    ErrorCase("spatial", [rand((1, 2, 3, 2))], attrs={"mode": "blocks_first", "block_size": 2}, code="incompatible-inputs")]))


rng = table_rng("ShuffleChannels-3")  # each table its own generator
TABLES.append(OpTable("ShuffleChannels", "opset3", reference=ref_shuffle, cases=[
    Case("default", [rand((1, 6, 2))], attrs={"group": 3}),
    Case("axis-neg", [rand((2, 3, 8), np.int32)], attrs={"axis": -1, "group": 4}),
    Case("axis0-1d", [rand((6,), np.uint8)], attrs={"axis": 0, "group": 2}),
    Case("group1", [rand((2, 4), np.float16)], attrs={"axis": 1, "group": 1}),
    Case("group-all", [rand((1, 5, 1, 2), BF16)], attrs={"axis": 1, "group": 5}),
    Case("i64", [rand((1, 4, 2), np.int64)], attrs={"group": 2}),
], errors=[
    ErrorCase("group", [rand((1, 5, 2))], attrs={"group": 2}, code="incompatible-inputs"),
    ErrorCase("axis", [rand((1, 4))], attrs={"axis": 2, "group": 2}, code="axis-out-of-range"),
    ErrorCase("scalar", [np.float32(1)], attrs={"axis": 0}, code="bad-input-rank"),
    ErrorCase("group-0", [rand((1, 4))], attrs={"group": 0}, code="bad-attribute"),
]))


rng = table_rng("Identity-16")  # each table its own generator
TABLES.append(OpTable("Identity", "opset16", reference=lambda x, attrs: [x[0].copy()], cases=[
    Case("f32", [rand((2, 3))]),
    Case("i8-scalar", [np.int8(-5)]),
    Case("bool", [rand((4,), bool)]),
    Case("bf16", [rand((3, 1), BF16)]),
    Case("f16-signed-zero", [np.array([-0.0, 0.0, np.inf], np.float16)]),
]))

test_conformance = conformance(TABLES)
