"""Partial shapes: static, dynamic, interval dims and dynamic rank.

The notation follows OpenVINO: ``5`` static, ``?`` dynamic, ``2..5`` interval,
``2..`` lower bound only, ``..5`` upper bound only; ``[...]`` dynamic rank.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from . import limits
from .errors import OpError


class ShapeSyntaxError(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class Dim:
    lo: int = 0
    hi: int | None = None  # None: unbounded

    @staticmethod
    def of(value: int | Dim) -> Dim:
        if isinstance(value, Dim):
            return value
        if value < 0:
            return DYNAMIC
        return Dim(value, value)

    @property
    def is_static(self) -> bool:
        return self.hi == self.lo

    @property
    def is_dynamic(self) -> bool:
        return self.lo == 0 and self.hi is None

    @property
    def value(self) -> int:
        """The static value (callers check ``is_static`` first)."""
        assert self.hi == self.lo
        return self.lo

    def contains(self, n: int) -> bool:
        return n >= self.lo and (self.hi is None or n <= self.hi)

    def intersect(self, other: Dim) -> Dim | None:
        """The common range, or None when the two cannot be equal."""
        lo = max(self.lo, other.lo)
        if self.hi is None:
            hi = other.hi
        elif other.hi is None:
            hi = self.hi
        else:
            hi = min(self.hi, other.hi)
        if hi is not None and hi < lo:
            return None
        return Dim(lo, hi)

    def compatible(self, other: Dim) -> bool:
        return self.intersect(other) is not None

    # interval arithmetic, as OpenVINO's Dimension does it (unbounded stays unbounded)
    def __add__(self, other: Dim | int) -> Dim:
        o = Dim.of(other)
        return Dim(self.lo + o.lo, None if self.hi is None or o.hi is None else self.hi + o.hi)

    def __sub__(self, other: Dim | int) -> Dim:
        """Lowest and highest difference, never below 0."""
        o = Dim.of(other)
        lo = max(0, self.lo - o.hi) if o.hi is not None else 0
        return Dim(lo, None if self.hi is None else max(0, self.hi - o.lo))

    def __mul__(self, other: Dim | int) -> Dim:
        o = Dim.of(other)
        if self.hi == 0 or o.hi == 0:
            return Dim(0, 0)
        return Dim(self.lo * o.lo, None if self.hi is None or o.hi is None else self.hi * o.hi)

    def floordiv(self, n: int) -> Dim:
        """Interval of ``d // n`` for a positive ``n``."""
        return Dim(self.lo // n, None if self.hi is None else self.hi // n)

    def ceildiv(self, n: int) -> Dim:
        return Dim(-(-self.lo // n), None if self.hi is None else -(-self.hi // n))

    def __str__(self) -> str:
        if self.is_static:
            return str(self.lo)
        if self.is_dynamic:
            return "?"
        if self.hi is None:
            return f"{self.lo}.."
        if self.lo == 0:
            return f"..{self.hi}"
        return f"{self.lo}..{self.hi}"


DYNAMIC = Dim(0, None)


@dataclass(frozen=True, slots=True)
class PartialShape:
    dims: tuple[Dim, ...] | None  # None: dynamic rank

    @staticmethod
    def static(values: Iterable[int]) -> PartialShape:
        return PartialShape(tuple(Dim(int(v), int(v)) for v in values))

    @staticmethod
    def of(values: Iterable[int | Dim]) -> PartialShape:
        return PartialShape(tuple(Dim.of(v) for v in values))

    @staticmethod
    def dynamic(rank: int | None = None) -> PartialShape:
        if rank is not None and rank > limits.MAX_RANK:  # a rank read from a value: refused before it is built
            raise OpError(f"the output would have {rank} dims; irexec holds tensors of at most {limits.MAX_RANK}",
                          code="shape-too-large")
        return PartialShape(None if rank is None else (DYNAMIC,) * rank)

    @property
    def rank(self) -> int | None:
        return None if self.dims is None else len(self.dims)

    @property
    def is_static(self) -> bool:
        return self.dims is not None and all(d.is_static for d in self.dims)

    def to_tuple(self) -> tuple[int, ...]:
        assert self.dims is not None
        return tuple(d.value for d in self.dims)

    def __getitem__(self, i: int) -> Dim:
        assert self.dims is not None
        return self.dims[i]

    def __len__(self) -> int:
        assert self.dims is not None
        return len(self.dims)

    def max_elements(self) -> int | None:
        """Upper bound of the element count, None when unbounded."""
        if self.dims is None:
            return None
        total = 1
        for d in self.dims:
            if d.hi is None:
                return None
            total *= d.hi
        return total

    def accepts(self, shape: Sequence[int]) -> bool:
        """Whether a concrete shape is one this partial shape allows."""
        if self.dims is None:
            return True
        return len(shape) == len(self.dims) and all(d.contains(n) for d, n in zip(self.dims, shape))

    def intersect(self, other: PartialShape) -> PartialShape | None:
        """Merge two descriptions of one tensor; None when they conflict."""
        if self.dims is None:
            return other
        if other.dims is None:
            return self
        if len(self.dims) != len(other.dims):
            return None
        merged = []
        for a, b in zip(self.dims, other.dims):
            m = a.intersect(b)
            if m is None:
                return None
            merged.append(m)
        return PartialShape(tuple(merged))

    def compatible(self, other: PartialShape) -> bool:
        return self.intersect(other) is not None

    def __str__(self) -> str:
        if self.dims is None:
            return "[...]"
        return "[" + ",".join(str(d) for d in self.dims) + "]"


_INT = re.compile(r"^[0-9]{1,100}$")  # capped: int() of thousands of digits fails


def _parse_bound(text: str, whole: str) -> int:
    if not _INT.match(text):
        raise ShapeSyntaxError(f"cannot parse dimension {text!r} in shape {whole!r}")
    return int(text)


def parse_dim(text: str, whole: str = "") -> Dim:
    text = text.strip()
    whole = whole or text
    if text in ("?", "-1"):
        return DYNAMIC
    if ".." in text:
        lo_s, _, hi_s = text.partition("..")
        lo = _parse_bound(lo_s.strip(), whole) if lo_s.strip() else 0
        hi = _parse_bound(hi_s.strip(), whole) if hi_s.strip() else None
        if hi is not None and hi < lo:
            raise ShapeSyntaxError(f"interval {text!r} in shape {whole!r} has its upper bound below its lower bound")
        return Dim(lo, hi)
    n = _parse_bound(text, whole)
    return Dim(n, n)


def parse_partial_shape(text: str) -> PartialShape:
    """Parse a Parameter ``shape`` attribute (OpenVINO's PartialShape grammar)."""
    s = text.strip()
    if s.startswith("[") and s.endswith("]"):
        s = s[1:-1].strip()
    if s == "":
        return PartialShape(())
    if s == "...":
        return PartialShape(None)
    fields = [f.strip() for f in s.split(",")]
    if "..." in fields:
        raise ShapeSyntaxError(f"'...' (dynamic rank) cannot be combined with other dims in shape {text!r}")
    if any(f == "" for f in fields):
        raise ShapeSyntaxError(f"empty dimension in shape {text!r}")
    return PartialShape(tuple(parse_dim(f, text) for f in fields))


def parse_static_shape(text: str) -> tuple[int, ...]:
    """Parse a Const ``shape`` attribute: non-negative integers only."""
    s = text.strip()
    if s == "":
        return ()
    out = []
    for f in s.split(","):
        f = f.strip()
        if not _INT.match(f):
            raise ShapeSyntaxError(f"cannot parse dimension {f!r} in static shape {text!r}")
        out.append(int(f))
    return tuple(out)


def format_shape(shape: Sequence[int]) -> str:
    """A concrete shape as every message prints it: ``[4,1,3]``."""
    return format_dims(shape)


def format_dims(dims: Sequence[int | Dim] | PartialShape | None) -> str:
    """Any shape as every message prints it: ``[4,?,3]``, ``[...]`` for dynamic rank."""
    if isinstance(dims, PartialShape):
        return str(dims)
    if dims is None:
        return "[...]"
    return "[" + ",".join(str(d) if isinstance(d, Dim) else ("?" if int(d) < 0 else str(int(d))) for d in dims) + "]"


def broadcast_dim(a: Dim, b: Dim) -> Dim | None:
    """NumPy broadcasting of two dims as OpenVINO's ``broadcast_merge``: a dim
    that may be 1 yields to the other; None when they cannot broadcast."""
    a_one, b_one = a.contains(1), b.contains(1)
    if a_one and b_one:
        hi = None if a.hi is None or b.hi is None else max(a.hi, b.hi)
        return Dim(min(a.lo, b.lo), hi)
    if a_one:
        return b
    if b_one:
        return a
    return a.intersect(b)


def broadcast_numpy(a: PartialShape, b: PartialShape) -> PartialShape | None:
    """The NumPy-broadcast result of two partial shapes, None if incompatible."""
    if a.dims is None or b.dims is None:
        return PartialShape(None)
    n = max(len(a.dims), len(b.dims))
    one = Dim(1, 1)
    da = (one,) * (n - len(a.dims)) + a.dims
    db = (one,) * (n - len(b.dims)) + b.dims
    out = []
    for x, y in zip(da, db):
        m = broadcast_dim(x, y)
        if m is None:
            return None
        out.append(m)
    return PartialShape(tuple(out))


def broadcast_pdpd(a: PartialShape, b: PartialShape, axis: int = 0) -> PartialShape | None:
    """PDPD broadcasting as OpenVINO infers it: ``b`` is laid onto ``a``
    starting at ``axis`` (-1: aligned right; an IR's ``auto_broadcast="pdpd"``
    means axis 0); the result has ``a``'s rank, None if incompatible."""
    if a.dims is None or b.dims is None:
        return PartialShape(None)
    if len(b.dims) > len(a.dims):
        return None
    if axis == -1:
        axis = len(a.dims) - len(b.dims)
    if axis < 0 or axis + len(b.dims) > len(a.dims):
        return None
    out = list(a.dims)
    for k, d in enumerate(b.dims):
        dst = out[axis + k]
        if dst.is_static and d.is_static and d.lo > dst.lo:
            return None
        m = broadcast_dim(dst, d)
        if m is None:
            return None
        out[axis + k] = m
    return PartialShape(tuple(out))
