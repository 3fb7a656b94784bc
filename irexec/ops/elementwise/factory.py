"""Factories for elementwise ops: one line per op.

    binary("Add", 1, np.add)                       # numeric, broadcasting, same type out
    compare("Equal", 1, np.equal)                  # boolean out
    logical("LogicalAnd", 1, np.logical_and)       # boolean in and out
    unary("Abs", 1, np.abs)

A kernel is a function of NumPy arrays (and, with ``with_op=True``, the op for
its attributes).  ``precise=True`` computes f16, bf16 and f32 in f64 and
rounds once (transcendental functions: within an ulp of the exact result);
otherwise the function runs on the element type itself, which for NumPy and
ml_dtypes ufuncs on f16/bf16 means computing in f32 and rounding once, as
OpenVINO's reference does.  Integer arithmetic wraps as in C.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from types import FrameType
from typing import Any

import numpy as np

from ...base import dtypes, lowbit
from ...base.dtypes import is_bf16
from ...base.shapes import PartialShape, broadcast_numpy, broadcast_pdpd
from ...kernels.elementwise import apply_f64
from ..framework.accuracy import EXACT, TRANSCENDENTAL
from ..framework.base import BOOLEAN, COMPARABLE, NUMERIC, UNBOUNDED, Attr, Enum, In, Inference, Op, TensorInfo, op_error, same_as
from ..framework.registry import register

Kernel = Callable[..., np.ndarray]
Bounds = Callable[[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]], tuple[np.ndarray, np.ndarray] | None]

_BOOLEAN = dtypes.get("boolean")
AUTO_BROADCAST = {"auto_broadcast": Enum("numpy", "none", "pdpd", doc="broadcasting rule of the two inputs")}


def _wide_computed(dtype: np.dtype) -> bool:
    """Whether a precise kernel computes ``dtype`` in f64: the NumPy floats,
    bf16 and ml_dtypes' small floats (f8, f4: kind "V", not "f")."""
    return dtype.kind == "f" or is_bf16(dtype) or lowbit.name_of(dtype) in lowbit.SMALL_FLOATS


def _apply(fn: Kernel, op: Op, with_op: bool, precise: bool, arrays: Sequence[np.ndarray], out_dtype: np.dtype,
           narrow: Kernel | None = None) -> np.ndarray:
    if all(a.ndim == 0 for a in arrays):
        # NumPy makes scalars, not arrays, of 0-d operands, and kernels write with out=: run on one element
        one = _apply(fn, op, with_op, precise, [a.reshape(1) for a in arrays], out_dtype, narrow)
        return one.reshape(())
    if precise and _wide_computed(arrays[0].dtype):
        # f64 computation on private copies (the kernel may work in place: never on
        # the input, which may be a read-only constant), rounded once
        if narrow is not None and arrays[0].dtype != np.float64:
            fn = narrow  # the result is rounded to at most 24 bits: a kernel accurate to 2**-29 will do (half an ulp is >= 2**-25)
        kernel = (lambda *xs: fn(*xs, op)) if with_op else fn
        shape = arrays[0].shape
        if all(a.shape == shape for a in arrays):
            return apply_f64(kernel, arrays, out_dtype)
        arrays = [a.astype(np.float64) for a in arrays]
    with np.errstate(all="ignore"):
        result = fn(*arrays, op) if with_op else fn(*arrays)
    result = np.asarray(result)
    if result.dtype != out_dtype:
        with np.errstate(all="ignore"):
            result = result.astype(out_dtype)
    return result


class Unary(Op):
    """One input, one output of the same shape."""

    family = "elementwise"
    infer_from_types = True
    inputs = (In("data", NUMERIC),)
    fn: Kernel
    with_op = False
    precise = False
    boolean_out = False
    narrow: Kernel | None = None  # precise kernel for data narrower than f64

    def infer(self, data: TensorInfo) -> list[TensorInfo]:
        return [TensorInfo(data.shape, _BOOLEAN if self.boolean_out else data.etype)]

    def compute(self, plan: Any, data: np.ndarray) -> list[np.ndarray]:
        out_dtype = np.dtype(np.bool_) if self.boolean_out else data.dtype
        return [_apply(type(self).fn, self, self.with_op, self.precise, [data], out_dtype, type(self).narrow)]


