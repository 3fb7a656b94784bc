"""VocabEncoder (openvino_tokenizers): each string to its id in a vocabulary (WordLevel models)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base.shapes import PartialShape
from ..framework.base import INDEX, In, Inference, Op, TensorInfo, require, same_as
from ..framework.registry import register
from .ragged import EXTENSION, I32, U8, string_input, string_list


@register
class VocabEncoder(Op):
    type, version = "VocabEncoder", 1
    family = "tokenizers"
    extension = EXTENSION
    summary = "each string to its vocabulary id, or the default id when it is not in the vocabulary"
    inputs = (In("begins", I32), In("ends", I32), In("chars", U8), *string_input("vocab"), In("values", INDEX),
              In("default_value", same_as("values")))

    def infer(self, begins: TensorInfo, ends: TensorInfo, chars: TensorInfo, vb: TensorInfo, ve: TensorInfo, vc: TensorInfo,
              values: TensorInfo, default: TensorInfo) -> Inference:
        require(vb.shape.rank is None or values.shape.rank is None or vb.shape.compatible(values.shape), "shape-mismatch",
                f"{vb.shape} vocabulary strings but {values.shape} values", 6)
        # the extension declares the strings' shape and answers them flattened
        shape = begins.shape if begins.shape.rank in (None, 1) else PartialShape.of([begins.shape.max_elements() or 0]) \
            if begins.shape.is_static else PartialShape.dynamic(1)
        return Inference([TensorInfo(shape, values.etype)])

    def compute(self, plan: None, begins: np.ndarray, ends: np.ndarray, chars: np.ndarray, vb: np.ndarray, ve: np.ndarray,
                vc: np.ndarray, values: np.ndarray, default: np.ndarray) -> Sequence[np.ndarray]:
        tokens = string_list(vb, ve, vc, 3)
        ids = values.reshape(-1).tolist()
        require(len(ids) >= len(tokens), "bad-value", f"{len(tokens)} vocabulary strings but {len(ids)} values", 6)
        vocab: dict[bytes, int] = {}
        for token, idx in zip(tokens, ids):
            vocab.setdefault(token, idx)  # the first of a repeated entry, as the extension's insert
        fallback = int(np.asarray(default).reshape(-1)[0])
        words = string_list(begins, ends, chars, 0)
        return [np.array([vocab.get(w, fallback) for w in words], dtype=values.dtype)]
