"""Loop-5: the body run while its condition holds, up to the trip count."""

from __future__ import annotations

import numpy as np

from ...shapes import DYNAMIC, Dim
from ..base import BOOLEAN, INDEX, In, Inference, TensorInfo
from ..registry import register
from .body import Body
from .subgraph import IterPlan, SubgraphOp, _param_info


@register
class Loop5(SubgraphOp):
    type, version = "Loop", 5
    summary = "runs its body while the condition holds, up to the trip count (-1: no limit)"
    inputs = (In("trip_count", INDEX, rank=(0, 1), elements=1, value=True),
              In("execution_condition", BOOLEAN, rank=(0, 1), elements=1, value=True),
              In("inputs", optional=True, variadic=True))

    @classmethod
    def input_range(cls) -> tuple[int, int | None]:
        return 2, None

    def _iterations(self, body: Body, trip: TensorInfo, cond: TensorInfo) -> Dim:
        t, c = trip.value(), cond.value()
        if c is not None and np.asarray(c).size and not bool(np.asarray(c).reshape(-1)[0]):
            return Dim.of(0)
        if t is None or not np.asarray(t).size:
            return DYNAMIC
        n = int(np.asarray(t).reshape(-1)[0])
        if c is None or n < 0:
            return DYNAMIC if n < 0 else Dim(0, n)
        if body.condition is None:
            return Dim.of(n)
        src = body.model.graph.producer.get((body.condition, 0))
        op = body.model.ops.get(src[0]) if src is not None else None
        from ..io import Const1

        if isinstance(op, Const1):  # a constant body condition: all trip-count iterations, or just one
            v = op.infer()[0].value()
            if v is not None and np.asarray(v).size:
                return Dim.of(n if bool(np.asarray(v).reshape(-1)[0]) else min(n, 1))
        return Dim(min(n, 1), n)

    def infer(self, trip: TensorInfo, cond: TensorInfo, *inputs: TensorInfo) -> Inference:
        body = self._body()
        n = self._iterations(body, trip, cond)
        extra = {}
        if body.current_iteration is not None and all(bi.param != body.current_iteration for bi in body.inputs):
            extra[body.current_iteration] = _param_info(body, body.current_iteration)
        everything = (trip, cond, *inputs)
        inference = self._iterate_shapes(body, everything, n, extra)
        inference.plan = IterPlan(None)
        return inference

    def compute(self, plan: IterPlan, trip: np.ndarray, cond: np.ndarray, *arrays: np.ndarray) -> list[np.ndarray]:
        t = int(np.asarray(trip).reshape(-1)[0])
        c = bool(np.asarray(cond).reshape(-1)[0])
        return self._run_iterations(self._body(), (trip, cond, *arrays), None, t, c)
