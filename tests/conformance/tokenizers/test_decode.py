"""Conformance tables of VocabDecoder, FuzeRagged and UTF8Validate
(openvino_tokenizers) against OpenVINO with the extension loaded: ids past the
vocabulary, negative and skipped ids, and invalid UTF-8 of every kind."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("openvino_tokenizers")
from conformance.harness import Case, ErrorCase, OpTable, conformance  # noqa: E402
from conformance.tokenizers.ragged_inputs import ragged_strings, strings  # noqa: E402

VOCAB = [b"<eos>", b"a", b" b", b"\xc3", b"\xa9", b"\xe2\x98", b"\x83", b"", "日本".encode(), b" \xf0\x9f\x91", b"\xa9"]


def decoder(id_: str, ids: np.ndarray, skip: list[int] | None = None, **kw: object) -> Case:
    inputs = [ids.astype(np.int32), *strings(VOCAB)] + ([np.array(skip, np.int32)] if skip is not None else [])
    return Case(id_, inputs, attrs={"skip_tokens": ""}, const=tuple(range(1, len(inputs))), dynamic=True, **kw)  # type: ignore[arg-type]


VOCAB_DECODER = OpTable("VocabDecoder", "extension", cases=[
    decoder("simple", np.array([[1, 2, 2], [8, 0, 1]]), [0],
            expect=[np.array([0, 3], np.int32), np.array([3, 6], np.int32), np.array([0, 1, 3, 5, 11, 11], np.int32),
                    np.array([1, 3, 5, 11, 11, 12], np.int32), np.frombuffer(b"a b b\xe6\x97\xa5\xe6\x9c\xaca", np.uint8)]),
    decoder("out-of-range-and-negative", np.array([[1, 11, -1, 99, 2]]), [0]),
    decoder("split-utf8", np.array([[3, 4, 5, 6, 9, 10], [4, 3, 6, 5, 7, 0]]), []),
    decoder("no-skip-input", np.array([[0, 1, 0]])),
    decoder("no-tokens", np.zeros((3, 0), np.int64)),
])


FUZE = OpTable("FuzeRagged", "extension", cases=[
    Case("rows", [np.array([0, 2, 2], np.int32), np.array([2, 2, 5], np.int32), np.array([0, 3, 3, 4, 9], np.int32),
                  np.array([3, 3, 4, 9, 12], np.int32)], dynamic=True,
         expect=[np.array([0, 3, 3], np.int32), np.array([3, 4, 12], np.int32)]),  # an empty row: the end at its own index
    Case("one-string-rows", [*ragged_strings([["ab"], ["c"], ["def"]])[:4]], dynamic=True),
], errors=[
    ErrorCase("i64-offsets", [np.zeros(2, np.int64), np.zeros(2, np.int32), np.zeros(2, np.int32), np.zeros(2, np.int32)],
              code="bad-input-type"),
])

INVALID = [b"plain", "héllo 日本 👩‍👧".encode(), b"\xff", b"a\x80b", b"\xc3", b"\xc3(", b"\xe2\x98", b"\xe2\x98(",
           b"\xf0\x9f\x91", b"\xc0\x80", b"\xc1\xbf", b"\xe0\x80\x80", b"\xf0\x80\x80\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80",
           b"\xf8\x88\x80\x80\x80", b"\xfe\xff", b"", b"\x00", b"ok\xe2\x82\xacok", b"\xc3\xa9\xa9"]


def validate(id_: str, items: list[bytes], replace: bool, **kw: object) -> Case:
    return Case(id_, strings(items), attrs={"replace_mode": replace}, dynamic=True, **kw)  # type: ignore[arg-type]


UTF8_VALIDATE = OpTable("UTF8Validate", "extension", cases=[
    validate("replace", INVALID, True),
    validate("drop", INVALID, False),
    validate("hand-worked", [b"a\xffb", b"\xe2\x98"], True,
             expect=[np.array([0, 5], np.int32), np.array([5, 8], np.int32),
                     np.frombuffer(b"a\xef\xbf\xbdb\xef\xbf\xbd", np.uint8)]),
    validate("valid", [b"abc", "ß".encode()], True),
])

BYTE_FALLBACK = OpTable("ByteFallback", "extension", cases=[
    Case("pieces", strings(["<0x41>", "b", "<0xC3>", "<0xA9>", "<0x0a>", "<abcd>", "<0x4>", "<0x41>x", "", "<0xFF>"]),
         dynamic=True, expect=[np.array([0, 1, 2, 3, 4, 5, 6, 11, 18, 18], np.int32),
                               np.array([1, 2, 3, 4, 5, 6, 11, 18, 18, 19], np.int32),
                               np.frombuffer(b"Ab\xc3\xa9\xff\xff<0x4><0x41>x\xff", np.uint8)]),
    Case("no-pieces", strings([]), dynamic=True),
])

test_conformance = conformance([VOCAB_DECODER, FUZE, UTF8_VALIDATE, BYTE_FALLBACK])
