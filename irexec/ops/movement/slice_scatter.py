"""SliceScatter-15: data with the window Slice-8 would read (start, stop, step,
axes) overwritten by updates, which must have that window's shape."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from ...base.errors import OpError
from ..framework.base import INTEGRAL, In, Inference, Op, TensorInfo, op_error, same_as
from ..framework.registry import register
from .slice import Slice8

UPDATES, AXES = 1, 5


@register
class SliceScatter15(Op):
    type, version = "SliceScatter", 15
    family = "movement"
    summary = "data with a Slice-8 window replaced by updates"
    inputs = (In("data"), In("updates", same_as("data")), In("start", INTEGRAL, rank=1, value=True),
              In("stop", INTEGRAL, rank=1, value=True), In("step", INTEGRAL, rank=1, value=True),
              In("axes", INTEGRAL, rank=1, optional=True, value=True))
    moves_values = (0, 1)

    def infer(self, data: TensorInfo, updates: TensorInfo, start: TensorInfo, stop: TensorInfo, step: TensorInfo,
              axes: TensorInfo | None = None) -> Inference:
        window = _window(data, start, stop, step, axes)
        shape = window.outputs[0].shape
        if updates.shape.rank is not None and shape.rank is not None and not updates.shape.compatible(shape):
            raise op_error(f"updates {updates.shape} must have the shape of the slice {shape} of data {data.shape}",
                           "incompatible-inputs", UPDATES)
        return Inference([TensorInfo(data.shape, data.etype)], window.plan)

    def compute(self, plan: tuple[slice, ...], data: np.ndarray, updates: np.ndarray, *rest: np.ndarray) -> Sequence[np.ndarray]:
        out = data.copy()
        out[plan] = updates
        return [out]


_SLICE = Slice8()


def _window(data: TensorInfo, start: TensorInfo, stop: TensorInfo, step: TensorInfo, axes: TensorInfo | None) -> Inference:
    """Slice-8's inference of the window, its errors pointed at SliceScatter's ports (one further on)."""
    try:
        return _SLICE.infer(data, start, stop, step, *(() if axes is None else (axes,)))
    except OpError as e:
        e.diagnostics = [replace(d, port=d.port + 1) if d.port is not None and d.port >= 1 else d for d in e.diagnostics]
        e.args = ("\n".join(d.format() for d in e.diagnostics),)
        raise
