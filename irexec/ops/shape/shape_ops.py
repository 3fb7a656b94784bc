"""Shape ops: ShapeOf-1/3, Reshape-1, Squeeze-1/15, Unsqueeze-1, Range-1/4
(Broadcast-1/3, which shares their value-bounds rules, is in movement/broadcast.py).

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
from typing import Any

import numpy as np

from ...base import dtypes
from ...base.shapes import DYNAMIC, Dim, PartialShape, format_dims
from ..framework.base import INTEGRAL, NUMERIC, UNBOUNDED, Attr, In, IndexType, Inference, Op, TensorInfo, op_error, same_as
from ..framework.helpers import const_axes, const_ints, shape_bounds, value_dims
from ..framework.registry import register

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
            unknown = PartialShape.dynamic(n.value) if n is not None and n.is_static else PartialShape(None)
            return Inference([TensorInfo(unknown, data.etype)])
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


_I64 = dtypes.get("i64")


class _ShapeOf(Op):
    type = "ShapeOf"
    shape_only = True
    family = "shape"
    inputs = (In("data"),)

    def _etype(self) -> Any:
        return getattr(self, "output_type", _I64)

    def infer(self, data: TensorInfo) -> Inference:
        rank = data.shape.rank
        shape = PartialShape.dynamic(1) if rank is None else PartialShape.static([rank])
        return Inference([TensorInfo(shape, self._etype())])

    def fold(self, inputs: Sequence[TensorInfo], inference: Inference) -> list[TensorInfo]:
        out = inference.outputs[0]
        shape = inputs[0].shape
        if shape.dims is None:
            return [out]
        dtype = self._etype().dtype
        if shape.is_static:
            return [TensorInfo(out.shape, out.etype, np.array(shape.to_tuple(), dtype))]
        return [TensorInfo(out.shape, out.etype, None, shape_bounds(shape))]

    def compute(self, plan: Any, data: np.ndarray) -> Sequence[np.ndarray]:
        return [np.array(data.shape, self._etype().dtype)]


@register
class ShapeOf1(_ShapeOf):
    version = 1
    summary = "the input's shape as an i64 1-D tensor"


@register
class ShapeOf3(_ShapeOf):
    version = 3
    summary = "the input's shape as a 1-D tensor of output_type (i32 or i64)"
    attributes = {"output_type": IndexType()}


AXES = 1


class _Squeeze(Op):
    type = "Squeeze"
    family = "shape"
    inputs = (In("data"), In("axes", NUMERIC, rank=(0, 1), optional=True, value=True))  # real axes truncate
    moves_values = (DATA,)
    skip = False  # Squeeze-15 allow_axis_skip

    def infer(self, data: TensorInfo, axes: TensorInfo | None = None) -> Inference:
        dims = data.shape.dims
        skip = getattr(self, "allow_axis_skip", False)
        if axes is None:
            return self._squeeze_all(data)
        values = const_axes(axes, data.shape.rank, "axes", AXES, real=True)
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
                out.append(d)  # never 1: kept, as OpenVINO does in both versions
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
    summary = "Squeeze; allow_axis_skip keeps named axes that may not be 1"
    attributes = {"allow_axis_skip": Attr("bool", False, doc="a named axis whose dim is dynamic is kept when it is "
                                                             "not 1 at run time (the output rank is then dynamic)")}


@register
class Unsqueeze1(Op):
    type, version = "Unsqueeze", 1
    family = "shape"
    summary = "dims of 1 inserted at axes (of the output)"
    inputs = (In("data"), In("axes", NUMERIC, rank=(0, 1), value=True))  # real axes truncate, as OpenVINO reads them
    moves_values = (DATA,)

    def infer(self, data: TensorInfo, axes: TensorInfo) -> Inference:
        raw = const_ints(axes, "axes", AXES, real=True)
        dims = data.shape.dims
        if raw is None or dims is None:
            n = axes.shape[0] if axes.shape.rank == 1 else _ONE if axes.shape.rank == 0 else None
            rank = None if dims is None or n is None or not n.is_static else len(dims) + n.value
            return Inference([TensorInfo(PartialShape.dynamic(rank), data.etype)])
        # a repeated axis inserts one dim, as OpenVINO does: the output rank counts distinct values
        rank = len(dims) + len(set(raw))
        values = const_axes(axes, rank, "axes", AXES, real=True)
        assert values is not None
        chosen = set(values)
        if len(chosen) != rank - len(dims):
            raise op_error(f"axes {raw} name one output axis twice (output rank {rank})", "bad-value", AXES)
        out: list[Dim] = []
        it = iter(dims)
        for a in range(rank):
            out.append(_ONE if a in chosen else next(it))
        result = PartialShape(tuple(out))
        return Inference([TensorInfo(result, data.etype)], result.to_tuple() if result.is_static else None)

    def compute(self, plan: tuple[int, ...], data: np.ndarray, axes: np.ndarray) -> Sequence[np.ndarray]:
        return [data.reshape(plan)]


START, STOP, STEP = 0, 1, 2


def _scalar_value(info: TensorInfo, what: str, port: int) -> float | int | None:
    v = info.value()
    if v is None:
        return None
    v = np.asarray(v).reshape(-1)  # one value: the inputs are declared scalars
    x = v[0]
    if v.dtype.kind in "iub":
        return int(x)
    x = float(x)
    if not math.isfinite(x):
        raise op_error(f"{what} is {x}; it must be finite", "bad-value", port)
    return x


def _range_length(start: float, stop: float, step: float) -> int:
    if (step > 0 and start >= stop) or (step < 0 and start <= stop):
        return 0
    if isinstance(start, int) and isinstance(stop, int) and isinstance(step, int):
        return -(-abs(stop - start) // abs(step))
    ratio = abs(stop - start) / abs(step)  # in f64, as OpenVINO computes it: ends 3.4e308 apart give inf
    if not ratio < 2.0**63:
        raise op_error(f"a range from {start} to {stop} by {step} has more than 2^63-1 elements", "shape-too-large")
    return int(math.ceil(ratio))


class _Range(Op):
    type = "Range"
    family = "shape"

    def _out_etype(self, start: TensorInfo) -> Any:
        raise NotImplementedError

    def infer(self, start: TensorInfo, stop: TensorInfo, step: TensorInfo) -> Inference:
        et = self._out_etype(start)
        integral = et.is_integral
        vals = [_scalar_value(i, n, p) for i, n, p in ((start, "start", START), (stop, "stop", STOP), (step, "step", STEP))]
        if vals[2] is not None and vals[2] == 0:
            raise op_error("step is 0: the range would never end", "bad-value", STEP)
        if integral:
            vals = [None if v is None else int(v) if isinstance(v, int) else int(math.trunc(v)) for v in vals]
            if vals[2] == 0:
                raise op_error("step truncates to 0 for an integer output type", "bad-value", STEP)
        if all(v is not None for v in vals):
            a, b, s = vals
            n = _range_length(a, b, s)  # type: ignore[arg-type]
            return Inference([TensorInfo(PartialShape.static([n]), et)], (a, s, n))
        return Inference([TensorInfo(PartialShape((self._length_bounds(start, stop, step, vals[2]),)), et)])

    @staticmethod
    def _length_bounds(start: TensorInfo, stop: TensorInfo, step: TensorInfo, s: Any) -> Dim:
        """The length interval from integer bounds of start and stop and a known step."""
        if not isinstance(s, int) or s == 0:
            return DYNAMIC
        a, b = start.bounds(), stop.bounds()
        if a is None or b is None or a[0].size != 1 or b[0].size != 1:
            return DYNAMIC
        a_lo, a_hi, b_lo, b_hi = (int(x.reshape(-1)[0]) for x in (a[0], a[1], b[0], b[1]))
        if s > 0:
            lo_span, hi_span = b_lo - a_hi, (None if b_hi >= UNBOUNDED or a_lo <= -UNBOUNDED else b_hi - a_lo)
        else:
            lo_span, hi_span = a_lo - b_hi, (None if a_hi >= UNBOUNDED else a_hi - b_lo)
        stride = abs(s)
        lo = max(0, -(-lo_span // stride))
        hi = None if hi_span is None else max(0, -(-hi_span // stride))
        return Dim(lo, hi)

    def compute(self, plan: tuple[Any, Any, int], start: np.ndarray, stop: np.ndarray, step: np.ndarray) -> Sequence[np.ndarray]:
        a, s, n = plan
        dtype = self._out_etype(concrete_type(start)).dtype
        if dtype.kind in "iu":
            # start + i*step with the type's wrap-around, as repeated += does
            idx = np.arange(n, dtype=np.int64).astype(dtype)
            with np.errstate(over="ignore"):
                return [(idx * np.array(s).astype(np.int64).astype(dtype) + np.array(a).astype(np.int64).astype(dtype)).astype(dtype)]
        # floats: start + T(i) * step, each operation rounded in T as OpenVINO's reference does
        with np.errstate(all="ignore"):
            t_start = np.asarray(start).reshape(()).astype(dtype)
            t_step = np.asarray(step).reshape(()).astype(dtype)
            idx = np.arange(n, dtype=np.float64).astype(dtype)
            return [(t_start + idx * t_step).astype(dtype)]


def concrete_type(a: np.ndarray) -> TensorInfo:
    et = dtypes.from_dtype(a.dtype) or dtypes.get("undefined")
    return TensorInfo(PartialShape(()), et)


@register
class Range1(_Range):
    version = 1
    summary = "start, start+step, ... up to stop (excluded), in the inputs' element type"
    inputs = (In("start", NUMERIC, rank=0, value=True), In("stop", same_as("start"), rank=0, value=True),
              In("step", same_as("start"), rank=0, value=True))

    def _out_etype(self, start: TensorInfo) -> Any:
        return start.etype


@register
class Range4(_Range):
    version = 4
    summary = "start, start+step, ... up to stop (excluded), as output_type"
    inputs = (In("start", NUMERIC, rank=0, value=True), In("stop", NUMERIC, rank=0, value=True),
              In("step", NUMERIC, rank=0, value=True))
    attributes = {"output_type": Attr("etype", required=True, doc="a number element type")}

    def validate(self) -> list:
        if not self.output_type.is_numeric:
            return [op_error(f"output_type must be a number type, got {self.output_type.name}", "bad-attribute")]
        return []

    def _out_etype(self, start: TensorInfo) -> Any:
        return self.output_type
