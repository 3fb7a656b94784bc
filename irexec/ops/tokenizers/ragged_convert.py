"""RaggedTensorPack, RaggedToRagged and RaggedToSparse (openvino_tokenizers): the
ragged forms TensorFlow models carry (value row ids, sparse indices) to and from the
(begins, ends, elements) form the other tokenizer ops pass."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base import limits
from ...base.shapes import DYNAMIC, Dim, PartialShape
from ..framework.base import In, Inference, Op, TensorInfo, require
from ..framework.registry import register
from .ragged import ET_I32, EXTENSION, I32, bounded


@register
class RaggedTensorPack(Op):
    type, version = "RaggedTensorPack", 1
    family = "tokenizers"
    extension = EXTENSION
    summary = "a ragged tensor as one tensor: the elements, passed through (the begins and ends are only checked)"
    inputs = (In("begins", I32), In("ends", I32), In("elements"))

    def infer(self, begins: TensorInfo, ends: TensorInfo, elements: TensorInfo) -> Inference:
        return Inference([TensorInfo(elements.shape, elements.etype)])

    def compute(self, plan: None, begins: np.ndarray, ends: np.ndarray, elements: np.ndarray) -> Sequence[np.ndarray]:
        return [elements.copy()]


@register
class RaggedToRagged(Op):
    type, version = "RaggedToRagged", 1
    family = "tokenizers"
    extension = EXTENSION
    summary = "value row ids (sorted, one per element) to the begins and ends of first_dim_size rows"
    inputs = (In("row_ids", I32), In("first_dim_size", I32, value=True))
    outputs = 2

    def infer(self, row_ids: TensorInfo, size: TensorInfo) -> Inference:
        value = size.value() if size.is_constant else None
        dim = Dim.of(max(int(value.reshape(-1)[0]), 0)) if value is not None and value.size else DYNAMIC
        shape = PartialShape((dim,))
        return Inference([TensorInfo(shape, ET_I32), TensorInfo(shape, ET_I32)])

    def compute(self, plan: None, row_ids: np.ndarray, size: np.ndarray) -> Sequence[np.ndarray]:
        require(size.size >= 1, "bad-value", "first_dim_size holds no value", 1)
        batch = int(size.reshape(-1)[0])
        require(batch >= 0, "bad-value", f"first_dim_size {batch} is negative", 1)
        ids = row_ids.reshape(-1).astype(np.int64)
        if ids.size:
            require(int(ids.min()) >= 0, "bad-value", lambda: f"row id {int(ids.min())} is negative", 0)
            require(bool((ids[1:] >= ids[:-1]).all()), "bad-value", "the row ids are not sorted", 0)
        rows = np.arange(batch, dtype=np.int64)
        begins = np.searchsorted(ids, rows, side="left")
        ends = np.searchsorted(ids, rows, side="right")
        return [begins.astype(np.int32), ends.astype(np.int32)]


@register
class RaggedToSparse(Op):
    type, version = "RaggedToSparse", 1
    family = "tokenizers"
    extension = EXTENSION
    summary = "the begins and ends of ragged rows to the [elements, 2] (row, position) indices of a sparse tensor"
    inputs = (In("begins", I32), In("ends", I32))

    def infer(self, begins: TensorInfo, ends: TensorInfo) -> Inference:
        require(begins.shape.compatible(ends.shape), "incompatible-inputs",
                lambda: f"begins {begins.shape} and ends {ends.shape} differ in shape", 1)
        return Inference([TensorInfo(PartialShape((DYNAMIC, Dim.of(2))), ET_I32)])

    def compute(self, plan: None, begins: np.ndarray, ends: np.ndarray) -> Sequence[np.ndarray]:
        b, e = begins.reshape(-1).astype(np.int64), ends.reshape(-1).astype(np.int64)
        bounded(b, e, np.iinfo(np.int32).max, 0, "row")
        counts = e - b
        # the element count is data (up to 2^31 for each row): the i64 rows, starts, columns and their
        # [n, 2] stack, and the i32 output, charged before they are made
        total = int(counts.sum())
        limits.require(total * 48, f"RaggedToSparse's indices of {total} elements")
        rows = np.repeat(np.arange(b.size, dtype=np.int64), counts)
        starts = np.repeat(np.cumsum(counts) - counts, counts)
        cols = np.arange(rows.size, dtype=np.int64) - starts
        return [np.stack([rows, cols], axis=1).astype(np.int32).reshape(-1, 2)]
