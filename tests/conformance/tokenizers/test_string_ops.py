"""Conformance tables of EqualStr, StringToHashBucket, ContribStringJoin and
ContribStringSplit (openvino_tokenizers) against OpenVINO with the extension loaded."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("openvino_tokenizers")
from conformance.harness import Case, ErrorCase, OpTable, conformance  # noqa: E402
from conformance.tokenizers.ragged_inputs import pattern, strings  # noqa: E402

WORDS = ["apple", "", "pear", "日本", "apple"]


def _equal(inputs: list[np.ndarray], attrs: dict) -> list[np.ndarray]:
    def texts(b: np.ndarray, e: np.ndarray, c: np.ndarray) -> list[bytes]:
        raw = c.tobytes()
        return [raw[x:y] for x, y in zip(b.reshape(-1), e.reshape(-1))]
    a, b = texts(*inputs[:3]), texts(*inputs[3:])
    n = 0 if not a or not b else max(len(a), len(b))
    return [np.array([int(a[k % len(a)] == b[k % len(b)]) for k in range(n)], np.int32)]


def equal(id_: str, a: list[str], b: list[str], **kw: object) -> Case:
    return Case(id_, [*strings(a), *strings(b)], dynamic=True, **kw)  # type: ignore[arg-type]


EQUAL = OpTable("EqualStr", "extension", reference=_equal, cases=[
    equal("same-length", WORDS, ["apple", "", "peach", "日本", "Apple"], expect=[np.array([1, 1, 0, 1, 0], np.int32)]),
    equal("one-against-many", ["apple"], WORDS),
    equal("many-against-one", WORDS, [""]),
    equal("empty", WORDS, []),
    equal("prefix", ["app", "apple"], ["apple", "app"]),
], errors=[
    ErrorCase("i64-begins", [np.zeros(1, np.int64), *strings(["a"])[1:], *strings(["a"])], code="bad-input-type"),
])

# every length FarmHash's Fingerprint64 takes its own way for: 0, 1-3, 4-7, 8-16, 17-32, 33-64, and loops past 64
RNG = np.random.default_rng(51)
HASHED = [bytes(RNG.integers(0, 256, n, dtype=np.uint8)) for n in (0, 1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 63,
                                                                  64, 65, 127, 128, 129, 200, 1000)]


def hashed(id_: str, items: list[str | bytes], buckets: int, shape: tuple[int, ...] | None = None, **kw: object) -> Case:
    b, e, c = strings(items)
    if shape is not None:
        b, e = b.reshape(shape), e.reshape(shape)
    return Case(id_, [b, e, c], attrs={"num_buckets": buckets}, dynamic=True, **kw)  # type: ignore[arg-type]


HASH = OpTable("StringToHashBucket", "extension", cases=[
    hashed("every-length-path", HASHED, 1 << 62),
    hashed("words", ["hello", "world", "", "日本語", "a longer sentence of more than thirty-two bytes"], 1000),
    # Fingerprint64("") % 2^62 is k2 % 2^62
    hashed("empty-string", [""], 1 << 62, expect=[np.array([0x9AE16A3B2F90404F % (1 << 62)], np.int64)]),
    hashed("one-bucket", ["a", "b"], 1, expect=[np.zeros(2, np.int64)]),
    hashed("2-d", ["a", "bb", "ccc", "dddd", "eeeee", "ffffff"], 7, shape=(2, 3)),
], errors=[
    ErrorCase("zero-buckets", strings(["a"]), attrs={"num_buckets": 0}, code="bad-attribute"),
    ErrorCase("i64-ends", [np.zeros(1, np.int32), np.ones(1, np.int64), np.zeros(1, np.uint8)], attrs={"num_buckets": 3},
              code="bad-input-type"),
])


def join(id_: str, items: list[str], shape: tuple[int, ...], sep: str, axis: int, **kw: object) -> Case:
    b, e, c = strings(items)
    return Case(id_, [b.reshape(shape), e.reshape(shape), c, pattern(sep), np.array(axis, np.int64)], const=(3, 4),
                dynamic=True, **kw)  # type: ignore[arg-type]


GRID = ["a", "bb", "", "ccc", "日本", "d"]

JOIN = OpTable("ContribStringJoin", "extension", cases=[
    join("rows", GRID, (2, 3), ", ", 1, expect=[np.array([0, 7], np.int32), np.array([7, 21], np.int32),
                                                  np.frombuffer("a, bb, ccc, 日本, d".encode(), np.uint8)]),
    join("columns", GRID, (2, 3), "-", 0),
    join("negative-axis", GRID, (2, 3), "+", -2),
    join("rank-1", GRID, (6,), " ", 0),
    join("rank-3", GRID * 2, (2, 3, 2), "|", 1),
    join("empty-separator", GRID, (3, 2), "", 1),
    join("one-string", ["only"], (1, 1), ",", 1),
    join("no-strings-along-the-axis", [], (0, 3), ",", 0),
    Case("rank-0", [np.array(0, np.int32), np.array(3, np.int32), pattern("abc"), pattern(","), np.array(0, np.int32)],
         const=(3, 4)),
], errors=[
    ErrorCase("axis-out-of-range", [*[x.reshape(2, 3) for x in strings(GRID)[:2]], strings(GRID)[2], pattern(","),
                                    np.array(2, np.int64)], const=(3, 4), code="axis-out-of-range",
              ov="OpenVINO's shape inference drops no dim for an axis past the rank (its run refuses it)"),
    ErrorCase("f32-axis", [*strings(GRID), pattern(","), np.array(0, np.float32)], const=(3, 4), code="bad-input-type"),
])


def split(id_: str, items: list[str], delim: str, skip: bool, shape: tuple[int, ...] | None = None,
          **kw: object) -> Case:
    b, e, c = strings(items)
    if shape is not None:
        b, e = b.reshape(shape), e.reshape(shape)
    return Case(id_, [b, e, c, pattern(delim), np.array(skip)], const=(3, 4), dynamic=True, **kw)  # type: ignore[arg-type]


CSV = ["a,b,,c", "", ",", "abc", "日本,語"]

SPLIT = OpTable("ContribStringSplit", "extension", cases=[
    split("keep-empty", CSV, ",", False,
          expect=[np.array([[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [2, 0], [2, 1], [3, 0], [4, 0], [4, 1]], np.int64),
                  np.array([0, 1, 2, 2, 3, 3, 3, 3, 6, 12], np.int32), np.array([1, 2, 2, 3, 3, 3, 3, 6, 12, 15], np.int32),
                  np.frombuffer("abcabc日本語".encode(), np.uint8), np.array([5, 4], np.int64)]),
    split("skip-empty", CSV, ",", True),
    split("two-byte-delimiter", ["a, b, c", ", ,", "x"], ", ", False),
    split("every-byte", ["ab", "", "日"], "", False),
    split("rank-2", CSV + ["z"], ",", False, shape=(2, 3)),
    Case("u8-skip", [*strings(CSV), pattern(","), np.array([1], np.uint8)], const=(3, 4), dynamic=True),
], errors=[
    ErrorCase("i32-skip", [*strings(CSV), pattern(","), np.array(1, np.int32)], const=(3, 4), code="bad-input-type"),
])

test_conformance = conformance([EQUAL, HASH, JOIN, SPLIT])
