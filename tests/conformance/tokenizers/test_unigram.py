"""Conformance table of UnigramTokenizer (openvino_tokenizers) against OpenVINO with the
extension loaded: the most probable split, unknown characters fused, f32 score sums."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("openvino_tokenizers")
from conformance.harness import Case, OpTable, conformance  # noqa: E402
from conformance.tokenizers.ragged_inputs import ragged_strings, strings  # noqa: E402

VOCAB = ["<unk>", "▁", "a", "b", "ab", "▁ab", "abc", "c", "日", "本", "日本", "é", "▁the", "th", "e"]
SCORES = np.array([0, -2, -3, -3, -2.5, -3.1, -4, -3, -5, -5, -6, -4, -1, -2, -2], np.float32)
ATTRS = {"byte_fallback": False, "unk_token_id": 0, "fuse_unk": True, "min_score": 0.0}


def unigram(id_: str, rows: list[list[str]], scores: np.ndarray = SCORES, **kw: object) -> Case:
    return Case(id_, [*ragged_strings(rows), *strings(VOCAB), scores], attrs=ATTRS, const=(5, 6, 7, 8), dynamic=True,
                **kw)  # type: ignore[arg-type]


UNIGRAM = OpTable("UnigramTokenizer", "extension", cases=[
    unigram("splits", [["▁abc", "▁the", "ab", "abcab"], ["日本", "é"], [], ["", "▁"]]),
    unigram("unknown-fused", [["xyz", "axxb", "a\u0301", "👩‍👧"]],
            expect=[np.array([0], np.int32), np.array([7], np.int32), np.array([0, 2, 0, 3, 2, 0, 0], np.int32)]),
    unigram("ties-and-close-scores", [["abab", "ababc", "the"]],
            scores=np.array([0, -1, -1, -1, -2, -1, -3, -1, -1, -1, -2, -1, -1, -1, -1], np.float32) + np.float32(1e-7)),
])

test_conformance = conformance([UNIGRAM])
