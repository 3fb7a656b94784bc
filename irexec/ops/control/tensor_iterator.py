"""TensorIterator-1: the body run once per slice of the sliced inputs; back edges carry values between iterations."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...shapes import Dim
from ..base import In, Inference, TensorInfo, op_error
from ..registry import register
from .body import Body
from .subgraph import IterPlan, SubgraphOp, _num_slices


@register
class TensorIterator1(SubgraphOp):
    type, version = "TensorIterator", 1
    summary = "runs its body once per slice of its sliced inputs; back edges carry values between iterations"
    inputs = (In("inputs", optional=True, variadic=True),)

    def _iterations(self, body: Body, inputs: Sequence[TensorInfo]) -> Dim:
        n: Dim | None = None
        for bi in body.inputs:
            if bi.axis is None:
                continue
            shape = inputs[bi.index].shape
            if shape.dims is None:
                continue
            if not -len(shape.dims) <= bi.axis < len(shape.dims):
                raise op_error(f"port map axis {bi.axis} is out of range for input shape {shape}", "axis-out-of-range", bi.index)
            k = _num_slices(shape.dims[bi.axis], bi)
            if n is not None and n.is_static and k.is_static and n.value != k.value:
                raise op_error(f"sliced inputs give different iteration counts ({n} and {k})", "incompatible-inputs", bi.index)
            n = k if n is None or not n.is_static else n
        return n if n is not None else Dim.of(1)

    def infer(self, *inputs: TensorInfo) -> Inference:
        body = self._body()
        n = self._iterations(body, inputs)
        inference = self._iterate_shapes(body, inputs, n, {})
        inference.plan = IterPlan(n.value if n.is_static else None)
        return inference

    def compute(self, plan: IterPlan, *arrays: np.ndarray) -> list[np.ndarray]:
        return self._run_iterations(self._body(), arrays, plan.iterations)
