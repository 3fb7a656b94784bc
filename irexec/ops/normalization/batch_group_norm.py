"""BatchNormInference-1/5 and GroupNormalization-12: normalisation by given or per-group statistics."""

from __future__ import annotations

import numpy as np

from ...shapes import PartialShape
from ..base import REAL, Attr, In, Inference, Op, TensorInfo, op_error
from ..registry import register
from .mvn_softmax import _wide, _work_dtype, mvn_kernel, over_rows


def _channel_param(info: TensorInfo, data: TensorInfo, name: str, port: int) -> None:
    """A 1-D input as long as data's channel dim (1)."""
    if data.shape.rank is None or info.shape.rank is None:
        return
    c, n = data.shape[1], info.shape[0]
    if c.intersect(n) is None:
        raise op_error(f"{name} has {n} values but the data {data.shape} has {c} channels (dim 1)",
                       "incompatible-inputs", port)


class _BatchNorm(Op):
    """gamma * (x - mean) / sqrt(variance + epsilon) + beta per channel (dim 1),
    computed in f64 and rounded once."""

    family = "normalization"
    attributes = {"epsilon": Attr("float", required=True, doc="added to the variance")}
    order: tuple[int, int, int, int, int]  # ports of data, gamma, beta, mean, variance

    def validate(self) -> list:
        if not self.epsilon >= 0:  # type: ignore[attr-defined]
            return [op_error(f"epsilon must be >= 0, got {self.epsilon}", "bad-attribute")]  # type: ignore[attr-defined]
        return []

    def infer(self, *ins: TensorInfo) -> Inference:
        d, *params = (ins[i] for i in self.order)
        for name, k, info in zip(("gamma", "beta", "mean", "variance"), self.order[1:], params):
            _channel_param(info, d, name, k)
        shape = d.shape
        if shape.dims is not None:  # the channel dim is what data and every parameter agree on
            c = shape[1]
            for info in params:
                if info.shape.dims is not None:
                    c = c.intersect(info.shape[0]) or c
            shape = PartialShape((shape[0], c) + tuple(shape.dims[2:]))
        return Inference([TensorInfo(shape, d.etype)])

    def compute(self, plan: object, *arrays: np.ndarray) -> list[np.ndarray]:
        x, gamma, beta, mean, var = (arrays[i] for i in self.order)
        shape = (-1,) + (1,) * (x.ndim - 2)
        with np.errstate(all="ignore"):
            scale = _wide(gamma) / np.sqrt(_wide(var) + self.epsilon)  # type: ignore[attr-defined]
            out = (_wide(x) - _wide(mean).reshape(shape)) * scale.reshape(shape) + _wide(beta).reshape(shape)
        return [out.astype(x.dtype)]


@register
class BatchNormInference1(_BatchNorm):
    type, version, summary = "BatchNormInference", 1, "per-channel normalisation with given statistics"
    inputs = (In("gamma", REAL, rank=1), In("beta", "same:gamma", rank=1), In("data", "same:gamma", rank=(2, None)),
              In("mean", "same:gamma", rank=1), In("variance", "same:gamma", rank=1))
    order = (2, 0, 1, 3, 4)


@register
class BatchNormInference5(_BatchNorm):
    type, version, summary = "BatchNormInference", 5, "per-channel normalisation with given statistics"
    inputs = (In("data", REAL, rank=(2, None)), In("gamma", "same:data", rank=1), In("beta", "same:data", rank=1),
              In("mean", "same:data", rank=1), In("variance", "same:data", rank=1))
    order = (0, 1, 2, 3, 4)


@register
class GroupNormalization12(Op):
    """MVN over each group of channels (and every spatial dim), then a
    per-channel scale and bias."""

    type, version, family = "GroupNormalization", 12, "normalization"
    summary = "normalisation over groups of channels, then scale and bias"
    inputs = (In("data", REAL, rank=(2, None)), In("scale", "same:data", rank=1), In("bias", "same:data", rank=1))
    attributes = {"num_groups": Attr("int", required=True, doc="channels are split into this many groups"),
                  "epsilon": Attr("float", required=True, doc="added to the variance")}

    def validate(self) -> list:
        if self.num_groups < 1:  # type: ignore[attr-defined]
            return [op_error(f"num_groups must be >= 1, got {self.num_groups}", "bad-attribute")]  # type: ignore[attr-defined]
        return []

    def infer(self, data: TensorInfo, scale: TensorInfo, bias: TensorInfo) -> Inference:
        _channel_param(scale, data, "scale", 1)
        _channel_param(bias, data, "bias", 2)
        if data.shape.rank is not None:
            c = data.shape[1]
            if c.is_static and c.value % self.num_groups:
                raise op_error(f"the {c.value} channels of data {data.shape} do not split into num_groups="
                               f"{self.num_groups}", "incompatible-inputs", 0)
        return Inference([TensorInfo(data.shape, data.etype)])

    def compute(self, plan: object, data: np.ndarray, scale: np.ndarray, bias: np.ndarray) -> list[np.ndarray]:
        n, c = data.shape[:2]
        g = self.num_groups
        work = _work_dtype(data.dtype)
        x = data.astype(work, copy=False)  # f16/bf16: one rounding at the end, not after the MVN
        grouped = x.reshape((n, g, -1)) if data.size else x.reshape((n, g, 0))
        normed = over_rows(grouped, (2,), mvn_kernel(True, self.epsilon, True)).reshape(data.shape)
        shape = (-1,) + (1,) * (data.ndim - 2)
        out = normed * scale.astype(work).reshape(shape) + bias.astype(work).reshape(shape)
        return [out.astype(data.dtype, copy=False)]
