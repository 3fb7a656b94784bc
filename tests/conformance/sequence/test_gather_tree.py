"""Conformance table of GatherTree-1: exact.  The reference follows each
beam's parents back from its last step, as the spec describes."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.harness import OV_VALUE_UNCHECKED, Case, ErrorCase, OpTable, conformance, random_arrays, table_rng


def ref_gather_tree(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    step_ids, parents, max_seq_len, end_token = x
    time, batch, beams = step_ids.shape
    out = np.full(step_ids.shape, end_token, step_ids.dtype)
    for b in range(batch):
        n = min(time, int(max_seq_len[b]))
        for k in range(beams):
            parent = k
            for t in range(n - 1, -1, -1):
                out[t, b, k] = step_ids[t, b, parent]
                parent = int(parents[t, b, parent])
            finished = False
            for t in range(n):
                if finished:
                    out[t, b, k] = end_token
                elif int(out[t, b, k]) == int(end_token):
                    finished = True
    return [out]


def beams(rng: np.random.Generator, time: int, batch: int, width: int, dtype: Any = np.int32) -> tuple[np.ndarray, np.ndarray]:
    """step_ids in [0, 10) and valid parents in [0, width)."""
    return (rng.integers(0, 10, (time, batch, width)).astype(dtype),
            rng.integers(0, width, (time, batch, width)).astype(dtype))


rng = table_rng("GatherTree-1")  # the table's own generator
rand = random_arrays(rng)
s1, p1 = beams(rng, 6, 2, 3)
s2, p2 = beams(rng, 5, 3, 2, np.float32)
s3, p3 = beams(rng, 4, 1, 4, np.int64)
s4, p4 = beams(rng, 3, 2, 2)
bad_parents = p4.copy()
bad_parents[2, 0, 1] = 2
GATHER_TREE = OpTable("GatherTree", "opset1", reference=ref_gather_tree, cases=[
    Case("i32", [s1, p1, np.array([6, 4], np.int32), np.array(3, np.int32)]),
    Case("f32", [s2, p2, np.array([5, 2, 3], np.float32), np.array(7, np.float32)]),
    Case("max-seq-len-0", [s2, p2, np.array([4, 0, 5], np.float32), np.array(7, np.float32)],
         ov="OpenVINO CPU leaves the output of a batch whose max_seq_len is 0 uninitialised"),
    Case("i64-long-max", [s3, p3, np.array([9], np.int64), np.array(1, np.int64)]),
    Case("end-const", [s1, p1, np.array([2, 6], np.int32), np.array(0, np.int32)], const=(3,)),
    Case("spec-example", [np.array([[[1, 2, 3]], [[4, 5, 6]], [[7, 8, 9]], [[-1, -1, -1]]], np.int32),
                          np.array([[[0, 0, 0]], [[0, 1, 1]], [[2, 1, 2]], [[-1, -1, -1]]], np.int32),
                          np.array([3], np.int32), np.array(10, np.int32)],
         expect=[np.array([[[2, 2, 2]], [[6, 5, 6]], [[7, 8, 9]], [[10, 10, 10]]], np.int32)]),
], errors=[
    ErrorCase("shapes", [s1, p1[:5], np.array([6, 4], np.int32), np.array(3, np.int32)], code="incompatible-inputs"),
    ErrorCase("batch", [s1, p1, np.array([6, 4, 1], np.int32), np.array(3, np.int32)], code="incompatible-inputs"),
    ErrorCase("end-rank", [s1, p1, np.array([6, 4], np.int32), np.array([3], np.int32)], code="bad-input-rank"),
    ErrorCase("types", [s1, p1.astype(np.int64), np.array([6, 4], np.int32), np.array(3, np.int32)],
              code="bad-input-type"),
    ErrorCase("rank", [s1[0], p1[0], np.array([6, 4], np.int32), np.array(3, np.int32)], code="bad-input-rank"),
    ErrorCase("parent-out-of-range", [s4, bad_parents, np.array([3, 3], np.int32), np.array(0, np.int32)],
              const=(0, 1, 2, 3), code="bad-value", ov=OV_VALUE_UNCHECKED),
])

test_conformance = conformance([GATHER_TREE])
