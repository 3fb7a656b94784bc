"""ExtractImagePatches-3: every sizes[0] x sizes[1] patch of an NCHW image
(TensorFlow's extract_image_patches), dilated by rates and moved by strides,
laid out along the channel dim: output channel (kh * KW + kw) * C + c holds
input channel c at patch position (kh, kw).  Values are moved bit for bit;
positions outside the image are zeros.

The output size and the same_upper/same_lower padding are OpenVINO's
reference: valid gives ceil((D - rate * (size - 1)) / stride) positions, the
same modes ceil(D / stride) with the padding PD = (ceil(D / stride) - 1) *
stride + rate * (size - 1) + 1 - D split evenly (the odd one before the image
for same_lower, after it for same_upper), and no padding at all when PD is
not below the dilated patch's extent."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ...base.shapes import DYNAMIC, PartialShape
from ..framework.base import Attr, In, Inference, Op, TensorInfo, op_error
from ..framework.registry import register

_PAD_MODES = ("valid", "same_upper", "same_lower")


def _begin_pad(size: int, stride: int, extent: int, mode: str) -> int:
    """The padding before the image along one dim (OpenVINO's reference)."""
    if mode == "valid":
        return 0
    total = (math.ceil(size / stride) - 1) * stride + extent - size
    if not 0 < total < extent:
        return 0
    if total % 2 == 0:
        return total // 2
    return (total + 1) // 2 if mode == "same_lower" else (total - 1) // 2


@register
class ExtractImagePatches3(Op):
    type, version = "ExtractImagePatches", 3
    family = "movement"
    summary = "image patches laid out along the channel dim"
    inputs = (In("data", rank=4),)
    attributes = {"sizes": Attr("ints", (), required=True, doc="[size_rows, size_cols] of a patch, >= 1"),
                  "strides": Attr("ints", (), required=True, doc="[stride_rows, stride_cols] between patches, >= 1"),
                  "rates": Attr("ints", (), required=True, doc="[rate_rows, rate_cols]: distance of a patch's elements"),
                  "auto_pad": Attr("enum", "valid", required=True, choices=_PAD_MODES,
                                   doc="valid: patches inside the image; same_upper/same_lower: ceil(D/stride) patches")}
    moves_values = True

    def validate(self) -> list:
        errors = []
        for name in ("sizes", "strides", "rates"):
            values = getattr(self, name)
            if len(values) != 2:
                errors.append(op_error(f"{name} must hold 2 values (rows, cols), got {list(values)}", "bad-attribute"))
            elif any(v < 1 for v in values):
                errors.append(op_error(f"{name} {list(values)} must hold values of at least 1", "bad-attribute"))
        return errors

    def infer(self, data: TensorInfo) -> Inference:
        dims = data.shape.dims
        if dims is None:
            return Inference([TensorInfo(PartialShape((DYNAMIC,) * 4), data.etype)])
        out = [dims[0], dims[1] * (self.sizes[0] * self.sizes[1])]
        for d, size, stride, rate in zip(dims[2:], self.sizes, self.strides, self.rates):
            span = d - rate * (size - 1) if self.auto_pad == "valid" else d
            out.append(span.ceildiv(stride))
        return Inference([TensorInfo(PartialShape(tuple(out)), data.etype)])

    def compute(self, plan: None, data: np.ndarray) -> Sequence[np.ndarray]:
        n, c, h, w = data.shape
        (kh, kw), (sh, sw), (rh, rw) = self.sizes, self.strides, self.rates
        ext_h, ext_w = rh * (kh - 1) + 1, rw * (kw - 1) + 1
        oh = math.ceil(max(h - ext_h + 1, 0) / sh) if self.auto_pad == "valid" else math.ceil(h / sh)
        ow = math.ceil(max(w - ext_w + 1, 0) / sw) if self.auto_pad == "valid" else math.ceil(w / sw)
        out = np.zeros((n, c * kh * kw, oh, ow), data.dtype)
        if out.size == 0:
            return [out]
        top, left = _begin_pad(h, sh, ext_h, self.auto_pad), _begin_pad(w, sw, ext_w, self.auto_pad)
        bottom = max(0, (oh - 1) * sh + ext_h - top - h)
        right = max(0, (ow - 1) * sw + ext_w - left - w)
        padded = np.pad(data, ((0, 0), (0, 0), (top, bottom), (left, right))) if top or bottom or left or right else data
        for i in range(kh):
            for j in range(kw):
                k = (i * kw + j) * c
                out[:, k : k + c] = padded[:, :, i * rh : i * rh + (oh - 1) * sh + 1 : sh, j * rw : j * rw + (ow - 1) * sw + 1 : sw]
        return [out]
