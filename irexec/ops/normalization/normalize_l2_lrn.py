"""NormalizeL2-1 and LRN-1: normalisation by the L2 norm over axes, and by a window of neighbouring channels."""

from __future__ import annotations

import numpy as np

from ..base import INTEGRAL, REAL, Attr, Enum, In, Inference, Op, TensorInfo, op_error
from ..helpers import const_axes
from ..registry import register
from .mvn_softmax import _wide


@register
class NormalizeL2_1(Op):  # noqa: N801 (Type_version)
    """x / sqrt(sum of squares over axes (+ or max) eps); empty axes: 1 where x != 0."""

    type, version, family = "NormalizeL2", 1, "normalization"
    summary = "x divided by its L2 norm over axes"
    inputs = (In("data", REAL), In("axes", INTEGRAL, rank=(0, 1), value=True))
    attributes = {"eps": Attr("float", required=True, doc="guards the division"),
                  "eps_mode": Enum("add", "max", doc="sqrt(sum + eps) or sqrt(max(sum, eps))")}

    def infer(self, data: TensorInfo, axes: TensorInfo) -> Inference:
        values = const_axes(axes, data.shape.rank, "axes", 1)
        plan = None if values is None or data.shape.rank is None else tuple(sorted(set(values)))
        return Inference([TensorInfo(data.shape, data.etype)], plan)

    def compute(self, plan: tuple[int, ...], data: np.ndarray, axes: np.ndarray) -> list[np.ndarray]:
        if not plan:
            return [(data != 0).astype(data.dtype)]
        x = _wide(data)
        with np.errstate(all="ignore"):
            total = np.sum(x * x, axis=plan, keepdims=True)
            total = total + self.eps if self.eps_mode == "add" else np.maximum(total, self.eps)
            return [(x / np.sqrt(total)).astype(data.dtype)]


def _box_sum(x: np.ndarray, axis: int, half: int) -> np.ndarray:
    """Sum over [i - half, i + half] along axis (clipped to the dim)."""
    n = x.shape[axis]
    c = np.cumsum(x, axis=axis)
    zero = np.zeros_like(np.take(c, [0], axis=axis))
    c = np.concatenate([zero, c], axis=axis)
    idx = np.arange(n)
    hi = np.minimum(idx + half + 1, n)
    lo = np.maximum(idx - half, 0)
    return np.take(c, hi, axis=axis) - np.take(c, lo, axis=axis)


@register
class LRN1(Op):
    """x / (bias + alpha / size**len(axes) * sum of x**2 over the window)**beta;
    the window spans (size - 1) / 2 on each side along every axis."""

    type, version, family = "LRN", 1, "normalization"
    summary = "local response normalisation over windows along axes"
    inputs = (In("data", REAL), In("axes", INTEGRAL, rank=1, value=True))
    attributes = {"alpha": Attr("float", required=True, doc="scale of the sum"),
                  "beta": Attr("float", required=True, doc="exponent"),
                  "bias": Attr("float", required=True, doc="added to the scaled sum"),
                  "size": Attr("uint", required=True, doc="window length along each axis")}

    def validate(self) -> list:
        if self.size < 1:  # type: ignore[attr-defined]
            return [op_error("size must be >= 1", "bad-attribute")]
        return []

    def infer(self, data: TensorInfo, axes: TensorInfo) -> Inference:
        values = const_axes(axes, data.shape.rank, "axes", 1, unique=True)
        plan = None if values is None or data.shape.rank is None else tuple(sorted(values))
        return Inference([TensorInfo(data.shape, data.etype)], plan)

    def compute(self, plan: tuple[int, ...], data: np.ndarray, axes: np.ndarray) -> list[np.ndarray]:
        x = _wide(data)
        sq = x * x
        half = (self.size - 1) // 2  # type: ignore[attr-defined]
        for a in plan:
            if sq.shape[a]:
                sq = _box_sum(sq, a, half)
        scale = self.alpha / float(self.size) ** len(plan)  # type: ignore[attr-defined]
        with np.errstate(all="ignore"):
            out = x / np.power(self.bias + scale * sq, self.beta)  # type: ignore[attr-defined]
        return [out.astype(data.dtype)]
