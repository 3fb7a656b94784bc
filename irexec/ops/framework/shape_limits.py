"""Computed shapes held to the limits declared ones are held to (rank, bytes,
dim values), so no Python integer of thousands of digits reaches a message."""

from __future__ import annotations

from functools import lru_cache

from ...base import limits
from ...base.errors import OpError
from ...base.shapes import Dim, PartialShape


@lru_cache(maxsize=4096)  # shapes are immutable and a model repeats a few of them on every layer
def held_shape(shape: PartialShape, itemsize: int) -> PartialShape:
    """A computed shape held to the limits a declared one is held to
    (``irexec.base.limits``): at most MAX_RANK dims, no dim past 2^63-1 and no
    more than 2^63 bytes (the dims that are not 0 multiplied out, as NumPy
    counts them), so no Python integer of thousands of digits and no shape
    NumPy cannot allocate leaves inference.  An interval's upper bound past
    2^63-1 only means "unbounded".  OpError ``shape-too-large`` otherwise."""
    dims = shape.dims
    assert dims is not None
    if len(dims) > limits.MAX_RANK:
        raise OpError(f"the output would have {len(dims)} dims; irexec holds tensors of at most {limits.MAX_RANK}",
                      code="shape-too-large")
    need = max(itemsize, 1)
    clamp = False
    for d in dims:
        if d.lo:
            need *= d.lo
        if d.hi is not None and d.hi > limits.INT64_MAX:
            clamp = True
    if need > limits.MAX_TENSOR_BYTES:
        big = next((d.lo for d in dims if d.lo > limits.INT64_MAX), None)
        what = (f"a dim of {_digits(big)}, more than 2^63-1" if big is not None else
                f"{limits.format_bytes(need)}, more than any 64-bit address space holds")
        raise OpError(f"the output shape {_short(shape)} would need {what}", code="shape-too-large")
    if clamp:
        return PartialShape(tuple(Dim(d.lo, None) if d.hi is not None and d.hi > limits.INT64_MAX else d for d in dims))
    return shape


def _digits(n: int) -> str:
    """A huge integer as a message can hold it (str() of 5,000 digits and more raises)."""
    return f"about 2^{n.bit_length() - 1}" if n.bit_length() > 64 else str(n)


def _short(shape: PartialShape) -> str:
    def one(d: Dim) -> str:
        if d.is_static:
            return _digits(d.lo)
        lo = _digits(d.lo) if d.lo else ""
        hi = str(d.hi) if d.hi is not None and d.hi <= limits.INT64_MAX else ""
        return f"{lo}..{hi}" if lo or hi else "?"

    dims = shape.dims or ()
    if len(dims) > 8:
        return "[" + ",".join(one(d) for d in dims[:8]) + f",...] ({len(dims)} dims)"
    return "[" + ",".join(one(d) for d in dims) + "]"
