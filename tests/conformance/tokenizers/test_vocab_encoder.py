"""Conformance table of VocabEncoder (openvino_tokenizers) against OpenVINO with the extension loaded."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("openvino_tokenizers")
from conformance.harness import Case, ErrorCase, OpTable, conformance  # noqa: E402
from conformance.tokenizers.ragged_inputs import strings  # noqa: E402

VOCAB = ["[UNK]", "hello", "world", "héllo", "日本", "", "hello"]


def encode(id_: str, words: list[str | bytes], dtype: type = np.int32, default: int = 0, **kw: object) -> Case:
    return Case(id_, [*strings(words), *strings(VOCAB), np.arange(10, 10 + len(VOCAB)).astype(dtype),
                      np.array(default, dtype)], const=(3, 4, 5, 6, 7), dynamic=True, **kw)  # type: ignore[arg-type]


VOCAB_ENCODER = OpTable("VocabEncoder", "extension", cases=[
    encode("words", ["hello", "world", "nope", "héllo", "日本", "", "Hello"],
           expect=[np.array([11, 12, 0, 13, 14, 15, 0], np.int32)]),
    encode("i64-values", ["world", "x"], np.int64, default=-1),
    encode("no-words", []),
], errors=[
    ErrorCase("values-f32", [*strings(["a"]), *strings(["a"]), np.zeros(1, np.float32), np.array(0, np.float32)],
              code="bad-input-type"),
])

test_conformance = conformance([VOCAB_ENCODER])
