"""Conformance tables of BatchToSpace-2 and SpaceToBatch-2: exact, every
element type.  The references place each element position by position,
from the specs' definitions."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from conformance.harness import OV_VALUE_UNCHECKED, Case, ErrorCase, OpTable, conformance, i64, random_arrays, table_rng

BF16 = ml_dtypes.bfloat16


def ref_batch_to_space(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, block, begin, end = x[0], [int(v) for v in x[1]], [int(v) for v in x[2]], [int(v) for v in x[3]]
    batch, *space = data.shape
    small = batch // int(np.prod(block))
    full = [d * b for d, b in zip(space, block[1:])]
    out_shape = (small, *(f - b - e for f, b, e in zip(full, begin[1:], end[1:])))
    out = np.empty(out_shape, data.dtype)
    for pos in np.ndindex(*out_shape):
        # output position p (before cropping) of dim i is block offset p % B_i of input position p // B_i;
        # the block offsets, in row-major order over B_1..B_k, select the batch group
        full_pos = [p + b for p, b in zip(pos[1:], begin[1:])]
        offsets = [p % b for p, b in zip(full_pos, block[1:])]
        group = int(np.ravel_multi_index(offsets, block[1:])) if offsets else 0
        out[pos] = data[(group * small + pos[0], *(p // b for p, b in zip(full_pos, block[1:])))]
    return [out]


def ref_space_to_batch(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, block, begin, end = x[0], [int(v) for v in x[1]], [int(v) for v in x[2]], [int(v) for v in x[3]]
    batch, *space = data.shape
    padded = [d + b + e for d, b, e in zip(space, begin[1:], end[1:])]
    small = [p // b for p, b in zip(padded, block[1:])]
    out = np.zeros((batch * int(np.prod(block)), *small), data.dtype)
    for pos in np.ndindex(*out.shape):
        group, n = divmod(pos[0], batch)
        offsets = np.unravel_index(group, block[1:]) if block[1:] else ()
        src = [p * b + o - pb for p, b, o, pb in zip(pos[1:], block[1:], offsets, begin[1:])]
        if all(0 <= s < d for s, d in zip(src, space)):
            out[pos] = data[(n, *src)]
    return [out]


rand = random_arrays(table_rng("BatchToSpace-2"))  # the table's own generator
BATCH_TO_SPACE = OpTable("BatchToSpace", "opset2", reference=ref_batch_to_space, cases=[
    Case("nchw-2x2", [rand((8, 3, 2, 3)), i64(1, 1, 2, 2), i64(0, 0, 0, 0), i64(0, 0, 0, 0)], const=(1, 2, 3)),
    Case("crops", [rand((12, 2, 3, 4), np.int32), i64(1, 1, 3, 2), i64(0, 1, 2, 1), i64(0, 0, 1, 2)], const=(1, 2, 3)),
    Case("nhwc-i32-inputs", [rand((4, 2, 2, 3), np.float16), np.array([1, 2, 2, 1], np.int32),
                             np.array([0, 1, 0, 0], np.int32), np.array([0, 0, 1, 0], np.int32)], const=(1, 2, 3)),
    Case("rank2", [rand((6, 4), np.uint8), i64(1, 3), i64(0, 2), i64(0, 1)], const=(1, 2, 3)),
    Case("rank5", [rand((8, 1, 2, 1, 2), BF16), i64(1, 1, 2, 2, 2), i64(0, 0, 1, 0, 0), i64(0, 0, 0, 1, 2)],
         const=(1, 2, 3)),
    Case("block1", [rand((3, 4), np.int64), i64(1, 1), i64(0, 0), i64(0, 0)], const=(1, 2, 3)),
    Case("bool", [rand((4, 2, 1), bool), i64(1, 2, 2), i64(0, 0, 1), i64(0, 1, 0)], const=(1, 2, 3)),
    Case("crop-all", [rand((4, 2, 3)), i64(1, 2, 2), i64(0, 4, 0), i64(0, 0, 0)], const=(1, 2, 3)),
    Case("run-time-values", [rand((4, 2, 3)), i64(1, 2, 2), i64(0, 1, 0), i64(0, 0, 2)]),
    Case("run-time-crops", [rand((4, 2, 3)), i64(1, 2, 2), i64(0, 1, 0), i64(0, 0, 2)], const=(1,)),
], errors=[
    ErrorCase("batch-not-multiple", [rand((6, 2, 2)), i64(1, 2, 2), i64(0, 0, 0), i64(0, 0, 0)], const=(1, 2, 3),
              code="incompatible-inputs"),
    ErrorCase("block-zero", [rand((4, 2, 2)), i64(1, 0, 2), i64(0, 0, 0), i64(0, 0, 0)], const=(1, 2, 3), code="bad-value"),
    ErrorCase("block-batch", [rand((4, 2, 2)), i64(2, 1, 2), i64(0, 0, 0), i64(0, 0, 0)], const=(1, 2, 3), code="bad-value",
              ov="OpenVINO's shape inference scales the batch by block_shape[0], which its kernel ignores"),
    ErrorCase("crop-negative", [rand((4, 2, 2)), i64(1, 2, 2), i64(0, -1, 0), i64(0, 0, 0)], const=(1, 2, 3),
              code="bad-value"),
    ErrorCase("crop-too-much", [rand((4, 2, 2)), i64(1, 2, 2), i64(0, 3, 0), i64(0, 2, 0)], const=(1, 2, 3),
              code="bad-value"),
    ErrorCase("length", [rand((4, 2, 2)), i64(1, 2), i64(0, 0), i64(0, 0)], const=(1, 2, 3), code="incompatible-inputs"),
    ErrorCase("lengths-differ", [rand((4, 2, 2)), i64(1, 2, 2), i64(0, 0), i64(0, 0, 0)], const=(1, 2, 3),
              code="incompatible-inputs"),
    ErrorCase("rank1", [rand((4,)), i64(1), i64(0), i64(0)], const=(1, 2, 3), code="bad-input-rank"),
    ErrorCase("float-block", [rand((4, 2)), np.array([1, 4], np.float32), i64(0, 0), i64(0, 0)], const=(1, 2, 3),
              code="bad-input-type"),
    ErrorCase("mixed-types", [rand((4, 2)), np.array([1, 4], np.int32), i64(0, 0), i64(0, 0)], const=(1, 2, 3),
              code="bad-input-type"),
])

# OpenVINO's reference (constant folding) pads with zeros; its CPU plugin does not (docs/behaviour.md)
PAD_END_BLOCK = ("OpenVINO CPU fills the pads_end of a spatial dim (rank 4 or more) that the division leaves one "
                 "block long with data instead of zeros")
rand = random_arrays(table_rng("SpaceToBatch-2"))  # the table's own generator
SPACE_TO_BATCH = OpTable("SpaceToBatch", "opset2", reference=ref_space_to_batch, cases=[
    Case("nchw-2x2", [rand((2, 3, 4, 6)), i64(1, 1, 2, 2), i64(0, 0, 0, 0), i64(0, 0, 0, 0)], const=(1, 2, 3)),
    Case("pads", [rand((1, 2, 3, 4), np.int32), i64(1, 1, 3, 2), i64(0, 1, 2, 1), i64(0, 0, 1, 1)], const=(1, 2, 3)),
    Case("nhwc-i32-inputs", [rand((2, 3, 2, 3), np.float16), np.array([1, 2, 2, 1], np.int32),
                             np.array([0, 1, 0, 0], np.int32), np.array([0, 0, 2, 0], np.int32)], const=(1, 2, 3)),
    Case("rank2", [rand((2, 4), np.uint8), i64(1, 3), i64(0, 2), i64(0, 0)], const=(1, 2, 3)),
    Case("rank5", [rand((1, 1, 3, 1, 2), BF16), i64(1, 1, 2, 2, 2), i64(0, 0, 1, 1, 1), i64(0, 0, 0, 0, 1)],
         const=(1, 2, 3)),
    Case("pad-end-one-block", [rand((1, 4, 1, 2)), i64(1, 2, 2, 1), i64(0, 0, 0, 0), i64(0, 0, 1, 0)], const=(1, 2, 3),
         ov=PAD_END_BLOCK),
    Case("pad-end-one-block-rank5", [rand((1, 1, 3, 1, 2), np.int32), i64(1, 1, 2, 2, 2), i64(0, 0, 1, 0, 1),
                                      i64(0, 0, 0, 1, 1)], const=(1, 2, 3), ov=PAD_END_BLOCK),
    Case("block1", [rand((3, 4), np.int64), i64(1, 1), i64(0, 0), i64(0, 0)], const=(1, 2, 3)),
    Case("bool", [rand((1, 3, 2), bool), i64(1, 2, 2), i64(0, 0, 1), i64(0, 1, 1)], const=(1, 2, 3)),
    Case("mixed-index-types", [rand((1, 4, 2)), np.array([1, 2, 2], np.int32), i64(0, 0, 1), np.array([0, 0, 1], np.uint8)],
         const=(1, 2, 3)),
    Case("run-time-values", [rand((2, 3, 2)), i64(1, 2, 2), i64(0, 1, 1), i64(0, 0, 1)]),
], errors=[
    ErrorCase("not-multiple", [rand((1, 3, 2)), i64(1, 2, 2), i64(0, 0, 0), i64(0, 0, 0)], const=(1, 2, 3),
              code="incompatible-inputs"),
    ErrorCase("block-zero", [rand((1, 2, 2)), i64(1, 0, 2), i64(0, 0, 0), i64(0, 0, 0)], const=(1, 2, 3), code="bad-value"),
    ErrorCase("block-batch", [rand((1, 2, 2)), i64(2, 1, 2), i64(0, 0, 0), i64(0, 0, 0)], const=(1, 2, 3), code="bad-value",
              ov="OpenVINO's shape inference scales the batch by block_shape[0], which its kernel ignores"),
    ErrorCase("pad-negative", [rand((1, 4, 2)), i64(1, 2, 2), i64(0, -2, 0), i64(0, 0, 0)], const=(1, 2, 3),
              code="bad-value", ov=OV_VALUE_UNCHECKED),
    ErrorCase("length", [rand((1, 2, 2)), i64(1, 2), i64(0, 0), i64(0, 0)], const=(1, 2, 3), code="incompatible-inputs"),
    ErrorCase("lengths-differ", [rand((1, 2, 2)), i64(1, 2, 2), i64(0, 0), i64(0, 0, 0)], const=(1, 2, 3),
              code="incompatible-inputs"),
    ErrorCase("rank1", [rand((4,)), i64(1), i64(0), i64(0)], const=(1, 2, 3), code="bad-input-rank"),
])

test_conformance = conformance([BATCH_TO_SPACE, SPACE_TO_BATCH])
