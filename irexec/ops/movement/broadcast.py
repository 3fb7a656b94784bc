"""Broadcast-1 and Broadcast-3: data repeated to a target shape (numpy, bidirectional or explicit axes)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base.errors import shorten
from ...base.shapes import PartialShape, broadcast_numpy
from ...kernels.blocks import broadcast_into
from ..framework.base import INTEGRAL, Enum, In, Inference, Op, TensorInfo, op_error
from ..framework.helpers import const_ints, shape_from_input
from ..framework.registry import register

DATA, TARGET, AXES_MAPPING = 0, 1, 2


def _broadcast_unidirectional(data: PartialShape, target: PartialShape) -> PartialShape:
    """numpy mode: data broadcast onto the target shape (only data's 1s stretch)."""
    if data.dims is None or target.dims is None:
        return target if target.dims is not None else PartialShape(None)
    if len(data.dims) > len(target.dims):
        raise op_error(f"data {data} has more dims than the target shape {target}", "incompatible-inputs", TARGET)
    out = list(target.dims)
    off = len(target.dims) - len(data.dims)
    for k, d in enumerate(data.dims):
        t = out[off + k]
        if d.is_static and d.value == 1:
            continue
        if t.is_static and t.value == 1 and not d.contains(1):
            raise op_error(f"data {data} cannot be broadcast to {target}: dim {k} is {d}, target {t}",
                           "incompatible-inputs", TARGET)
        if d.contains(1):
            continue  # may be 1: the target decides
        m = t.intersect(d)
        if m is None:
            raise op_error(f"data {data} cannot be broadcast to {target}: dim {k} is {d}, target {t}",
                           "incompatible-inputs", TARGET)
        out[off + k] = m
    return PartialShape(tuple(out))


class _Broadcast(Op):
    type = "Broadcast"
    family = "movement"
    # axes_mapping's rules hold in explicit mode only: Broadcast-1 ignores the input
    # in the other modes whatever it is (TensorFlow's converter feeds a 0-d one),
    # Broadcast-3 refuses it there, as OpenVINO does.
    inputs = (In("data"), In("target_shape", INTEGRAL, rank=1, value=True),
              In("axes_mapping", optional=True, value=True))
    moves_values = (DATA,)

    def infer(self, data: TensorInfo, target: TensorInfo, axes_mapping: TensorInfo | None = None) -> Inference:
        mode = self.mode
        tshape = shape_from_input(target)
        out: PartialShape | None
        if mode == "explicit":
            if axes_mapping is None:
                raise op_error("mode explicit needs the axes_mapping input", "bad-input-rank", AXES_MAPPING)
            if axes_mapping.known_type and not axes_mapping.etype.is_integral:
                raise op_error(f"axes_mapping must have an integer element type, got {axes_mapping.etype.name}",
                               "bad-input-type", AXES_MAPPING)
            if axes_mapping.shape.rank not in (None, 1):
                raise op_error(f"axes_mapping must be 1-D, got rank {axes_mapping.shape.rank} (shape {axes_mapping.shape})",
                               "bad-input-rank", AXES_MAPPING)
            out = self._explicit(data, tshape, axes_mapping)
        elif mode == "bidirectional":
            out = broadcast_numpy(data.shape, tshape) if tshape.dims is not None and data.shape.dims is not None else PartialShape(None)
            if out is None:
                raise op_error(f"data {data.shape} and target shape {tshape} cannot be broadcast together (bidirectional)",
                               "incompatible-inputs", TARGET)
        else:  # numpy, pdpd (aligned right: the same for one data tensor)
            out = _broadcast_unidirectional(data.shape, tshape)
        if mode != "explicit" and axes_mapping is not None and self.version >= 3:
            raise op_error(f"axes_mapping is only read in mode explicit; Broadcast-3 in mode {mode} takes two inputs",
                           "incompatible-inputs", AXES_MAPPING)
        plan = None
        if out.is_static and data.shape.is_static:
            plan = (self._data_view(data, out, axes_mapping), out.to_tuple())
        return Inference([TensorInfo(out, data.etype)], plan)

    def _explicit(self, data: TensorInfo, tshape: PartialShape, axes_mapping: TensorInfo) -> PartialShape:
        axes = const_ints(axes_mapping, "axes_mapping", AXES_MAPPING)
        if axes is None or tshape.dims is None or data.shape.dims is None:
            return tshape
        if len(axes) != len(data.shape.dims):
            raise op_error(f"axes_mapping {axes} must name one axis per data dim (data {data.shape})",
                           "incompatible-inputs", AXES_MAPPING)
        if any(b <= a for a, b in zip(axes, axes[1:])):
            raise op_error(f"axes_mapping {axes} must be increasing", "bad-value", AXES_MAPPING)
        out = list(tshape.dims)
        for k, a in enumerate(axes):
            if not 0 <= a < len(out):
                raise op_error(f"axes_mapping value {a} is out of range [0, {len(out) - 1}] for target {tshape}",
                               "axis-out-of-range", AXES_MAPPING)
            d = data.shape.dims[k]
            if d.is_static and d.value == 1 or d.contains(1):
                continue
            m = out[a].intersect(d)
            if m is None:
                raise op_error(f"data dim {k} ({d}) does not match target dim {a} ({out[a]}) of {tshape}",
                               "incompatible-inputs", AXES_MAPPING)
            out[a] = m
        return PartialShape(tuple(out))

    def _data_view(self, data: TensorInfo, out: PartialShape, axes_mapping: TensorInfo | None) -> tuple[int, ...]:
        """The shape to view data as before np.broadcast_to."""
        dshape = data.shape.to_tuple()
        rank = len(out.to_tuple())
        if self.mode == "explicit":
            assert axes_mapping is not None
            axes = const_ints(axes_mapping, "axes_mapping", AXES_MAPPING) or []
            view = [1] * rank
            for k, a in enumerate(axes):
                view[a] = dshape[k]
            return tuple(view)
        return (1,) * (rank - len(dshape)) + dshape

    def compute(self, plan: tuple[tuple[int, ...], tuple[int, ...]] | None, data: np.ndarray,
                *rest: np.ndarray) -> Sequence[np.ndarray]:
        if plan is None:  # concrete inputs leave the shape unknown only for a dim below 0
            raise op_error(f"target_shape {shorten(rest[0].tolist())} holds a dim below 0", "bad-value", TARGET)
        view, shape = plan
        out = np.empty(shape, data.dtype)
        broadcast_into(out, data.reshape(view))
        return [out]


@register
class Broadcast1(_Broadcast):
    version = 1
    summary = "data replicated to target_shape (numpy, explicit or pdpd)"
    attributes = {"mode": Enum("numpy", "explicit", "pdpd", doc="how data dims align with the target")}


@register
class Broadcast3(_Broadcast):
    version = 3
    summary = "data replicated to target_shape (numpy, explicit, bidirectional or pdpd)"
    attributes = {"mode": Enum("numpy", "explicit", "bidirectional", "pdpd", doc="how data dims align with the target")}
