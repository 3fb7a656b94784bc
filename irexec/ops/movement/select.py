"""Select-1: elements of then or else as a boolean condition says, the three inputs broadcast."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base import dtypes
from ..elementwise.factory import AUTO_BROADCAST, broadcast_shapes
from ..framework.base import BOOLEAN, In, Inference, Op, TensorInfo, op_error, same_as
from ..framework.registry import register

_BOOL = dtypes.get("boolean")


@register
class Select1(Op):
    type, version = "Select", 1
    family = "movement"
    summary = "then where cond is true, else elsewhere (broadcast numpy, none or pdpd)"
    inputs = (In("cond", BOOLEAN), In("then"), In("else", same_as("then")))
    attributes = AUTO_BROADCAST
    moves_values = (1, 2)

    def infer(self, cond: TensorInfo, then: TensorInfo, other: TensorInfo) -> Inference:
        et = then.etype if then.known_type else other.etype
        rule = self.auto_broadcast
        if rule == "pdpd":
            values, _ = broadcast_shapes(then.shape, other.shape, "pdpd")
            shape, _ = broadcast_shapes(values, cond.shape, "pdpd")
        else:
            values, _ = broadcast_shapes(then.shape, other.shape, rule)
            try:
                shape, _ = broadcast_shapes(cond.shape, values, rule)
            except Exception as e:
                raise op_error(f"cond {cond.shape} does not broadcast with then/else {values} ({rule})",
                               "incompatible-inputs", 0) from e
        plan = shape.to_tuple() if shape.is_static else None
        return Inference([TensorInfo(shape, et)], plan)

    def compute(self, plan: tuple[int, ...], cond: np.ndarray, then: np.ndarray, other: np.ndarray) -> Sequence[np.ndarray]:
        out = np.empty(plan, then.dtype)
        np.copyto(out, np.where(cond, then, other))
        return [out]
