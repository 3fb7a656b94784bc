"""Conformance table of WordpieceTokenizer (openvino_tokenizers) against OpenVINO
with the extension loaded."""

from __future__ import annotations

import numpy as np
import pytest

ov = pytest.importorskip("openvino")
pytest.importorskip("openvino_tokenizers")
pytest.importorskip("pcre2")
from conformance.harness import Case, OpTable, conformance  # noqa: E402
from conformance.tokenizers.ragged_inputs import ragged_strings, strings  # noqa: E402

VOCAB = ["[PAD]", "[UNK]", "un", "##aff", "##able", "aff", "##a", "##b", "a", "b", "日", "##本", "e", "##\u0301", "x"]


def wordpiece(id_: str, rows: list[list[str]], unk: int = 1, max_bytes: int = 100, **kw: object) -> Case:
    return Case(id_, [*ragged_strings(rows), *strings(VOCAB), np.array(unk, np.int64)],
                attrs={"suffix_indicator": "##", "max_bytes_per_word": max_bytes}, const=(5, 6, 7, 8), dynamic=True,
                **kw)  # type: ignore[arg-type]


WORDPIECE = OpTable("WordpieceTokenizer", "extension", cases=[
    wordpiece("greedy", [["unaffable", "aff", "ab"], ["unknown", "a"], [], ["日本", "e\u0301", "ba"]],
              expect=[np.array([0, 6, 8, 8], np.int32), np.array([6, 8, 8, 14], np.int32),
                      np.array([2, 3, 4, 5, 8, 7, 1, 8, 10, 11, 12, 13, 9, 6], np.int32)]),
    wordpiece("max-bytes", [["unaffable", "ab"]], max_bytes=4),
    wordpiece("unk-id-7", [["zzz", "az"]], unk=7),
])


test_conformance = conformance([WORDPIECE])
