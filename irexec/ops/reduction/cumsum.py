"""CumSum-3: running sums along an axis, optionally exclusive and/or reversed.

Integers are exact (wrapping modulo 2^N).  f32 and f64 add element after
element in their own type (``np.cumsum``), so the error versus an f64
evaluation is at most about (n-1) * 2^-24 (f32) of the sum of the n magnitudes;
f16/bf16 accumulate in f32 and round once per element (0.5 ulp of the output
plus that f32 error).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base.dtypes import is_bf16
from ..framework.base import INTEGRAL, NUMERIC, Attr, In, Inference, Op, TensorInfo, normalize_axis
from ..framework.helpers import const_int
from ..framework.registry import register

DATA, AXIS = 0, 1


@register
class CumSum3(Op):
    type, version = "CumSum", 3
    family = "reduction"
    summary = "running sum along axis (exclusive: without the element itself; reverse: from the end)"
    inputs = (In("data", NUMERIC), In("axis", INTEGRAL, elements=1, optional=True, value=True))
    attributes = {"exclusive": Attr("bool", False), "reverse": Attr("bool", False)}

    def infer(self, data: TensorInfo, axis: TensorInfo | None = None) -> Inference:
        a = 0 if axis is None else const_int(axis, "axis", AXIS)
        rank = data.shape.rank
        if a is not None and rank is not None:
            a = normalize_axis(a, rank, "axis", "axis-out-of-range", AXIS)
        return Inference([TensorInfo(data.shape, data.etype)], a)

    def compute(self, plan: int, data: np.ndarray, axis: np.ndarray | None = None) -> Sequence[np.ndarray]:
        a = plan
        if data.ndim == 0:
            return [np.zeros_like(data) if self.exclusive else data.copy()]
        x = np.flip(data, a) if self.reverse else data
        acc = np.float32 if data.dtype.itemsize == 2 and data.dtype.kind in "fV" or is_bf16(data.dtype) else data.dtype
        with np.errstate(over="ignore"):
            s = np.cumsum(x, axis=a, dtype=acc)
        if self.exclusive:
            out = np.zeros_like(s)
            src = [slice(None)] * data.ndim
            dst = [slice(None)] * data.ndim
            src[a], dst[a] = slice(0, -1), slice(1, None)
            out[tuple(dst)] = s[tuple(src)]
            s = out
        if self.reverse:
            s = np.flip(s, a)
        return [np.ascontiguousarray(s.astype(data.dtype, copy=False))]
