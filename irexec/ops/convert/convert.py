"""Convert-1: element-wise type conversion.

Float to integer truncates toward zero (as OpenVINO does); values the
destination cannot hold are undefined by the spec, irexec wraps them modulo
2^N after truncation and maps NaN to 0.  Anything to boolean is ``x != 0``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base.dtypes import ElementType
from ...kernels.convert import convert_array
from ..framework.base import LOWEST, UNBOUNDED, Attr, In, Inference, Op, TensorInfo
from ..framework.registry import register


@register
class Convert1(Op):
    type, version = "Convert", 1
    family = "convert"
    summary = "element-wise conversion to destination_type"
    infer_from_types = True
    inputs = (In("data"),)
    attributes = {"destination_type": Attr("etype", required=True)}

    def infer(self, data: TensorInfo) -> list[TensorInfo]:
        return [TensorInfo(data.shape, self.destination_type)]

    def fold(self, inputs: Sequence[TensorInfo], inference: Inference) -> list[TensorInfo]:
        outs = super().fold(inputs, inference)
        bounds = inputs[0].bounds() if not outs[0].is_constant else None
        if bounds is not None and inputs[0].etype.is_integral and outs[0].etype.is_integral:
            kept = narrowed(bounds, outs[0].etype)
            return [TensorInfo(outs[0].shape, outs[0].etype, None, kept)] if kept is not None else outs
        return outs

    def compute(self, plan: None, data: np.ndarray) -> Sequence[np.ndarray]:
        return [convert_array(data, self.destination_type.dtype)]


def narrowed(bounds: tuple[np.ndarray, np.ndarray], etype: ElementType) -> tuple[np.ndarray, np.ndarray] | None:
    """Bounds of integer values converted to integer ``etype`` (shape arithmetic
    changing int width).  An element whose range the type cannot hold wraps
    (a 256..300 dim converted to u8 is 0..44): its bounds become the type's
    whole range.  An unbounded upper bound stays unbounded, as OpenVINO maps
    the largest value of one type to the largest of the other."""
    info = np.iinfo(etype.dtype)
    lo, hi = bounds
    top = min(info.max, UNBOUNDED)
    ok = (lo >= info.min) & (lo <= top) & ((hi == UNBOUNDED) | (hi <= top))
    if ok.all():
        return bounds
    if not ok.any():
        return None
    return np.where(ok, lo, max(info.min, LOWEST)), np.where(ok, hi, UNBOUNDED)
