"""Conformance tables of RaggedTensorPack, RaggedToRagged and RaggedToSparse
(openvino_tokenizers) against OpenVINO with the extension loaded."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("openvino_tokenizers")
from conformance.harness import Case, ErrorCase, OpTable, conformance  # noqa: E402
from conformance.tokenizers.ragged_inputs import ragged  # noqa: E402

ROWS = [[5, 6, 7], [], [1], [2, 3, 4, 5], []]


def i32(*values: int) -> np.ndarray:
    return np.array(values, np.int32)


def _ragged_to_ragged(inputs: list[np.ndarray], attrs: dict) -> list[np.ndarray]:
    """Row r holds the elements whose row id is r (the ids sorted)."""
    ids, batch = inputs[0].reshape(-1), int(inputs[1].reshape(-1)[0])
    begins = [int(np.sum(ids < r)) for r in range(batch)]
    return [np.array(begins, np.int32), np.array([b + int(np.sum(ids == r)) for r, b in enumerate(begins)], np.int32)]


def _ragged_to_sparse(inputs: list[np.ndarray], attrs: dict) -> list[np.ndarray]:
    pairs = [(r, j) for r, (b, e) in enumerate(zip(inputs[0].reshape(-1), inputs[1].reshape(-1))) for j in range(e - b)]
    return [np.array(pairs, np.int32).reshape(-1, 2)]


PACK = OpTable("RaggedTensorPack", "extension", reference=lambda inputs, attrs: [inputs[2]], cases=[
    Case("i32-rows", ragged(ROWS), dynamic=True),
    Case("f32-rows", ragged(ROWS, np.float32), dynamic=True),
    Case("2-d-elements", [i32(0, 1), i32(1, 3), np.arange(12, dtype=np.float32).reshape(3, 4)]),
], errors=[
    ErrorCase("i64-begins", [np.zeros(2, np.int64), i32(1, 2), i32(1, 2)], code="bad-input-type"),
])


def to_ragged(id_: str, ids: list[int], batch: int, **kw: object) -> Case:
    return Case(id_, [np.array(ids, np.int32), i32(batch)], const=(1,), dynamic=True, **kw)  # type: ignore[arg-type]


RAGGED_TO_RAGGED = OpTable("RaggedToRagged", "extension", reference=_ragged_to_ragged, cases=[
    to_ragged("sorted", [0, 0, 1, 3, 3], 5, expect=[i32(0, 2, 3, 3, 5), i32(2, 3, 3, 5, 5)]),
    to_ragged("leading-empty-rows", [2, 2, 3], 4),
    to_ragged("trailing-empty-rows", [0, 1, 1], 6),
    to_ragged("no-elements", [], 3),
    to_ragged("no-rows", [], 0),
    to_ragged("one-row", [0, 0, 0, 0], 1),
    # ids past first_dim_size: the extension stops at the first and leaves the row before it unwritten
    to_ragged("ids-past-the-rows", [0, 0, 2], 2,
              ov="the extension leaves the last row before an id past first_dim_size unwritten (uninitialised memory)"),
    Case("size-as-a-parameter", [i32(0, 1, 1), i32(3)], dynamic=True),
], errors=[
    ErrorCase("i64-row-ids", [np.zeros(2, np.int64), i32(2)], const=(1,), code="bad-input-type"),
    ErrorCase("i64-size", [i32(0, 0), np.array([2], np.int64)], const=(1,), code="bad-input-type"),
])


RAGGED_TO_SPARSE = OpTable("RaggedToSparse", "extension", reference=_ragged_to_sparse, cases=[
    Case("rows", ragged(ROWS)[:2], dynamic=True,
         expect=[np.array([[0, 0], [0, 1], [0, 2], [2, 0], [3, 0], [3, 1], [3, 2], [3, 3]], np.int32)]),
    Case("offset-rows", [i32(4, 6, 6), i32(6, 6, 9)], dynamic=True),
    Case("all-empty", [i32(3, 3), i32(3, 3)], dynamic=True),
    Case("no-rows", [np.zeros(0, np.int32), np.zeros(0, np.int32)], dynamic=True,
         ov="the extension reads the last end of no rows (before the tensor): its element count is garbage"),
], errors=[
    ErrorCase("i64-ends", [i32(0, 1), np.array([1, 2], np.int64)], code="bad-input-type"),
    ErrorCase("shapes-differ", [i32(0, 1), i32(1, 2, 3)], code="incompatible-inputs"),
])

test_conformance = conformance([PACK, RAGGED_TO_RAGGED, RAGGED_TO_SPARSE])
