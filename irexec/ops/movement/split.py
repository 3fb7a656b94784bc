"""Split-1: equal parts along one axis; the attribute num_splits says how many
outputs the layer has.  VariadicSplit-1: parts of given lengths (one may be
-1, the rest); its output count is the layer's port count."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base.shapes import DYNAMIC, Dim, PartialShape
from ..framework.base import INTEGRAL, NUMERIC, Attr, In, Inference, Op, TensorInfo, op_error
from ..framework.helpers import const_axes, const_ints
from ..framework.registry import register

DATA, AXIS = 0, 1


@register
class Split1(Op):
    type, version = "Split", 1
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


LENGTHS = 2


@register
class VariadicSplit1(Op):
    type, version = "VariadicSplit", 1
    family = "movement"
    summary = "parts of split_lengths sizes along axis (one length may be -1: the rest)"
    # a real axis truncates, as OpenVINO reads it
    inputs = (In("data", rank=(1, None)), In("axis", NUMERIC, rank=(0, 1), elements=1, value=True),
              In("split_lengths", INTEGRAL, rank=1, value=True))
    moves_values = (DATA,)

    def num_outputs(self, n_inputs: int) -> int:
        return len(self.layer.outputs) if self.layer is not None else 1

    def infer(self, data: TensorInfo, axis: TensorInfo, lengths: TensorInfo) -> Inference:
        raw = const_ints(lengths, "split_lengths", LENGTHS)
        n = len(raw) if raw is not None else (lengths.shape[0].value if lengths.shape.rank == 1 and lengths.shape[0].is_static
                                               else self.num_outputs(3))
        if raw is not None and raw.count(-1) > 1:
            raise op_error(f"split_lengths {raw} holds more than one -1", "bad-value", LENGTHS)
        if raw is not None and any(v < -1 for v in raw):
            raise op_error(f"split_lengths {raw} holds a negative length", "bad-value", LENGTHS)
        if self.layer is not None and n != len(self.layer.outputs):
            raise op_error(f"split_lengths has {n} elements but the layer has {len(self.layer.outputs)} output ports",
                           "incompatible-inputs", LENGTHS)
        axes = const_axes(axis, data.shape.rank, "axis", AXIS, real=True)
        if data.shape.dims is None or axes is None or raw is None:
            return Inference([TensorInfo(PartialShape.dynamic(data.shape.rank), data.etype) for _ in range(n)])
        a = axes[0]
        d = data.shape.dims[a]
        known = sum(v for v in raw if v != -1)
        parts: list[Dim] = []
        for v in raw:
            if v != -1:
                parts.append(Dim(v, v))
            else:
                parts.append(DYNAMIC if not d.is_static else Dim(d.value - known, d.value - known))  # OpenVINO: ? unless static
        if -1 in raw:
            if d.hi is not None and d.hi < known:
                raise op_error(f"split_lengths {raw} need more than the {d} elements of dim {a} of data {data.shape}",
                               "incompatible-inputs", LENGTHS)
        elif not d.contains(known):
            raise op_error(f"split_lengths {raw} add up to {known} but dim {a} of data {data.shape} is {d}",
                           "incompatible-inputs", LENGTHS)
        outs = []
        for p in parts:
            dims = list(data.shape.dims)
            dims[a] = p
            outs.append(TensorInfo(PartialShape(tuple(dims)), data.etype))
        plan = None
        if d.is_static:
            bounds = np.cumsum([p.value for p in parts])[:-1].tolist()
            plan = (a, bounds)
        return Inference(outs, plan)

    def compute(self, plan: tuple[int, list[int]], data: np.ndarray, axis: np.ndarray, lengths: np.ndarray) -> Sequence[np.ndarray]:
        a, bounds = plan
        return [np.ascontiguousarray(p) for p in np.split(data, bounds, axis=a)]
