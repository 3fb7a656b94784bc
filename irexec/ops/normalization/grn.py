"""GRN-1: each element divided by the L2 norm of its position across the
channels (dim 1), bias added under the root.  Computed in f64 and rounded
once, as NormalizeL2 beside it."""

from __future__ import annotations

import numpy as np

from ..framework.base import REAL, Attr, In, Inference, Op, TensorInfo
from ..framework.registry import register


@register
class GRN1(Op):
    type, version, family = "GRN", 1, "normalization"
    summary = "x / sqrt(sum of x^2 across channels (dim 1) + bias)"
    inputs = (In("data", REAL, rank=(2, 4)),)
    attributes = {"bias": Attr("float", required=True, doc="added to the sum of squares")}

    def infer(self, data: TensorInfo) -> Inference:
        return Inference([TensorInfo(data.shape, data.etype)])

    def compute(self, plan: None, data: np.ndarray) -> list[np.ndarray]:
        x = data.astype(np.float64)
        with np.errstate(all="ignore"):
            norm = np.sqrt(np.sum(x * x, axis=1, keepdims=True) + self.bias)
            return [(x / norm).astype(data.dtype)]
