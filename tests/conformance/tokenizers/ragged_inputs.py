"""Inputs of openvino_tokenizers ops built from Python lists, and the references'
way back: ragged tensors of strings and of numbers, string lists."""

from __future__ import annotations

from typing import Any

import numpy as np

GPT2_SPLIT = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
BERT_PUNCT = r"[!-/]|[:-@]|[\[-`]|[{-~]|[\p{P}]|[\x{4E00}-\x{9FFF}]"


def enc(s: str | bytes) -> bytes:
    return s if isinstance(s, bytes) else s.encode()


def strings(items: list[str | bytes]) -> list[np.ndarray]:
    """begins, ends, chars of a string list."""
    raw = [enc(s) for s in items]
    ends = np.cumsum([len(r) for r in raw]).astype(np.int32) if raw else np.zeros(0, np.int32)
    begins = (ends - np.array([len(r) for r in raw], np.int32)).astype(np.int32) if raw else np.zeros(0, np.int32)
    return [begins, ends, np.frombuffer(b"".join(raw), np.uint8).copy()]


def ragged_strings(rows: list[list[str | bytes]]) -> list[np.ndarray]:
    """ragged begins, ragged ends, begins, ends, chars of rows of strings."""
    flat = [s for row in rows for s in row]
    counts = np.array([len(r) for r in rows], np.int64)
    ends = np.cumsum(counts).astype(np.int32)
    return [(ends - counts).astype(np.int32), ends, *strings(flat)]


def ragged(rows: list[list[int]], dtype: Any = np.int32) -> list[np.ndarray]:
    counts = np.array([len(r) for r in rows], np.int64)
    ends = np.cumsum(counts).astype(np.int32)
    data = np.array([v for r in rows for v in r], dtype)
    return [(ends - counts).astype(np.int32), ends, data]


def pattern(text: str) -> np.ndarray:
    return np.frombuffer(text.encode(), np.uint8).copy()


def rows_of(outs: list[np.ndarray]) -> list[list[bytes]]:
    """The rows of a ragged tensor of strings (the first five outputs)."""
    rb, re_, b, e, chars = outs[:5]
    raw = chars.tobytes()
    return [[raw[b[k]:e[k]] for k in range(rb[r], re_[r])] for r in range(len(rb))]


