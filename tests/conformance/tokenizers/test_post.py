"""Conformance tables of Truncate, CombineSegments and RaggedToDense
(openvino_tokenizers) against OpenVINO with the extension loaded."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("openvino_tokenizers")
from conformance.harness import OV_TYPE_UNCHECKED, Case, ErrorCase, OpTable, conformance  # noqa: E402
from conformance.tokenizers.ragged_inputs import pattern, ragged  # noqa: E402

ROWS = [[5, 6, 7, 8, 9, 10], [], [1], [2, 3, 4, 5]]
OTHER = [[20, 21], [22, 23, 24, 25, 26], [], [27, 28, 29, 30, 31, 32, 33]]


def truncate(id_: str, rows: list[list[int]], max_length: int, side: str = "right", second: list[list[int]] | None = None,
             mode: str = "longest_first", **kw: object) -> Case:
    first = ragged(rows)
    extra = ragged(second) if second is not None else []
    inputs = [*first, *extra, np.array(max_length, np.int32), pattern(side), pattern(mode)]
    return Case(id_, inputs, attrs={"m_num_inputs": 2 if second else 1}, const=tuple(range(len(inputs) - 3, len(inputs))),
                dynamic=True, **kw)  # type: ignore[arg-type]


TRUNCATE = OpTable("Truncate", "extension", cases=[
    truncate("right", ROWS, 3, expect=[np.array([0, 6, 6, 7], np.int32), np.array([3, 6, 7, 10], np.int32),
                                       np.array([5, 6, 7, 8, 9, 10, 1, 2, 3, 4, 5], np.int32)]),
    truncate("left", ROWS, 3),
    truncate("at-the-limit", ROWS, 6),
    truncate("zero", ROWS, 0),
    truncate("pair-longest-first-right", ROWS, 5, second=OTHER),
    truncate("pair-longest-first-left", ROWS, 4, "left", second=OTHER),
    truncate("pair-odd-limit", ROWS, 7, second=OTHER),
    truncate("pair-only-first", ROWS, 3, second=OTHER, mode="only_first"),
    truncate("pair-only-second", ROWS, 3, "left", second=OTHER, mode="only_second"),
], errors=[
    ErrorCase("max-length-i64", [*ragged(ROWS), np.array(3, np.int64), pattern("right"), pattern("longest_first")],
              code="bad-input-type"),
])


def combine(id_: str, segments: list[list[np.ndarray]], ids: list[int], **kw: object) -> Case:
    inputs = [a for seg in segments for a in seg] + [np.array(ids, np.int32)]
    return Case(id_, inputs, const=(len(inputs) - 1,), dynamic=True, **kw)  # type: ignore[arg-type]


def scalar_segment(token: int) -> list[np.ndarray]:
    """One token for every row, as the converter writes [CLS] and [SEP]: 0-d begins and ends."""
    return [np.array(0, np.int32), np.array(1, np.int32), np.array([token], np.int32)]


COMBINE = OpTable("CombineSegments", "extension", cases=[
    combine("one-segment", [ragged(ROWS)], [0]),
    combine("bert-single", [scalar_segment(101), ragged(ROWS), scalar_segment(102)], [0, 0, 0],
            expect=[np.array([0, 8, 10, 13], np.int32), np.array([8, 10, 13, 19], np.int32),
                    np.array([101, 5, 6, 7, 8, 9, 10, 102, 101, 102, 101, 1, 102, 101, 2, 3, 4, 5, 102], np.int32)]),
    combine("bert-pair", [scalar_segment(101), ragged(ROWS), scalar_segment(102), ragged(OTHER), scalar_segment(102)],
            [0, 0, 0, 1, 1]),
    combine("ids-3-and-7", [ragged(ROWS), ragged(OTHER)], [3, 7]),
], errors=[
    # OpenVINO accepts it, declares the output i32 and copies the i64 bytes into it: refused instead
    ErrorCase("i64-elements", [*ragged(ROWS, np.int64), np.array([0], np.int32)], code="bad-input-type", ov=OV_TYPE_UNCHECKED),
])


def to_dense(id_: str, rows: list[list[int]], length: int, pad: int = 0, expect: list[np.ndarray] | None = None,
             **attrs: object) -> Case:
    return Case(id_, [*ragged(rows), np.array(length, np.int32), np.array(pad, np.int32)],
                attrs={"pad_right": True, "m_pad_max_length": False, **attrs}, const=(3, 4), dynamic=True, expect=expect)


RAGGED_TO_DENSE = OpTable("RaggedToDense", "extension", cases=[
    to_dense("pad-right", ROWS, 6, 0,
             expect=[np.array([[5, 6, 7, 8, 9, 10], [0] * 6, [1, 0, 0, 0, 0, 0], [2, 3, 4, 5, 0, 0]], np.int32),
                     np.array([[1] * 6, [0] * 6, [1, 0, 0, 0, 0, 0], [1, 1, 1, 1, 0, 0]], bool)]),
    to_dense("pad-left", ROWS, 7, -1, pad_right=False),
    to_dense("cut-right", ROWS, 2, 9),
    to_dense("cut-left", ROWS, 2, 9, pad_right=False),
    to_dense("zero-length", ROWS, 0),
    to_dense("pad-to-max-length", ROWS, 3, 0, m_pad_max_length=True),
    Case("pad-right-input", [*ragged(ROWS), np.array(5, np.int32), np.array(0, np.int32), np.array(False)],
         attrs={"pad_right": True, "m_pad_max_length": False}, const=(3, 4, 5), dynamic=True),
], errors=[
    ErrorCase("pad-value-type", [*ragged(ROWS), np.array(5, np.int32), np.array(0, np.int64)], code="bad-input-type"),
])

test_conformance = conformance([TRUNCATE, COMBINE, RAGGED_TO_DENSE])
