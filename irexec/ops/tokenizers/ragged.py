"""The decomposed forms openvino_tokenizers ops pass between them, and their checks.

A string tensor is (begins, ends, bytes): i32 offsets into a u8 buffer.  A ragged
tensor of strings adds (ragged begins, ragged ends): row r holds the strings
ragged_begins[r]..ragged_ends[r].  A ragged tensor of numbers is (begins, ends,
elements)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ...base import dtypes
from ...base.shapes import DYNAMIC, PartialShape
from ..framework.base import In, TensorInfo, require

I32, U8, BOOL = ("i32",), ("u8",), ("boolean",)
ET_I32, ET_U8, ET_BOOL = dtypes.get("i32"), dtypes.get("u8"), dtypes.get("boolean")
FLAT = PartialShape((DYNAMIC,))

EXTENSION = "openvino_tokenizers"


def ragged_strings(prefix: str = "") -> tuple[In, ...]:
    return (In(f"{prefix}ragged_begins", I32), In(f"{prefix}ragged_ends", I32), In(f"{prefix}begins", I32),
            In(f"{prefix}ends", I32), In(f"{prefix}chars", U8))


def string_input(name: str) -> tuple[In, ...]:
    """A constant string list (vocabulary, merges, a pattern) as begins, ends and bytes."""
    return In(f"{name}_begins", I32), In(f"{name}_ends", I32), In(f"{name}_chars", U8)


def ragged_strings_out(shape: PartialShape) -> list[TensorInfo]:
    return [TensorInfo(shape, ET_I32), TensorInfo(shape, ET_I32), TensorInfo(FLAT, ET_I32), TensorInfo(FLAT, ET_I32),
            TensorInfo(FLAT, ET_U8)]


def ragged_out(shape: PartialShape, etype: dtypes.ElementType) -> list[TensorInfo]:
    return [TensorInfo(shape, ET_I32), TensorInfo(shape, ET_I32), TensorInfo(FLAT, etype)]


def flat_rank(info: TensorInfo, port: int, what: str = "the elements") -> None:
    rank = info.shape.rank
    require(rank is None or rank == 1, "bad-input-rank", lambda: f"{what} of a ragged tensor must be 1-D, got {info.shape}", port)


def pattern_input(info: TensorInfo, port: int) -> None:
    """A pattern or option string: a 1-D u8 tensor, as check_string_scalar_input wants it."""
    require(info.etype.name == "u8", "bad-input-type", lambda: f"a string scalar is a 1-D u8 tensor, got {info.etype}", port)
    flat_rank(info, port, "a string scalar")


def bounded(begins: np.ndarray, ends: np.ndarray, size: int, port: int, what: str = "strings") -> None:
    """Offsets a kernel will read through: as many ends as begins, each span inside [0, size] and not reversed."""
    require(begins.size == ends.size, "bad-value", f"{begins.size} begins but {ends.size} ends of {what}", port)
    b, e = begins.reshape(-1).astype(np.int64), ends.reshape(-1).astype(np.int64)
    bad = (b < 0) | (e < b) | (e > size)
    if bad.any():
        i = int(np.argmax(bad))
        require(False, "bad-value", f"{what} {i} spans {int(b[i])}..{int(e[i])}, outside the {size} elements or reversed", port)


def rows(ragged_begins: np.ndarray, ragged_ends: np.ndarray, count: int, port: int = 0) -> Iterator[range]:
    """The string indices of each row, checked against the ``count`` strings."""
    bounded(ragged_begins, ragged_ends, count, port, "row")
    for rb, re_ in zip(ragged_begins.reshape(-1).tolist(), ragged_ends.reshape(-1).tolist()):
        yield range(rb, re_)


def text_of(begins: np.ndarray, ends: np.ndarray, chars: np.ndarray, port: int) -> tuple[list[int], list[int], bytes]:
    bounded(begins, ends, chars.size, port)
    return begins.reshape(-1).tolist(), ends.reshape(-1).tolist(), chars.tobytes()


def string_list(begins: np.ndarray, ends: np.ndarray, chars: np.ndarray, port: int) -> list[bytes]:
    b, e, raw = text_of(begins, ends, chars, port)
    return [raw[x:y] for x, y in zip(b, e)]


def i32(values: list[int] | np.ndarray) -> np.ndarray:
    return np.asarray(values, dtype=np.int32).reshape(-1)
