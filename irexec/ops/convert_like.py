"""ConvertLike-1: Convert-1 to the element type of a second input (only its
type is read), with Convert's rules for values out of range."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..kernels.convert import convert_array
from .base import In, Inference, Op, TensorInfo
from .registry import register


@register
class ConvertLike1(Op):
    type, version, since_opset = "ConvertLike", 1, 1
    family = "convert"
    summary = "element-wise conversion to the element type of like"
    inputs = (In("data"), In("like"))

    def infer(self, data: TensorInfo, like: TensorInfo) -> Inference:
        return Inference([TensorInfo(data.shape, like.etype)], like.etype.dtype)

    def compute(self, plan: np.dtype, data: np.ndarray, like: np.ndarray) -> Sequence[np.ndarray]:
        return [convert_array(data, like.dtype)]
