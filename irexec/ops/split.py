"""Split-1: equal parts along one axis; the attribute num_splits says how many
outputs the layer has."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..shapes import PartialShape
from .base import INTEGRAL, Attr, In, Inference, Op, TensorInfo, op_error
from .helpers import const_axes
from .registry import register

DATA, AXIS = 0, 1


@register
class Split1(Op):
    type, version, since_opset = "Split", 1, 1
    family = "movement"
    summary = "num_splits equal parts along axis"
    inputs = (In("data", rank=(1, None)), In("axis", INTEGRAL, rank=0, value=True))
    attributes = {"num_splits": Attr("uint", required=True, doc="number of outputs, >= 1")}
    moves_values = (DATA,)

    def validate(self) -> list:
        if self.num_splits < 1:
            return [op_error(f"num_splits must be at least 1, got {self.num_splits}", "bad-attribute")]
        return []

    def num_outputs(self, n_inputs: int) -> int:
        return self.num_splits

    def infer(self, data: TensorInfo, axis: TensorInfo) -> Inference:
        n = self.num_splits
        axes = const_axes(axis, data.shape.rank, "axis", AXIS)
        if data.shape.dims is None or axes is None:
            return Inference([TensorInfo(PartialShape.dynamic(data.shape.rank), data.etype)] * n)
        a = axes[0]
        dims = list(data.shape.dims)
        d = dims[a]
        if d.is_static and d.value % n:
            raise op_error(f"dim {a} of the data {data.shape} is {d.value}, which does not split into {n} equal parts",
                           "incompatible-inputs", DATA)
        dims[a] = d.floordiv(n)  # as OpenVINO: both bounds rounded down
        return Inference([TensorInfo(PartialShape(tuple(dims)), data.etype)] * n, a)

    def compute(self, plan: int, data: np.ndarray, axis: np.ndarray) -> Sequence[np.ndarray]:
        return np.split(data, self.num_splits, axis=plan)