class Binary(Op):
    """Two inputs broadcast together (numpy, none or pdpd)."""

    family = "elementwise"
    infer_from_types = True
    inputs = (In("a", NUMERIC), In("b", same_as("a")))
    attributes = AUTO_BROADCAST
    fn: Kernel
    with_op = False
    precise = False
    boolean_out = False
    bounds_fn: Bounds | None = None

    def infer(self, a: TensorInfo, b: TensorInfo) -> Inference:
        shape, plan = broadcast_shapes(a.shape, b.shape, self.auto_broadcast)
        return Inference([TensorInfo(shape, _BOOLEAN if self.boolean_out else a.etype)], plan)

    def compute(self, plan: Any, a: np.ndarray, b: np.ndarray) -> list[np.ndarray]:
        if plan is not None:
            b = b.reshape(plan)
        out_dtype = np.dtype(np.bool_) if self.boolean_out else a.dtype
        return [_apply(type(self).fn, self, self.with_op, self.precise, [a, b], out_dtype)]

    def fold(self, inputs: Sequence[TensorInfo], inference: Inference) -> list[TensorInfo]:
        outs = super().fold(inputs, inference)
        bounds_fn = type(self).bounds_fn
        if bounds_fn is None or outs[0].is_constant or not outs[0].etype.is_integral or not self.foldable(inputs, inference):
            return outs
        a, b = inputs[0].bounds(), inputs[1].bounds()
        if a is None or b is None:
            return outs
        shape = outs[0].shape.to_tuple()
        try:
            lo_hi = bounds_fn(a, b)
        except (ValueError, ArithmeticError):
            return outs
        if lo_hi is None:
            return outs
        lo, hi = (np.broadcast_to(np.asarray(x, np.int64), shape).copy() for x in lo_hi)
        return [TensorInfo(outs[0].shape, outs[0].etype, None, (lo, hi))]


def broadcast_shapes(a: PartialShape, b: PartialShape, rule: str) -> tuple[PartialShape, tuple[int, ...] | None]:
    """The output shape of two broadcast inputs (and a shape to view ``b`` as,
    None: NumPy broadcasting does the rest)."""
    if rule == "none":
        merged = a.intersect(b)
        if merged is None:
            raise op_error(f"auto_broadcast=none needs equal shapes, got {a} and {b}", "incompatible-inputs", 1)
        return merged, None
    if rule == "pdpd":
        merged = broadcast_pdpd(a, b)
        if merged is None:
            raise op_error(f"{b} cannot be broadcast onto {a} (auto_broadcast=pdpd: b laid onto a from its first dim)",
                           "incompatible-inputs", 1)
        if a.rank is None or b.rank is None or not b.is_static:
            return merged, None
        return merged, b.to_tuple() + (1,) * (a.rank - b.rank)  # b's dims padded on the right, for NumPy
    merged = broadcast_numpy(a, b)
    if merged is None:
        raise op_error(f"shapes {a} and {b} cannot be broadcast together (numpy rules)", "incompatible-inputs", 1)
    return merged, None


def _caller_module() -> str:
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__") == __name__:
        frame = frame.f_back
    return frame.f_globals["__name__"] if frame is not None else __name__


def _define(base: type[Op], type_: str, version: int, fn: Kernel, *, since: int | None, summary: str,
            accuracy: str | None, extra: dict[str, Any]) -> type[Op]:
    # A kernel computed in f64 and rounded once is within 1 ulp; a boolean result is exact;
    # any other op states its class (an exactness is never assumed).
    if accuracy is None:
        if extra["precise"]:
            accuracy = TRANSCENDENTAL
        elif extra["boolean_out"]:
            accuracy = EXACT
        else:
            raise RuntimeError(f"{type_}-{version} states no accuracy class")
    namespace: dict[str, Any] = {
        "accuracy": accuracy,
        "type": type_,
        "version": version,
        "since_opset": since if since is not None else version,
        "fn": staticmethod(fn),
        "summary": summary,
        "__module__": _caller_module(),  # where the op's one line is: what `irexec ops` shows
        **extra,
    }
    cls = type(f"{type_}{version}", (base,), namespace)
    return register(cls)


