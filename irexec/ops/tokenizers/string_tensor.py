"""openvino_tokenizers' own StringTensorUnpack and StringTensorPack (``version="extension"``):
the core ops' semantics, with a ``mode`` attribute, and Unpack also reading the older
packed u8 form of a string tensor (an i32 count, count + 1 i32 offsets, the bytes)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..framework.base import INDEX, Enum, In, Inference, Op, TensorInfo, require
from ..framework.registry import register
from ..string.string_tensor import StringTensorPack15, pack, unpack
from .ragged import ET_I32, ET_U8, EXTENSION, FLAT

_MODE = {"mode": Enum("begins_ends", doc="the only mode the extension has")}


@register
class StringTensorUnpackExtension(Op):
    type, version = "StringTensorUnpack", 1
    family = "tokenizers"
    extension = EXTENSION
    summary = "a string tensor (or its packed u8 form) to i32 begins, i32 ends and the u8 bytes"
    inputs = (In("data", ("string", "u8")),)
    outputs = 3
    attributes = _MODE

    def infer(self, data: TensorInfo) -> Inference:
        if data.etype.name == "u8":
            require(data.shape.rank in (None, 1), "bad-input-rank", "the packed form is a 1-D u8 tensor", 0)
            shape = FLAT
        else:
            shape = data.shape
        return Inference([TensorInfo(shape, ET_I32), TensorInfo(shape, ET_I32), TensorInfo(FLAT, ET_U8)])

    def compute(self, plan: None, data: np.ndarray) -> Sequence[np.ndarray]:
        if data.dtype == object:
            return unpack(data)
        raw = data.tobytes()
        require(len(raw) >= 4, "bad-value", "the packed string tensor has no count", 0)
        count = int(np.frombuffer(raw[:4], "<i4")[0])
        require(0 <= count and len(raw) >= 8 + 4 * count, "bad-value",
                f"the packed string tensor's count {count} needs {8 + 4 * count} bytes, it has {len(raw)}", 0)
        offsets = np.frombuffer(raw[4:8 + 4 * count], "<i4").astype(np.int32)
        chars = np.frombuffer(raw[8 + 4 * count:], np.uint8)
        ends = offsets[1:]
        total = int(ends[-1]) if count else 0
        require(0 <= total <= chars.size, "bad-value", f"the packed strings end at byte {total}, past its {chars.size}", 0)
        return [offsets[:-1].copy(), ends.copy(), chars[:total].copy()]


@register
class StringTensorPackExtension(Op):
    type, version = "StringTensorPack", 1
    family = "tokenizers"
    extension = EXTENSION
    summary = "begins, ends and u8 bytes to a string tensor, as the core StringTensorPack-15"
    inputs = (In("begins", INDEX), In("ends", INDEX), In("symbols", ("u8",), rank=1))
    outputs = 1
    attributes = _MODE

    def infer(self, begins: TensorInfo, ends: TensorInfo, symbols: TensorInfo) -> Inference:
        return StringTensorPack15.infer(self, begins, ends, symbols)  # type: ignore[arg-type]

    def compute(self, plan: None, begins: np.ndarray, ends: np.ndarray, symbols: np.ndarray) -> Sequence[np.ndarray]:
        return [pack(begins, ends, symbols)]
