"""Bucketize-3: the bucket index of every element, given sorted bucket boundaries."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

from ..framework.base import NUMERIC, Attr, In, IndexType, Inference, Op, TensorInfo
from ..framework.registry import register


@register
class Bucketize3(Op):
    type, version = "Bucketize", 3
    family = "sorting"
    summary = "index of the bucket (between sorted boundaries) each element falls into"
    inputs = (In("data", NUMERIC), In("buckets", NUMERIC, rank=1))
    attributes = {
        "output_type": IndexType(),
        "with_right_bound": Attr("bool", True, doc="buckets include their right boundary (else their left)"),
    }

    def infer(self, data: TensorInfo, buckets: TensorInfo) -> Inference:
        return Inference([TensorInfo(data.shape, self.output_type)])

    def compute(self, plan: None, data: np.ndarray, buckets: np.ndarray) -> Sequence[np.ndarray]:
        side: Literal["left", "right"] = "left" if self.with_right_bound else "right"
        a, b = _comparable(data, buckets)
        out = np.searchsorted(b, a, side=side)
        return [np.asarray(out, self.output_type.dtype).reshape(data.shape)]


def _comparable(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both arrays in one dtype that holds every value of each exactly enough
    to compare (C++'s usual conversions; f64 for a real side)."""
    if a.dtype == b.dtype:
        return a, b
    if a.dtype.kind in "iu" and b.dtype.kind in "iu":
        t = np.result_type(a.dtype, b.dtype)
        if t.kind == "f":  # u64 with a signed type: compare as Python would through object-free int64 clip
            return a.astype(np.float64), b.astype(np.float64)
        return a.astype(t), b.astype(t)
    return a.astype(np.float64), b.astype(np.float64)
