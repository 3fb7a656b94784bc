"""If-8: then_body or else_body, as the condition says."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...errors import Diagnostic
from ...shapes import DYNAMIC, Dim, PartialShape
from ..base import BOOLEAN, In, Inference, TensorInfo, op_error
from ..registry import register
from .body import Body
from .subgraph import BodyInference, SubgraphOp, _check_body, _refuse_broken_body, _unknown


def _either(a: PartialShape, b: PartialShape) -> PartialShape:
    """An output that may come from either branch, as OpenVINO's If infers it
    (``resolve_shape`` in its if.cpp): a dim not static in both is dynamic, two
    different static dims give their interval; ranks that differ give a dynamic
    rank (dynamic 1-D when both are at most 1)."""
    if a.dims is None or b.dims is None:
        return PartialShape(None)
    if len(a.dims) != len(b.dims):
        return PartialShape((DYNAMIC,)) if len(a.dims) <= 1 and len(b.dims) <= 1 else PartialShape(None)
    dims = []
    for x, y in zip(a.dims, b.dims):
        if not (x.is_static and y.is_static):
            dims.append(DYNAMIC)
        else:
            dims.append(Dim(min(x.lo, y.lo), max(x.lo, y.lo)))
    return PartialShape(tuple(dims))


@register
class If8(SubgraphOp):
    type, version = "If", 8
    summary = "runs then_body or else_body as the condition says"
    body_tags = ("then_body", "else_body")
    inputs = (In("cond", BOOLEAN, rank=(0, 1), elements=1, value=True), In("inputs", optional=True, variadic=True))

    def _branch(self, body: Body, inputs: Sequence[TensorInfo]) -> tuple[list[TensorInfo | None], list[Diagnostic]]:
        seeds = {bi.param: TensorInfo(inputs[bi.index].shape, inputs[bi.index].etype) for bi in body.inputs}
        found, diags = _check_body(body, seeds)
        outs: list[TensorInfo | None] = [None] * self.num_outputs(len(inputs))
        for bo in body.outputs:
            if bo.index < len(outs):
                outs[bo.index] = found.get(bo.result)
        return outs, diags

    def infer(self, cond: TensorInfo, *inputs: TensorInfo) -> Inference:
        everything = (cond, *inputs)
        then_outs, then_diags = self._branch(self._body(0), everything)
        else_outs, else_diags = self._branch(self._body(1), everything)
        c = cond.value()
        taken = None if c is None or not np.asarray(c).size else bool(np.asarray(c).reshape(-1)[0])
        outs = []
        for k, (t, e) in enumerate(zip(then_outs, else_outs)):
            if taken is True or (taken is None and e is None):
                pick = t
            elif taken is False or t is None:
                pick = e
            else:
                if t.known_type and e.known_type and t.etype is not e.etype:
                    raise op_error(f"output {k}: then_body gives {t.etype.name}, else_body {e.etype.name}", "incompatible-inputs")
                pick = TensorInfo(_either(t.shape, e.shape), t.etype)
            outs.append(pick if pick is not None else _unknown())
        return BodyInference(outs, None, then_diags + else_diags)

    def compute(self, plan: Any, cond: np.ndarray, *arrays: np.ndarray) -> list[np.ndarray]:
        body = self._body(0 if bool(np.asarray(cond).reshape(-1)[0]) else 1)
        _refuse_broken_body(body, "body")
        everything = (cond, *arrays)
        feeds = {bi.param: everything[bi.index] for bi in body.inputs}
        values = body.run(feeds, sorted({o.result for o in body.outputs}))
        outs: list[np.ndarray | None] = [None] * self.num_outputs(len(everything))
        for bo in body.outputs:
            outs[bo.index] = values[bo.result]
        if any(o is None for o in outs):
            raise op_error("the branch taken gives no value for some outputs of the layer", "bad-port-map")
        return outs  # type: ignore[return-value]
