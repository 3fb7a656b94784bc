"""Conformance tables of BytesToChars and CharsToBytes (openvino_tokenizers) against
OpenVINO with the extension loaded."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("openvino_tokenizers")
from conformance.harness import Case, OpTable, conformance  # noqa: E402
from conformance.tokenizers.ragged_inputs import ragged_strings  # noqa: E402
from irexec.ops.tokenizers.byte_level import TO_CHARS  # noqa: E402

EVERY_BYTE = bytes(range(256))
BYTES_TO_CHARS = OpTable("BytesToChars", "extension", cases=[
    Case("every-byte", ragged_strings([[EVERY_BYTE[:100], EVERY_BYTE[100:]], [], [b"", "héllo 日本".encode()]]),
         dynamic=True),
    Case("with-skips", [*ragged_strings([[b"a b", b"<s>", b"\xff"]]), np.array([False, True, False])], dynamic=True),
    Case("hand-worked", ragged_strings([[b" a\n"]]), dynamic=True,
         expect=[np.array([0], np.int32), np.array([1], np.int32), np.array([0], np.int32), np.array([5], np.int32),
                 np.frombuffer("ĠaĊ".encode(), np.uint8)]),
])

CHARS = [b"".join(TO_CHARS[x] for x in piece) for piece in (EVERY_BYTE[:128], EVERY_BYTE[128:], " héllo".encode(), b"")]
CHARS_TO_BYTES = OpTable("CharsToBytes", "extension", cases=[
    Case("every-byte", ragged_strings([[CHARS[0], CHARS[1]], [], [CHARS[2], CHARS[3]]]), dynamic=True,
         expect=[np.array([0, 256, 256], np.int32), np.array([256, 256, 263], np.int32),
                 np.frombuffer(EVERY_BYTE + " héllo".encode(), np.uint8)]),
])

test_conformance = conformance([BYTES_TO_CHARS, CHARS_TO_BYTES])