def unary(type_: str, version: int, fn: Kernel, *, types: str | tuple[str, ...] = NUMERIC, since: int | None = None,
          summary: str = "", precise: bool = False, boolean_out: bool = False, with_op: bool = False,
          attributes: dict[str, Attr] | None = None, narrow: Kernel | None = None, accuracy: str | None = None) -> type[Op]:
    """Register an elementwise op of one input (``narrow``: a cheaper precise
    kernel for f32, f16 and bf16 data, accurate to 2**-29 or better:
    far inside the half ulp of the rounded result)."""
    extra: dict[str, Any] = {"inputs": (In("data", types),), "precise": precise, "boolean_out": boolean_out,
                             "with_op": with_op, "narrow": staticmethod(narrow) if narrow else None}
    if attributes is not None:
        extra["attributes"] = attributes
    return _define(Unary, type_, version, fn, since=since, summary=summary, accuracy=accuracy, extra=extra)


def binary(type_: str, version: int, fn: Kernel, *, types: str | tuple[str, ...] = NUMERIC, since: int | None = None,
           summary: str = "", precise: bool = False, boolean_out: bool = False, with_op: bool = False,
           attributes: dict[str, Attr] | None = None, bounds: Bounds | None = None, accuracy: str | None = None) -> type[Op]:
    """Register an elementwise op of two broadcast inputs of one element type."""
    extra: dict[str, Any] = {"inputs": (In("a", types), In("b", same_as("a"))), "precise": precise,
                             "boolean_out": boolean_out, "with_op": with_op, "bounds_fn": staticmethod(bounds) if bounds else None,
                             "attributes": {**AUTO_BROADCAST, **(attributes or {})}}
    return _define(Binary, type_, version, fn, since=since, summary=summary, accuracy=accuracy, extra=extra)


def compare(type_: str, version: int, fn: Kernel, *, types: str | tuple[str, ...] = COMPARABLE, since: int | None = None,
            summary: str = "") -> type[Op]:
    """Register a comparison: two broadcast inputs, a boolean output."""
    return binary(type_, version, fn, types=types, since=since, summary=summary, boolean_out=True)


def logical(type_: str, version: int, fn: Kernel, *, since: int | None = None, summary: str = "") -> type[Op]:
    """Register a logical op on boolean inputs."""
    return binary(type_, version, fn, types=BOOLEAN, since=since, summary=summary, boolean_out=True)


# ---------------------------------------------------------------- value bounds
# Lower and upper value arrays (UNBOUNDED above) of integer shape arithmetic.

def _saturate(x: np.ndarray, *unbounded: np.ndarray) -> np.ndarray:
    x = np.asarray(x, np.int64)
    for u in unbounded:
        x = np.where(u >= UNBOUNDED, UNBOUNDED, x)
    return x


def add_bounds(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    with np.errstate(over="ignore"):
        return a[0] + b[0], _saturate(a[1] + b[1], a[1], b[1])


def subtract_bounds(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray] | None:
    if (b[1] >= UNBOUNDED).any():
        return None
    with np.errstate(over="ignore"):
        return a[0] - b[1], _saturate(a[1] - b[0], a[1])


def multiply_bounds(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray] | None:
    if (a[0] < 0).any() or (b[0] < 0).any():
        return None
    with np.errstate(over="ignore"):
        hi = _saturate(a[1] * b[1], a[1], b[1])
        hi = np.where((a[1] == 0) | (b[1] == 0), 0, hi)
        return a[0] * b[0], hi


def divide_bounds(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray] | None:
    """Floor division of non-negative values by positive ones."""
    if (a[0] < 0).any() or (b[0] <= 0).any():
        return None
    hi_div = np.where(b[1] >= UNBOUNDED, 1, b[1])
    lo = np.where(b[1] >= UNBOUNDED, 0, a[0] // hi_div)
    return lo, _saturate(a[1] // b[0], a[1])


def maximum_bounds(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    return np.maximum(a[0], b[0]), np.maximum(a[1], b[1])


def minimum_bounds(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    return np.minimum(a[0], b[0]), np.minimum(a[1], b[1])
