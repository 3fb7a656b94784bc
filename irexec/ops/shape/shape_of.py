"""ShapeOf-1 and ShapeOf-3: the shape of a tensor, as a tensor."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ... import dtypes
from ...shapes import PartialShape
from ..base import (
    In,
    IndexType,
    Inference,
    Op,
    TensorInfo,
)
from ..helpers import shape_bounds
from ..registry import register

_I64 = dtypes.get("i64")


class _ShapeOf(Op):
    type = "ShapeOf"
    family = "shape"
    inputs = (In("data"),)

    def _etype(self) -> Any:
        return getattr(self, "output_type", _I64)

    def infer(self, data: TensorInfo) -> Inference:
        rank = data.shape.rank
        shape = PartialShape.dynamic(1) if rank is None else PartialShape.static([rank])
        return Inference([TensorInfo(shape, self._etype())])

    def fold(self, inputs: Sequence[TensorInfo], inference: Inference) -> list[TensorInfo]:
        out = inference.outputs[0]
        shape = inputs[0].shape
        if shape.dims is None:
            return [out]
        dtype = self._etype().dtype
        if shape.is_static:
            return [TensorInfo(out.shape, out.etype, np.array(shape.to_tuple(), dtype))]
        return [TensorInfo(out.shape, out.etype, None, shape_bounds(shape))]

    def compute(self, plan: Any, data: np.ndarray) -> Sequence[np.ndarray]:
        return [np.array(data.shape, self._etype().dtype)]


@register
class ShapeOf1(_ShapeOf):
    version = 1
    summary = "the input's shape as an i64 1-D tensor"


@register
class ShapeOf3(_ShapeOf):
    version = 3
    summary = "the input's shape as a 1-D tensor of output_type (i32 or i64)"
    attributes = {"output_type": IndexType()}

