"""Reading what inference knows of an input's value: constant integers, axes
normalised against a rank, and shapes described by a tensor (a Reshape's
target, a Broadcast's shape) from its value or its value bounds."""

from __future__ import annotations

import numpy as np

from ...base import limits
from ...base.shapes import DYNAMIC, Dim, PartialShape
from .base import FOLD_LIMIT_ELEMENTS, UNBOUNDED, TensorInfo, normalize_axis, op_error


def const_ints(info: TensorInfo, what: str, port: int, *, real: bool = False) -> list[int] | None:
    """The integers an input holds when it is constant, else None.  Real values
    are refused (shape-like inputs are integers) unless ``real``: then they are
    truncated toward zero, as OpenVINO reads the axes of Squeeze and Unsqueeze."""
    v = info.value()
    if v is None:
        return None
    v = np.asarray(v)
    if v.dtype.kind not in "iub":
        if not real:
            raise op_error(f"{what} must hold integers, got {v.dtype}", "bad-input-type", port)
        w = v.astype(np.float64)
        if not np.isfinite(w).all() or np.abs(w).max(initial=0) >= 2.0 ** 62:
            raise op_error(f"{what} holds a value that is no axis: {w[~np.isfinite(w) | (np.abs(w) >= 2.0 ** 62)][0]}",
                           "bad-value", port)
        v = np.trunc(w).astype(np.int64)
    if v.size > FOLD_LIMIT_ELEMENTS:  # axes, shapes, pads: one per dim; never millions of Python ints
        raise op_error(f"{what} holds {v.size} values; a shape-like input holds at most {FOLD_LIMIT_ELEMENTS}",
                       "bad-value", port)
    return [int(x) for x in v.reshape(-1).tolist()]


def const_int(info: TensorInfo, what: str, port: int) -> int | None:
    """A scalar or one-element input's integer value when constant."""
    values = const_ints(info, what, port)
    if values is None:
        return None
    if len(values) != 1:
        raise op_error(f"{what} must hold one value, got {len(values)}", "bad-input-rank", port)
    return values[0]


def const_axes(info: TensorInfo, rank: int | None, what: str, port: int, *, unique: bool = False,
               code: str = "axis-out-of-range", real: bool = False) -> list[int] | None:
    """Axes from a constant input, normalised against ``rank`` (kept as given
    while the rank is unknown); None when the value is not known."""
    values = const_ints(info, what, port, real=real)
    if values is None or rank is None:
        return values
    axes = [normalize_axis(a, rank, what, code, port) for a in values]
    if unique and len(set(axes)) != len(axes):
        raise op_error(f"{what} {values} name an axis twice", "bad-value", port)
    return axes


def normalize_axes(values: list[int], rank: int, what: str, port: int | None = None, *, unique: bool = False,
                   code: str = "axis-out-of-range") -> list[int]:
    axes = [normalize_axis(a, rank, what, code, port) for a in values]
    if unique and len(set(axes)) != len(axes):
        raise op_error(f"{what} {values} name an axis twice", "bad-value", port)
    return axes


def shape_bounds(shape: PartialShape) -> tuple[np.ndarray, np.ndarray]:
    """The bounds ShapeOf's value has: each dim's interval."""
    dims = shape.dims or ()
    lo = np.array([d.lo for d in dims], np.int64)
    hi = np.array([UNBOUNDED if d.hi is None else d.hi for d in dims], np.int64)
    return lo, hi


def value_dims(info: TensorInfo) -> list[Dim | int] | None:
    """Each element of a 1-D (or scalar) integer input as an exact int when it
    is known, else a Dim of its possible non-negative values; None when the
    element count or every bound is unknown."""
    b = info.bounds()
    if b is None:
        v = info.value() if info.is_constant else None
        if v is not None and v.dtype == np.uint64 and v.size and int(v.max()) > UNBOUNDED:
            # a known u64 value no int64 holds: no dim or count is that large (never leave it unknown,
            # which would leave the op without a plan at run time)
            raise op_error(f"a dim or count of {int(v.max())}, past the largest irexec holds ({UNBOUNDED})",
                           "shape-too-large")
        return None
    lo, hi = b
    out: list[Dim | int] = []
    for low, high in zip(lo.reshape(-1).tolist(), hi.reshape(-1).tolist()):
        if low == high:
            out.append(int(low))
        else:
            out.append(Dim(max(int(low), 0), None if high >= UNBOUNDED or high < 0 else int(high)))
    return out


def target_length(info: TensorInfo) -> Dim | None:
    """How many elements a shape-describing 1-D input holds, if known."""
    if info.shape.rank is None:
        return None
    if info.shape.rank == 0:
        return Dim(1, 1)
    return info.shape[0]


def shape_from_input(info: TensorInfo) -> PartialShape:
    """The shape a 1-D integer input describes (Broadcast's target_shape):
    exact where its value is known, intervals from bounds, else dims of the
    known count or a dynamic rank."""
    dims = value_dims(info)
    if dims is not None:
        return PartialShape(tuple(Dim(d, d) if isinstance(d, int) and d >= 0 else
                                  (d if isinstance(d, Dim) else DYNAMIC) for d in dims))
    n = target_length(info)
    if n is not None and n.lo > limits.MAX_RANK:  # refused before a tuple of millions of dims is built
        raise op_error(f"a shape of {n.lo} dims; irexec holds tensors of at most {limits.MAX_RANK}", "shape-too-large")
    if n is not None and n.is_static:
        return PartialShape.dynamic(n.value)
    return PartialShape(None)
