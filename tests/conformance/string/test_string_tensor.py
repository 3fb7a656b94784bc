"""Conformance tables of StringTensorUnpack-15 and StringTensorPack-15.  References
are plain Python over the elements' UTF-8 bytes."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, conformance, table_rng

HARD = ["", " ", "a", "  many   spaces ", "héllo", "日本語テキスト", "مرحبا", "e\u0301\u0301", "👩‍👩‍👧 family",
        "tab\tnew\nline", "a\x00b", "\u200b", "Ω≈ç√∫"]


def texts(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    picks = rng.integers(0, len(HARD), shape)
    return np.array([HARD[i] for i in picks.reshape(-1)], dtype=np.str_).reshape(shape)


def ref_unpack(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    items = [s.encode() if isinstance(s, str) else bytes(s) for s in x[0].reshape(-1).tolist()]
    begins, ends, pos = [], [], 0
    for s in items:
        begins.append(pos)
        pos += len(s)
        ends.append(pos)
    shape = x[0].shape
    return [np.array(begins, np.int32).reshape(shape), np.array(ends, np.int32).reshape(shape),
            np.frombuffer(b"".join(items), np.uint8)]


rng = table_rng("StringTensorUnpack-15")
UNPACK = OpTable("StringTensorUnpack", "opset15", reference=ref_unpack, cases=[
    Case("1d", [texts(rng, (7,))]),
    Case("2d", [texts(rng, (3, 4))]),
    Case("scalar", [np.array("scalar ☃")]),
    Case("all-empty", [np.array(["", "", ""])]),
    Case("zero-size", [np.zeros((0, 3), np.str_)]),
    Case("bytes-invalid-utf8", [np.array([b"\xff\xfe", b"ok", b"\xc3"], dtype=np.bytes_)]),
    Case("const", [texts(rng, (2, 3))], const=(0,)),
    Case("3d", [texts(rng, (2, 1, 3))]),
], errors=[
    ErrorCase("f32-data", [np.zeros(3, np.float32)], code="bad-input-type"),
    ErrorCase("u8-data", [np.zeros(3, np.uint8)], code="bad-input-type"),
])


def ref_pack(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    begins, ends, symbols = x
    raw = symbols.tobytes()
    out = np.empty(begins.shape, dtype=object)
    for idx in np.ndindex(begins.shape):
        out[idx] = raw[int(begins[idx]):int(ends[idx])]
    return [out]


def packed(rng: np.random.Generator, shape: tuple[int, ...], dtype: Any = np.int32) -> list[np.ndarray]:
    """Begins and ends over random UTF-8 bytes, overlapping and out of order as the op allows."""
    symbols = np.frombuffer("".join(HARD).encode(), np.uint8).copy()
    begins = rng.integers(0, len(symbols), shape)
    ends = np.minimum(begins + rng.integers(0, 8, shape), len(symbols))
    return [begins.astype(dtype), ends.astype(dtype), symbols]


rng = table_rng("StringTensorPack-15")
PACK = OpTable("StringTensorPack", "opset15", reference=ref_pack, cases=[
    Case("1d-i32", packed(rng, (6,))),
    Case("2d-i64", packed(rng, (2, 5), np.int64)),
    Case("scalar", [np.array(0, np.int32), np.array(3, np.int32), np.frombuffer(b"abcdef", np.uint8).copy()]),
    Case("empty-strings", [np.array([0, 2, 2], np.int32), np.array([0, 2, 2], np.int32),
                           np.frombuffer(b"xy", np.uint8).copy()]),
    Case("zero-size", [np.zeros((0,), np.int32), np.zeros((0,), np.int32), np.zeros(0, np.uint8)]),
    Case("const-offsets", [np.array([0, 1, 4, 4], np.int32), np.array([1, 4, 4, 9], np.int32),
                           np.frombuffer("añ☃xyz".encode(), np.uint8).copy()], const=(0, 1)),
    Case("split-utf8", [np.array([0, 1], np.int32), np.array([1, 3], np.int32),
                        np.frombuffer("éa".encode(), np.uint8).copy()]),
], errors=[
    ErrorCase("mixed-index-types", [np.zeros(2, np.int32), np.zeros(2, np.int64), np.zeros(3, np.uint8)], code="type-mismatch"),
    ErrorCase("shape-differs", [np.zeros(2, np.int32), np.zeros(3, np.int32), np.zeros(3, np.uint8)], code="shape-mismatch"),
    ErrorCase("const-descending", [np.array([2, 0], np.int32), np.array([3, 1], np.int32), np.zeros(3, np.uint8)],
              const=(0, 1), code="bad-value"),
    ErrorCase("const-past-symbols", [np.array([0, 1], np.int32), np.array([1, 4], np.int32), np.zeros(3, np.uint8)],
              const=(0, 1, 2), code="bad-value"),
    ErrorCase("const-negative", [np.array([-1, 1], np.int32), np.array([1, 2], np.int32), np.zeros(3, np.uint8)],
              const=(0, 1), code="bad-value"),
    ErrorCase("symbols-2d", [np.zeros(2, np.int32), np.zeros(2, np.int32), np.zeros((1, 3), np.uint8)], code="bad-input-rank"),
    ErrorCase("symbols-i8", [np.zeros(2, np.int32), np.zeros(2, np.int32), np.zeros(3, np.int8)], code="bad-input-type"),
    ErrorCase("begins-f32", [np.zeros(2, np.float32), np.zeros(2, np.float32), np.zeros(3, np.uint8)], code="bad-input-type"),
])

test_conformance = conformance([UNPACK, PACK])
