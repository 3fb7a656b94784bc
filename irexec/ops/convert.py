"""Convert-1: element-wise type conversion.

Float to integer truncates toward zero (as OpenVINO does); values the
destination cannot hold are undefined by the spec, irexec wraps them modulo
2^N after truncation and maps NaN to 0.  Anything to boolean is ``x != 0``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..kernels.convert import convert_array
from .base import Attr, Op, TensorInfo
from .registry import register


@register
class Convert1(Op):
    type, version, since_opset = "Convert", 1, 1
    family = "convert"
    summary = "element-wise conversion to destination_type"
    inputs = ("data",)
    attributes = {"destination_type": Attr("etype", required=True)}

    def infer(self, data: TensorInfo) -> list[TensorInfo]:
        return [TensorInfo(data.shape, self.destination_type)]

    def output_nbytes(self, data: np.ndarray) -> int:
        return data.size * self.destination_type.itemsize

    def compute(self, data: np.ndarray) -> Sequence[np.ndarray]:
        return [convert_array(data, self.destination_type.dtype)]
