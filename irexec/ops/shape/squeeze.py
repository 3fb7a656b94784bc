"""Squeeze-1, Squeeze-15 and Unsqueeze-1: size-1 axes removed or inserted."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...shapes import Dim, PartialShape
from ..base import (
    INTEGRAL,
    Attr,
    In,
    Inference,
    Op,
    TensorInfo,
    op_error,
)
from ..helpers import const_axes, const_ints
from ..registry import register

_ONE = Dim(1, 1)
DATA, AXES = 0, 1


class _Squeeze(Op):
    type = "Squeeze"
    family = "shape"
    inputs = (In("data"), In("axes", INTEGRAL, rank=(0, 1), optional=True, value=True))
    moves_values = (DATA,)
    skip = False  # Squeeze-15 allow_axis_skip

    def infer(self, data: TensorInfo, axes: TensorInfo | None = None) -> Inference:
        dims = data.shape.dims
        skip = getattr(self, "allow_axis_skip", False)
        if axes is None:
            return self._squeeze_all(data)
        values = const_axes(axes, data.shape.rank, "axes", AXES)
        if values is None or dims is None:
            return Inference([TensorInfo(PartialShape(None), data.etype)])
        if not values:
            return self._squeeze_all(data)
        chosen = set(values)
        out, drop = [], []
        for a, d in enumerate(dims):
            if a not in chosen:
                out.append(d)
            elif d.is_static and d.value == 1:
                drop.append(a)
            elif not d.contains(1):
                if not skip:
                    raise op_error(f"axis {a} of data {data.shape} is {d}, not 1: it cannot be squeezed",
                                   "bad-value", AXES)
                out.append(d)
            elif skip:  # may or may not be 1: the rank is known only at run time
                return Inference([TensorInfo(PartialShape(None), data.etype)])
            else:
                drop.append(a)  # must be 1 at run time
        result = PartialShape(tuple(out))
        return Inference([TensorInfo(result, data.etype)], result.to_tuple() if result.is_static else None)

    def _squeeze_all(self, data: TensorInfo) -> Inference:
        dims = data.shape.dims
        if dims is None or any(d.contains(1) and not d.is_static for d in dims):
            return Inference([TensorInfo(PartialShape(None), data.etype)])
        result = PartialShape(tuple(d for d in dims if not (d.is_static and d.value == 1)))
        return Inference([TensorInfo(result, data.etype)], result.to_tuple())

    def compute(self, plan: tuple[int, ...], data: np.ndarray, axes: np.ndarray | None = None) -> Sequence[np.ndarray]:
        return [data.reshape(plan)]


@register
class Squeeze1(_Squeeze):
    version = 1
    summary = "dims of 1 removed (those in axes, or all)"


@register
class Squeeze15(_Squeeze):
    version = 15
    summary = "Squeeze; allow_axis_skip keeps named axes that are not 1"
    attributes = {"allow_axis_skip": Attr("bool", False, doc="an axis whose dim is not 1 is kept instead of an error")}


@register
class Unsqueeze1(Op):
    type, version = "Unsqueeze", 1
    family = "shape"
    summary = "dims of 1 inserted at axes (of the output)"
    inputs = (In("data"), In("axes", INTEGRAL, rank=(0, 1), value=True))
    moves_values = (DATA,)

    def infer(self, data: TensorInfo, axes: TensorInfo) -> Inference:
        raw = const_ints(axes, "axes", AXES)
        dims = data.shape.dims
        if raw is None or dims is None:
            n = axes.shape[0] if axes.shape.rank == 1 else _ONE if axes.shape.rank == 0 else None
            rank = None if dims is None or n is None or not n.is_static else len(dims) + n.value
            return Inference([TensorInfo(PartialShape.dynamic(rank), data.etype)])
        rank = len(dims) + len(raw)
        values = const_axes(axes, rank, "axes", AXES, unique=True)
        assert values is not None
        out: list[Dim] = []
        it = iter(dims)
        chosen = set(values)
        for a in range(rank):
            out.append(_ONE if a in chosen else next(it))
        result = PartialShape(tuple(out))
        return Inference([TensorInfo(result, data.etype)], result.to_tuple() if result.is_static else None)

    def compute(self, plan: tuple[int, ...], data: np.ndarray, axes: np.ndarray) -> Sequence[np.ndarray]:
        return [data.reshape(plan)]
