"""ConvertLike-1: Convert-1 to the element type of a second input (only its
type is read), with Convert's rules for values out of range."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...kernels.convert import convert_array
from ..framework.base import In, Inference, Op, TensorInfo
from ..framework.registry import register
from .convert import narrowed


@register
class ConvertLike1(Op):
    type, version = "ConvertLike", 1
    family = "convert"
    summary = "element-wise conversion to the element type of like"
    inputs = (In("data"), In("like"))

    def infer(self, data: TensorInfo, like: TensorInfo) -> Inference:
        return Inference([TensorInfo(data.shape, like.etype)], like.etype.dtype)

    def fold(self, inputs: Sequence[TensorInfo], inference: Inference) -> list[TensorInfo]:
        outs = super().fold(inputs, inference)
        bounds = inputs[0].bounds() if not outs[0].is_constant else None
        target = outs[0].etype
        if bounds is None or not inputs[0].etype.is_integral or not target.is_integral:
            return outs
        kept = narrowed(bounds, target)
        return [TensorInfo(outs[0].shape, target, None, kept)] if kept is not None else outs

    def compute(self, plan: np.dtype, data: np.ndarray, like: np.ndarray) -> Sequence[np.ndarray]:
        return [convert_array(data, like.dtype)]
