"""Convert-1: element-wise type conversion.

Float to integer truncates toward zero (as OpenVINO does); values the
destination cannot hold are undefined by the spec, irexec wraps them modulo
2^N after truncation and maps NaN to 0.  Anything to boolean is ``x != 0``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...kernels.convert import convert_array
from ..base import Attr, In, Inference, Op, TensorInfo
from ..registry import register


@register
class Convert1(Op):
    type, version = "Convert", 1
    family = "convert"
    summary = "element-wise conversion to destination_type"
    inputs = (In("data"),)
    attributes = {"destination_type": Attr("etype", required=True)}

    def infer(self, data: TensorInfo) -> list[TensorInfo]:
        return [TensorInfo(data.shape, self.destination_type)]

    def fold(self, inputs: Sequence[TensorInfo], inference: Inference) -> list[TensorInfo]:
        outs = super().fold(inputs, inference)
        bounds = inputs[0].bounds() if not outs[0].is_constant else None
        if bounds is not None and inputs[0].etype.is_integral and outs[0].etype.is_integral:
            return [TensorInfo(outs[0].shape, outs[0].etype, None, bounds)]  # shape arithmetic changing int width
        return outs

    def compute(self, plan: None, data: np.ndarray) -> Sequence[np.ndarray]:
        return [convert_array(data, self.destination_type.dtype)]
