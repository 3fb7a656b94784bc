"""FakeQuantize-1: elementwise linear quantisation of floats onto ``levels``
evenly spaced values.

As the spec and OpenVINO's reference: x <= min(input_low, input_high) gives
output_low, x > max(...) gives output_high, otherwise
round((x - il) / (ih - il) * (levels - 1)) / (levels - 1) * (oh - ol) + ol,
rounding half to even (std::nearbyint).  The steps up to the rounding run in
the element type (f16/bf16 arithmetic rounds after each step, as OpenVINO's
float16 does), the rest in f32 for f16/bf16, as the reference promotes them.

The four range inputs broadcast onto the data (numpy or pdpd); the output has
the data's shape.  Stricter than OpenVINO: a range input that would broadcast
the data to a bigger shape is an error (the spec's broadcast is
uni-directional; OpenVINO accepts it and ignores the extra elements).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base.shapes import PartialShape, broadcast_numpy, broadcast_pdpd
from ..framework.accuracy import TRANSCENDENTAL
from ..framework.base import REAL, Attr, Enum, In, Inference, Op, TensorInfo, op_error, same_as
from ..framework.registry import register

_RANGES = ("input_low", "input_high", "output_low", "output_high")


@register
class FakeQuantize1(Op):
    type, version = "FakeQuantize", 1
    accuracy = TRANSCENDENTAL  # one rounding step of the formula in the element type
    family = "quantization"
    summary = "linear quantisation onto `levels` values between output_low and output_high"
    inputs = (In("data", REAL), *(In(name, same_as("data")) for name in _RANGES))
    attributes = {
        "levels": Attr("int", required=True, doc="number of quantisation levels, >= 2"),
        "auto_broadcast": Enum("numpy", "none", "pdpd", doc="how the range inputs broadcast onto the data"),
    }

    def validate(self) -> list:
        if self.levels < 2:
            return [op_error(f"levels={self.levels} must be at least 2", "bad-attribute")]
        return []

    def infer(self, data: TensorInfo, *ranges: TensorInfo) -> Inference:
        plans = []
        for port, (name, r) in enumerate(zip(_RANGES, ranges), start=1):
            plans.append(_fit(data.shape, r.shape, self.auto_broadcast, name, port))
        return Inference([TensorInfo(data.shape, data.etype)], plans)

    def compute(self, plan: list, data: np.ndarray, *ranges: np.ndarray) -> Sequence[np.ndarray]:
        il, ih, ol, oh = (r.reshape(p) if p is not None else r for r, p in zip(ranges, plan))
        return [fake_quantize(data, il, ih, ol, oh, self.levels)]


def _fit(data: PartialShape, r: PartialShape, rule: str, name: str, port: int) -> tuple[int, ...] | None:
    """Check that ``r`` broadcasts onto ``data`` without enlarging it; the
    shape to view the range as for NumPy (pdpd pads on the right)."""
    if rule == "none":
        if data.intersect(r) is None:
            raise op_error(f"auto_broadcast=none needs {name} of the data's shape {data}, got {r}",
                           "incompatible-inputs", port)
        return None
    merged = broadcast_pdpd(data, r) if rule == "pdpd" else broadcast_numpy(data, r)
    if merged is None:
        raise op_error(f"{name} of shape {r} cannot be broadcast onto data of shape {data} ({rule} rules)",
                       "incompatible-inputs", port)
    if data.dims is not None and r.dims is not None:
        if len(r.dims) > len(data.dims):
            raise op_error(f"{name} of shape {r} has a higher rank than the data {data}: it would enlarge the output",
                           "incompatible-inputs", port)
        off = 0 if rule == "pdpd" else len(data.dims) - len(r.dims)
        for k, d in enumerate(r.dims):
            dd = data.dims[off + k]
            if d.lo > 1 and dd.hi is not None and dd.hi < d.lo:
                raise op_error(f"{name} of shape {r} would broadcast the data {data} to a bigger shape",
                               "incompatible-inputs", port)
        if rule == "pdpd" and r.is_static:
            return r.to_tuple() + (1,) * (len(data.dims) - len(r.dims))
    return None


def fake_quantize(x: np.ndarray, il: np.ndarray, ih: np.ndarray, ol: np.ndarray, oh: np.ndarray, levels: int) -> np.ndarray:
    dt = x.dtype
    lm1 = dt.type(levels - 1)
    with np.errstate(all="ignore"):
        q = np.rint((x - il) / (ih - il) * lm1)
        if dt.itemsize < 4:  # f16/bf16: the reference goes on in f32 after std::nearbyint
            f = np.float32
            q = (q.astype(f) / f(levels - 1) * (oh.astype(f) - ol.astype(f)).astype(dt).astype(f) + ol.astype(f)).astype(dt)
        else:
            q = q / lm1 * (oh - ol) + ol
        lo, hi = np.minimum(il, ih), np.maximum(il, ih)
        out = np.where(x <= lo, ol, np.where(x > hi, oh, q))
    return np.array(np.broadcast_to(out, x.shape), dt, order="C")  # (ascontiguousarray would make a 0-d array 1-d)
