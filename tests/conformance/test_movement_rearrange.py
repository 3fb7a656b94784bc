"""Conformance tables of the rearranging movement ops (DepthToSpace,
SpaceToDepth, ShuffleChannels, Reverse, Identity) and of Gather-1 and -7;
references in references_movement.py."""

from __future__ import annotations

import numpy as np

from conformance import references_movement as ref
from conformance.harness import Case, ErrorCase, OpTable, conformance, random_arrays, table_rng


def _rand(table_id: str):
    return random_arrays(table_rng(table_id))


r = _rand("DepthToSpace-1")
DEPTH_TO_SPACE = OpTable("DepthToSpace", "opset1", reference=ref.depth_to_space, cases=[
    Case("blocks-first-2d", [r((1, 8, 2, 3))], attrs={"mode": "blocks_first", "block_size": 2}),
    Case("depth-first-2d", [r((2, 8, 2, 2), np.int16)], attrs={"mode": "depth_first", "block_size": 2}),
    Case("depth-first-1d", [r((1, 6, 4), np.float16)], attrs={"mode": "depth_first", "block_size": 3}),
    Case("blocks-first-3d", [r((1, 16, 1, 2, 2))], attrs={"mode": "blocks_first", "block_size": 2}),
], errors=[ErrorCase("channels-not-divisible", [r((1, 6, 2, 2))], attrs={"mode": "blocks_first", "block_size": 2},
                     code="incompatible-inputs")])

r = _rand("SpaceToDepth-1")
SPACE_TO_DEPTH = OpTable("SpaceToDepth", "opset1", reference=ref.space_to_depth, cases=[
    Case("blocks-first-2d", [r((1, 2, 4, 6))], attrs={"mode": "blocks_first", "block_size": 2}),
    Case("depth-first-2d", [r((2, 3, 4, 4), np.int32)], attrs={"mode": "depth_first", "block_size": 2}),
    Case("depth-first-1d", [r((1, 2, 9), np.float16)], attrs={"mode": "depth_first", "block_size": 3}),
])

r = _rand("ShuffleChannels-1")
SHUFFLE_CHANNELS = OpTable("ShuffleChannels", "opset1", reference=ref.shuffle_channels, cases=[
    Case("axis1", [r((1, 6, 2, 2))], attrs={"axis": 1, "group": 3}),
    Case("negative-axis", [r((2, 3, 8), np.int8)], attrs={"axis": -1, "group": 2}),
    Case("one-group", [r((4, 5))], attrs={"axis": 0, "group": 1}),
])

r = _rand("Reverse-1")
REVERSE = OpTable("Reverse", "opset1", reference=ref.reverse, cases=[
    Case("index", [r((3, 4, 2)), np.array([0, 2], np.int64)], attrs={"mode": "index"}, const=(1,)),
    Case("mask", [r((3, 4), np.int32), np.array([False, True])], attrs={"mode": "mask"}, const=(1,)),
    Case("no-axes", [r((2, 3)), np.zeros((0,), np.int64)], attrs={"mode": "index"}, const=(1,)),
])

r = _rand("Identity-16")
IDENTITY = OpTable("Identity", "opset16", reference=ref.identity, cases=[
    Case("f32", [r((2, 3))]),
    Case("i64", [r((4,), np.int64)]),
])

r = _rand("Gather-1")
GATHER1 = OpTable("Gather", "opset1", reference=ref.gather, cases=[
    Case("axis0", [r((4, 3)), np.array([3, 0, 1], np.int64), np.array(0, np.int64)], const=(2,)),
    Case("axis1-2d-indices", [r((2, 5), np.int32), np.array([[4, 0], [1, 1]], np.int32), np.array([1], np.int64)],
         const=(2,)),
])

r = _rand("Gather-7")
GATHER7 = OpTable("Gather", "opset7", reference=ref.gather, cases=[
    Case("batch-dims", [r((2, 3, 4)), np.array([[0, 2], [1, 1]], np.int64), np.array(1, np.int64)],
         attrs={"batch_dims": 1}, const=(2,)),
    Case("no-batch", [r((3, 4), np.float16), np.array([2, 0], np.int32), np.array(-1, np.int64)], const=(2,)),
])

test_conformance = conformance([DEPTH_TO_SPACE, SPACE_TO_DEPTH, SHUFFLE_CHANNELS, REVERSE, IDENTITY, GATHER1, GATHER7])
