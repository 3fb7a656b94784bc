"""Element rearrangements that keep every value: Reverse-1 (axes by index or
by boolean mask), DepthToSpace-1 and SpaceToDepth-1 (blocks_first or
depth_first), ShuffleChannels-1 and Identity-16.  Each is one reshape,
transpose and copy; values move bit for bit."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ...base.shapes import Dim, PartialShape
from ..framework.base import Attr, Enum, In, Inference, Op, TensorInfo, normalize_axis, op_error
from ..framework.helpers import normalize_axes
from ..framework.registry import register

DATA, AXES = 0, 1

@register
class Reverse1(Op):
    type, version = "Reverse", 1
    family = "movement"
    summary = "data reversed along axes given by index or by a boolean mask"
    inputs = (In("data"), In("axis", rank=1, value=True))
    attributes = {"mode": Enum("index", "mask", doc="axis holds axis indexes or a boolean mask of rank length")}
    moves_values = (DATA,)

    def infer(self, data: TensorInfo, axis: TensorInfo) -> Inference:
        out = [TensorInfo(data.shape, data.etype)]
        rank = data.shape.rank
        if axis.known_type:
            if self.mode == "index" and not axis.etype.is_integral:
                raise op_error(f"axis must have an integer element type in index mode, got {axis.etype.name}",
                               "bad-input-type", AXES)
            if self.mode == "mask" and axis.etype.name != "boolean":
                raise op_error(f"axis must have element type boolean in mask mode, got {axis.etype.name}",
                               "bad-input-type", AXES)
        n = axis.shape[0] if axis.shape.rank == 1 else None
        if self.mode == "mask" and rank is not None and n is not None and not n.contains(rank):
            raise op_error(f"the mask has {n} elements but the data {data.shape} has rank {rank}",
                           "incompatible-inputs", AXES)
        value = axis.value()
        if value is None or rank is None:
            return Inference(out)
        if self.mode == "mask":
            axes = [a for a, on in enumerate(np.asarray(value).reshape(-1).tolist()) if on]
        else:
            # Repeated axes reverse once, as OpenVINO's reference does (an axis set).
            axes = sorted(set(normalize_axes([int(a) for a in np.asarray(value).reshape(-1).tolist()], rank, "axis",
                                             AXES)))
        return Inference(out, tuple(axes))

    def compute(self, plan: tuple[int, ...], data: np.ndarray, axis: np.ndarray) -> Sequence[np.ndarray]:
        return [np.ascontiguousarray(np.flip(data, plan)) if plan else data.copy()]

def _exact_div(d: Dim, n: int, what: str, shape: PartialShape, port: int = DATA) -> Dim:
    """``d / n`` where the division must be exact: static dims are checked,
    intervals keep the multiples of n they hold (as OpenVINO divides them)."""
    if d.is_static and d.value % n:
        raise op_error(f"{what} {d.value} of the data {shape} is not a multiple of {n}", "incompatible-inputs", port)
    lo, hi = -(-d.lo // n), None if d.hi is None else d.hi // n
    if hi is not None and hi < lo:
        raise op_error(f"{what} {d} of the data {shape} holds no multiple of {n}", "incompatible-inputs", port)
    return Dim(lo, hi)

class _BlockOp(Op):
    family = "movement"
    inputs = (In("data", rank=(3, None)),)
    attributes = {"mode": Enum("blocks_first", "depth_first", doc="how the channel dim is split"),
                  "block_size": Attr("uint", 1, doc="size of a block, >= 1")}
    moves_values = True

    def validate(self) -> list:
        if self.block_size < 1:
            return [op_error(f"block_size must be at least 1, got {self.block_size}", "bad-attribute")]
        return []

@register
class DepthToSpace1(_BlockOp):
    type, version = "DepthToSpace", 1
    summary = "channel blocks moved into the spatial dims"

    def infer(self, data: TensorInfo) -> Inference:
        if data.shape.dims is None:
            return Inference([TensorInfo(data.shape, data.etype)])
        dims = data.shape.dims
        bs, k = self.block_size, len(dims) - 2
        c = _exact_div(dims[1], bs**k, "channel dim", data.shape)
        out = (dims[0], c) + tuple(d * bs for d in dims[2:])
        return Inference([TensorInfo(PartialShape(out), data.etype)])

    def compute(self, plan: None, data: np.ndarray) -> Sequence[np.ndarray]:
        n, c, *space = data.shape
        bs, k = self.block_size, len(space)
        cc = c // bs**k
        if self.mode == "blocks_first":
            x = data.reshape(n, *([bs] * k), cc, *space)  # axes: n, b1..bk, c', d1..dk
            order = [0, k + 1] + [a for i in range(k) for a in (k + 2 + i, 1 + i)]
        else:
            x = data.reshape(n, cc, *([bs] * k), *space)  # axes: n, c', b1..bk, d1..dk
            order = [0, 1] + [a for i in range(k) for a in (k + 2 + i, 2 + i)]
        out = np.ascontiguousarray(x.transpose(order))
        return [out.reshape(n, cc, *(d * bs for d in space))]

@register
class SpaceToDepth1(_BlockOp):
    type, version = "SpaceToDepth", 1
    summary = "spatial blocks moved into the channel dim"

    def infer(self, data: TensorInfo) -> Inference:
        if data.shape.dims is None:
            return Inference([TensorInfo(data.shape, data.etype)])
        dims = data.shape.dims
        bs, k = self.block_size, len(dims) - 2
        space = tuple(_exact_div(d, bs, f"dim {i + 2}", data.shape) for i, d in enumerate(dims[2:]))
        out = (dims[0], dims[1] * bs**k) + space
        return Inference([TensorInfo(PartialShape(out), data.etype)])

    def compute(self, plan: None, data: np.ndarray) -> Sequence[np.ndarray]:
        n, c, *space = data.shape
        bs, k = self.block_size, len(space)
        small = [d // bs for d in space]
        x = data.reshape(n, c, *[v for d in small for v in (d, bs)])  # axes: n, c, d1, b1, d2, b2, ...
        blocks = [3 + 2 * i for i in range(k)]
        spatial = [2 + 2 * i for i in range(k)]
        order = [0] + (blocks + [1] if self.mode == "blocks_first" else [1] + blocks) + spatial
        out = np.ascontiguousarray(x.transpose(order))
        return [out.reshape(n, c * bs**k, *small)]


@register
class ShuffleChannels1(Op):
    # OpenVINO lists it from opset3 on but writes it as version="opset1" (its op is v0)
    type, version = "ShuffleChannels", 1
    family = "movement"
    summary = "the dim at axis seen as [group, n/group] and transposed"
    inputs = (In("data", rank=(1, None)),)
    attributes = {"axis": Attr("int", 1, doc="in [-rank, rank-1]"), "group": Attr("uint", 1, doc=">= 1, divides the dim")}
    moves_values = True

    def validate(self) -> list:
        if self.group < 1:
            return [op_error(f"group must be at least 1, got {self.group}", "bad-attribute")]
        return []

    def infer(self, data: TensorInfo) -> Inference:
        out = [TensorInfo(data.shape, data.etype)]
        if data.shape.dims is None:
            return Inference(out)
        axis = normalize_axis(self.axis, len(data.shape.dims), "axis", "axis-out-of-range")
        d = data.shape[axis]
        if d.is_static and d.value % self.group:
            raise op_error(f"dim {axis} of the data {data.shape} is {d.value}, not a multiple of group {self.group}",
                           "incompatible-inputs", DATA)
        return Inference(out, axis)

    def compute(self, plan: int, data: np.ndarray) -> Sequence[np.ndarray]:
        shape = data.shape
        pre, n, post = math.prod(shape[:plan]), shape[plan], math.prod(shape[plan + 1 :])
        x = data.reshape(pre, self.group, n // self.group, post)
        return [np.ascontiguousarray(x.transpose(0, 2, 1, 3)).reshape(shape)]

@register
class Identity16(Op):
    type, version = "Identity", 16
    family = "movement"
    summary = "a copy of the input"
    inputs = (In("data"),)
    moves_values = True

    def infer(self, data: TensorInfo) -> Inference:
        return Inference([TensorInfo(data.shape, data.etype)])

    def compute(self, plan: None, data: np.ndarray) -> Sequence[np.ndarray]:
        return [data.copy()]
