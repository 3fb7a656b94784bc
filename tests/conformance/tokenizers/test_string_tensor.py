"""Conformance tables of openvino_tokenizers' own StringTensorUnpack and StringTensorPack
(``version="extension"``) against OpenVINO with the extension loaded."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("openvino_tokenizers")
from conformance.harness import Case, ErrorCase, OpTable, conformance  # noqa: E402
from irexec.base import strings  # noqa: E402

TEXTS = np.array(["", "a", "héllo", "日本語", "👩‍👩‍👧", "tab\tx"])


def packed(items: list[str]) -> np.ndarray:
    """The older packed u8 form: an i32 count, count + 1 offsets, the bytes."""
    return np.frombuffer(strings.pack(strings.from_numpy(np.array(items))), np.uint8).copy()


MODE = {"mode": "begins_ends"}
UNPACK = OpTable("StringTensorUnpack", "extension", cases=[
    Case("strings", [TEXTS], attrs=MODE, dynamic=True),
    Case("2d", [TEXTS.reshape(2, 3)], attrs=MODE, dynamic=True),
    Case("packed-u8", [packed(["ab", "", "日本"])], attrs=MODE, dynamic=True,
         expect=[np.array([0, 2, 2], np.int32), np.array([2, 2, 8], np.int32), np.frombuffer("ab日本".encode(), np.uint8)]),
], errors=[
    ErrorCase("f32", [np.zeros(3, np.float32)], attrs=MODE, code="bad-input-type"),
    ErrorCase("other-mode", [TEXTS], attrs={"mode": "offsets"}, code="bad-attribute"),
])

PACK = OpTable("StringTensorPack", "extension", cases=[
    Case("pack", [np.array([0, 1, 1], np.int32), np.array([1, 1, 4], np.int32), np.frombuffer(b"abcd", np.uint8).copy()],
         attrs=MODE, dynamic=True),
    Case("i64", [np.array([[0, 2]], np.int64), np.array([[2, 5]], np.int64), np.frombuffer("héllo".encode(), np.uint8).copy()],
         attrs=MODE, dynamic=True),
], errors=[
    ErrorCase("symbols-2d", [np.zeros(2, np.int32), np.zeros(2, np.int32), np.zeros((1, 3), np.uint8)], attrs=MODE,
              code="bad-input-rank"),
])

test_conformance = conformance([UNPACK, PACK])
