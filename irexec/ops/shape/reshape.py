"""Reshape-1, and what the shape ops share (shape_of.py, squeeze.py, range.py;
Broadcast is in movement/broadcast.py).

They keep partial values flowing: ShapeOf's output carries each dim's
interval as value bounds (its exact value when the shape is static), Squeeze,
Unsqueeze and Reshape move those bounds, and Reshape, Broadcast and Range read
a shape computed at run time with ``value_dims``/``shape_from_input``, so a
ShapeOf -> Gather -> Concat -> Reshape chain still yields the dims it knows.

Reshape resolves ``-1`` exactly as OpenVINO's shape inference does: static
dims equal on both sides cancel, the rest multiply as intervals, and the
``-1`` dim is the input product's interval divided by the output's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ...shapes import DYNAMIC, Dim, PartialShape, format_dims
from ..base import (
    INTEGRAL,
    Attr,
    In,
    Inference,
    Op,
    TensorInfo,
    op_error,
)
from ..helpers import value_dims
from ..registry import register

_ONE = Dim(1, 1)


# ------------------------------------------------------------------- ShapeOf


# ------------------------------------------------------------------- Reshape

DATA, SHAPE = 0, 1


def _mul_dims(dims: Sequence[Dim]) -> tuple[int, Dim]:
    """(product of the static dims, interval product of the others)."""
    static, dyn = 1, _ONE
    for d in dims:
        if d.is_static:
            static *= d.value
        else:
            dyn = dyn * d
    return static, dyn


def _resolve_minus_one(in_dims: list[Dim], out_dims: list[Dim]) -> tuple[Dim, int, int]:
    """The ``-1`` dim as OpenVINO resolves it (without symbols): static dims
    equal in input and output cancel; returns (dim, static in, static out)."""
    outs = list(out_dims)
    kept_in = []
    for d in in_dims:
        for j, o in enumerate(outs):
            if d.is_static and d.value != 0 and o == d:
                del outs[j]
                break
        else:
            kept_in.append(d)
    in_s, in_d = _mul_dims(kept_in)
    out_s, out_d = _mul_dims(outs)
    if in_s != out_s:
        in_d, out_d = in_d * in_s, out_d * out_s
    if in_d.is_static and out_d.is_static:
        if out_d.value == 0:
            return Dim(0, None), in_s, out_s
        return Dim(-(-in_d.value // out_d.value), in_d.value // out_d.value), in_s, out_s
    hi = None
    if in_d.hi is not None and out_d.lo != 0 and not out_d.is_dynamic:
        hi = in_d.hi // out_d.lo
    lo = in_d.lo
    if out_d.hi != 0:
        lo = -(-in_d.lo // out_d.hi) if out_d.hi is not None else (1 if in_d.lo > 0 else 0)
    return Dim(lo, hi), in_s, out_s


@register
class Reshape1(Op):
    type, version = "Reshape", 1
    family = "shape"
    summary = "same elements in a new shape; -1 infers one dim, 0 copies the input dim with special_zero"
    inputs = (In("data"), In("shape", INTEGRAL, rank=1, value=True))  # OpenVINO 2026 refuses a scalar pattern
    attributes = {"special_zero": Attr("bool", required=True, doc="0 in the pattern copies the input dim")}
    moves_values = (DATA,)

    def infer(self, data: TensorInfo, shape: TensorInfo) -> Inference:
        pattern = value_dims(shape)
        if pattern is None:
            n = shape.shape[0] if shape.shape.rank == 1 else None
            out = PartialShape.dynamic(n.value) if n is not None and n.is_static else PartialShape(None)
            return Inference([TensorInfo(out, data.etype)])
        minus_one = [i for i, p in enumerate(pattern) if isinstance(p, int) and p == -1]
        if len(minus_one) > 1:
            raise op_error(f"shape {format_dims(pattern)} has more than one -1", "bad-value", SHAPE)
        for p in pattern:
            if isinstance(p, int) and p < -1:
                raise op_error(f"shape {_pattern_text(pattern)} holds {p}; dims must be >= 0 or one -1", "bad-value", SHAPE)
        in_dims = data.shape.dims
        out: list[Dim] = []
        out_known: list[Dim] = []  # pattern dims that take part in the products
        consumed: list[Dim] = []  # input dims copied by special zeros
        for i, p in enumerate(pattern):
            if i in minus_one:
                out.append(DYNAMIC)
            elif self.special_zero and p == 0:
                if in_dims is None:
                    out.append(DYNAMIC)
                    continue
                if i >= len(in_dims):
                    raise op_error(f"shape {_pattern_text(pattern)} copies input dim {i} (special_zero) but the data "
                                   f"{data.shape} has rank {len(in_dims)}", "bad-value", SHAPE)
                out.append(in_dims[i])
                consumed.append(in_dims[i])
            else:
                d = Dim(p, p) if isinstance(p, int) else p
                out.append(d)
                out_known.append(d)
        if in_dims is not None:
            zeros = {i for i, p in enumerate(pattern) if self.special_zero and p == 0 and i not in minus_one}
            rest = [d for i, d in enumerate(in_dims) if i not in zeros]
            if minus_one:
                dim, in_s, out_s = _resolve_minus_one(rest, out_known)
                if dim.hi is not None and dim.lo > dim.hi or (out_s == 0 and in_s != 0):
                    raise op_error(f"data {data.shape} cannot be reshaped to {_pattern_text(pattern)}: the other dims "
                                   f"do not divide its element count", "incompatible-inputs", SHAPE)
                if out_s == 0 and dim.is_dynamic and data.shape.is_static:
                    dim = Dim(0, 0)  # zero elements: the -1 dim is 0, as OpenVINO's reference makes it
                out[minus_one[0]] = dim
        elif minus_one:
            # OpenVINO: with the input rank unknown, -1 is at least 1 unless a special zero hides input dims
            hidden = self.special_zero and any(p == 0 for p in pattern)
            out[minus_one[0]] = DYNAMIC if hidden else Dim(1, None)
        if in_dims is not None:
            result = PartialShape(tuple(out))
            if data.shape.is_static and result.is_static and math.prod(data.shape.to_tuple()) != math.prod(result.to_tuple()):
                raise op_error(f"data {data.shape} ({math.prod(data.shape.to_tuple())} elements) cannot be reshaped to "
                               f"{result} ({math.prod(result.to_tuple())} elements)", "incompatible-inputs", SHAPE)
        result = PartialShape(tuple(out))
        plan = result.to_tuple() if result.is_static else None
        return Inference([TensorInfo(result, data.etype)], plan)

    def compute(self, plan: tuple[int, ...], data: np.ndarray, shape: np.ndarray) -> Sequence[np.ndarray]:
        return [data.reshape(plan)]


def _pattern_text(pattern: Sequence[int | Dim]) -> str:
    return "[" + ",".join(str(p) for p in pattern) + "]"
