"""StringTensorUnpack-15 and StringTensorPack-15: a string tensor to and from the
begins, ends and bytes of its elements (the form tokenizer ops compute on)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base import dtypes
from ...base.shapes import DYNAMIC, Dim, PartialShape
from ..framework.base import INDEX, In, Inference, Op, TensorInfo, require
from ..framework.declare import STRING
from ..framework.registry import register

_I32 = dtypes.get("i32")
_U8 = dtypes.get("u8")
_STRING = dtypes.get("string")


@register
class StringTensorUnpack15(Op):
    type, version = "StringTensorUnpack", 15
    family = "string"
    summary = "string tensor to i32 begins, i32 ends (same shape) and the u8 bytes of all its elements"
    inputs = (In("data", STRING),)
    outputs = 3

    def infer(self, data: TensorInfo) -> Inference:
        value = data.value()
        if value is not None:
            symbols = PartialShape((Dim.of(sum(len(x) for x in value.reshape(-1))),))
        else:  # no element, no byte: OpenVINO says [0] then
            symbols = PartialShape((Dim(0, 0) if data.shape.max_elements() == 0 else DYNAMIC,))
        return Inference([TensorInfo(data.shape, _I32), TensorInfo(data.shape, _I32), TensorInfo(symbols, _U8)])

    def compute(self, plan: None, data: np.ndarray) -> Sequence[np.ndarray]:
        return unpack(data)


def unpack(data: np.ndarray) -> list[np.ndarray]:
    items = [bytes(x) for x in data.reshape(-1)]
    ends = np.cumsum([len(x) for x in items], dtype=np.int64) if items else np.zeros(0, np.int64)
    require(not len(ends) or ends[-1] <= np.iinfo(np.int32).max, "bad-value",
            lambda: f"the strings hold {int(ends[-1])} bytes in all; i32 offsets reach 2^31-1")
    begins = ends - np.array([len(x) for x in items], dtype=np.int64) if items else ends
    symbols = np.frombuffer(b"".join(items), dtype=np.uint8).copy()
    return [begins.astype(np.int32).reshape(data.shape), ends.astype(np.int32).reshape(data.shape), symbols]


@register
class StringTensorPack15(Op):
    type, version = "StringTensorPack", 15
    family = "string"
    summary = "begins, ends (i32 or i64, same shape) and u8 bytes to a string tensor of the begins' shape"
    inputs = (In("begins", INDEX), In("ends", INDEX), In("symbols", ("u8",), rank=1))
    outputs = 1

    def infer(self, begins: TensorInfo, ends: TensorInfo, symbols: TensorInfo) -> Inference:
        require(begins.etype == ends.etype, "type-mismatch",
                lambda: f"begins are {begins.etype} but ends are {ends.etype}; they must have one type", port=1)
        shape = begins.shape.intersect(ends.shape)
        require(shape is not None, "shape-mismatch",
                lambda: f"begins {begins.shape} and ends {ends.shape} must have one shape", port=1)
        for port, info in ((0, begins), (1, ends)):
            _check_constant_indices(info, symbols, port)
        return Inference([TensorInfo(shape, _STRING)])  # type: ignore[arg-type]

    def compute(self, plan: None, begins: np.ndarray, ends: np.ndarray, symbols: np.ndarray) -> Sequence[np.ndarray]:
        return [pack(begins, ends, symbols)]


def _check_constant_indices(info: TensorInfo, symbols: TensorInfo, port: int) -> None:
    """OpenVINO's checks on begins or ends known before the run: from 0 up, in
    ascending order, within the symbols."""
    value = info.value() if info.is_constant else None
    if value is None or not value.size:
        return
    flat = value.reshape(-1).astype(np.int64)
    require(flat[0] >= 0, "bad-value", f"indices cannot be negative (the first is {int(flat[0])})", port)
    n = symbols.shape[0] if symbols.shape.rank == 1 else None
    require(n is None or not n.is_static or flat[-1] <= n.value, "bad-value",
            lambda: f"the last index {int(flat[-1])} is past the {n} symbols", port)
    require(bool(np.all(flat[1:] >= flat[:-1])), "bad-value", "indices must be in ascending order", port)


def pack(begins: np.ndarray, ends: np.ndarray, symbols: np.ndarray) -> np.ndarray:
    b, e = begins.reshape(-1).astype(np.int64), ends.reshape(-1).astype(np.int64)
    bad = (b < 0) | (e < b) | (e > len(symbols))
    if bad.any():
        i = int(np.argmax(bad))
        require(False, "bad-value", f"element {i} spans bytes {int(b[i])}..{int(e[i])}, outside the "
                f"{len(symbols)} symbols or reversed", port=0)
    raw = symbols.tobytes()
    out = np.empty(begins.shape, dtype=object)
    flat = out.reshape(-1)
    for i in range(len(b)):
        flat[i] = raw[b[i]:e[i]]
    return out
