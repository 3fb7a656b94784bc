"""FakeConvert-13: data scaled and shifted, rounded to an f8 type's grid and
mapped back, ((round_f8(data · scale - shift)) + shift) / scale, each step in
the data's own type as the spec writes it; the rounding goes through f16 and
saturates (irexec/kernels/fp8.py).  scale and shift broadcast onto data.
OpenVINO CPU multiplies by 1/scale instead of dividing: 1 ulp apart at most."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base.shapes import broadcast_numpy
from ...kernels.fp8 import round_to_f8
from ..framework.base import Enum, In, Inference, Op, TensorInfo, op_error, same_as
from ..framework.registry import register

SCALE, SHIFT = 1, 2


@register
class FakeConvert13(Op):
    type, version, family = "FakeConvert", 13, "quantization"
    summary = "data rounded to an f8 grid after scale and shift, then mapped back"
    inputs = (In("data", ("f16", "bf16", "f32")), In("scale", same_as("data")), In("shift", same_as("data"), optional=True))
    attributes = {"destination_type": Enum("f8e4m3", "f8e5m2", doc="the f8 type whose grid the values are rounded to")}

    def infer(self, data: TensorInfo, scale: TensorInfo, shift: TensorInfo | None = None) -> Inference:
        if shift is not None and not scale.shape.compatible(shift.shape):
            raise op_error(f"shift {shift.shape} must have the shape of scale {scale.shape}", "incompatible-inputs", SHIFT)
        out = broadcast_numpy(data.shape, scale.shape)
        if out is None:
            raise op_error(f"scale {scale.shape} does not broadcast with data {data.shape}", "incompatible-inputs", SCALE)
        return Inference([TensorInfo(out, data.etype)])

    def compute(self, plan: None, data: np.ndarray, scale: np.ndarray, shift: np.ndarray | None = None) -> Sequence[np.ndarray]:
        t = data.dtype
        if shift is None:
            shift = np.zeros_like(scale)
        with np.errstate(all="ignore"):
            y = (data * scale).astype(t) - shift
            r = round_to_f8(y, self.destination_type)
            out = (r.astype(t) + shift).astype(t) / scale
        return [np.asarray(out, t)]
