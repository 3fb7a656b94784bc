"""The declaration language of ops: element-type classes, declared inputs (``In``)
and typed attributes (``Attr``, ``Enum``), parsed from a layer's <data> once."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ...base import dtypes, limits
from ...base.dtypes import ElementType
from ...base.errors import OpError
from ...base.shapes import PartialShape, ShapeSyntaxError, parse_partial_shape, parse_static_shape

# Static shapes are immutable tuples and a model repeats a few shape strings on
# thousands of Consts: parse each once.
_static_shape = lru_cache(maxsize=4096)(parse_static_shape)

# Element-type classes an input may declare.
ANY = "any"
NUMERIC = "numeric"  # integral or real
INTEGRAL = "integral"  # integer types, not boolean
REAL = "real"  # f16, bf16, f32, f64
BOOLEAN = "boolean"
COMPARABLE = "comparable"  # any but string and the storage-only u3, u6, nf4 (Const, Convert and data movement only)
STRING = ("string",)
INDEX = ("i32", "i64")  # a tuple: exactly these element types


def same_as(name: str) -> str:
    """The element type of the named input."""
    return f"same:{name}"


@dataclass(frozen=True)
class In:
    """One declared input: its name, allowed element types, rank and whether
    the op reads its *value* during inference (axes, shapes, shifts)."""

    name: str
    types: str | tuple[str, ...] = ANY
    rank: int | tuple[int, int | None] | None = None  # exact, (lo, hi) with hi None unbounded, or any
    optional: bool = False  # may be left unconnected (only trailing inputs)
    variadic: bool = False  # any number >= 1 of these (last input only)
    value: bool = False  # inference reads its value: run-time plans are cached per value
    elements: int | None = None  # exactly this many elements (1: a scalar or a one-element tensor of any rank)

    def type_ok(self, et: ElementType) -> bool:
        t = self.types
        if isinstance(t, tuple):
            return et.name in t
        if t == ANY or t.startswith("same:"):
            return True
        if t == NUMERIC:
            return et.is_numeric
        if t == INTEGRAL:
            return et.is_integral
        if t == REAL:
            return et.is_real
        if t == BOOLEAN:
            return et.name == "boolean"
        if t == COMPARABLE:
            return not et.storage_only and not et.is_string
        raise AssertionError(f"unknown element-type class {t!r}")

    def type_text(self) -> str:
        t = self.types
        if isinstance(t, tuple):
            return "element type " + " or ".join(t)
        return {NUMERIC: "a numeric element type", INTEGRAL: "an integer element type",
                REAL: "a floating-point element type", BOOLEAN: "element type boolean",
                COMPARABLE: "an element type other than string, u3, u6, nf4"}.get(t, t)

    def elements_ok(self, shape: PartialShape) -> bool:
        """False only when the shape cannot hold ``elements`` elements (a dynamic dim may)."""
        dims = shape.dims
        if dims is None:
            return True
        lo, hi = 1, 1  # type: int, int | None
        for d in dims:
            lo *= d.lo
            hi = None if hi is None or d.hi is None else hi * d.hi
        return lo <= self.elements <= (hi if hi is not None else self.elements)  # type: ignore[operator]

    def elements_text(self) -> str:
        return "hold one value" if self.elements == 1 else f"hold {self.elements} values"

    def rank_text(self) -> str:
        r = self.rank
        if isinstance(r, int):
            return {0: "be a scalar", 1: "be 1-D"}.get(r, f"have rank {r}")
        assert r is not None
        lo, hi = r
        if (lo, hi) == (0, 1):
            return "be a scalar or 1-D"
        return f"have rank {lo} or more" if hi is None else f"have rank {lo} to {hi}"


_INT_RE = re.compile(r"^\s*[-+]?[0-9]{1,100}\s*$")  # capped: see ir/reader.py
_UINT_RE = re.compile(r"^\s*[0-9]{1,100}\s*$")
_FLOAT_RE = re.compile(r"^\s*[-+]?(?:[0-9]{1,400}\.?[0-9]{0,400}|\.[0-9]{1,400})(?:[eE][-+]?[0-9]{1,5})?\s*$"
                       r"|^\s*[-+]?(?:inf|infinity|nan)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Attr:
    """A ``<data>`` attribute with its kind and default.

    kinds: int, uint, bool, float, str, enum (``choices``), ints and floats
    (comma-separated lists, ``strides="2,2"``), etype, index_type (i32 or
    i64: ``IndexType``), pshape, shape."""

    kind: str
    default: Any = None
    required: bool = False
    doc: str = ""
    choices: tuple[str, ...] = ()

    def parse(self, name: str, raw: str) -> Any:
        kind = self.kind
        if kind == "int":
            return _parse_int(name, raw, raw)
        if kind == "uint":
            if raw.isascii() and raw.isdigit() and len(raw) <= 100:  # the common case, without the regex
                return int(raw)
            if not _UINT_RE.match(raw):
                raise OpError(f"attribute {name}={raw!r} is not an unsigned integer", code="bad-attribute")
            return int(raw)
        if kind == "bool":
            low = raw.strip().lower()
            if low in ("true", "1"):
                return True
            if low in ("false", "0"):
                return False
            raise OpError(f"attribute {name}={raw!r} is not a boolean (true/false)", code="bad-attribute")
        if kind == "float":
            return _parse_float(name, raw, raw)
        if kind == "enum":
            value = raw.strip().lower()
            if value not in self.choices:
                raise OpError(f"attribute {name}={raw!r} is not one of {', '.join(self.choices)}", code="bad-attribute")
            return value
        if kind in ("ints", "floats"):
            text = raw.strip()
            if text == "":
                return ()
            parse = _parse_int if kind == "ints" else _parse_float
            return tuple(parse(name, part, raw) for part in text.split(","))
        if kind == "etype":
            return _parse_etype(name, raw)
        if kind == "index_type":
            etype = _parse_etype(name, raw)
            if etype.name not in INDEX:
                raise OpError(f"attribute {name}={raw!r} must be i32 or i64", code="bad-attribute")
            return etype
        if kind in ("pshape", "shape"):
            try:
                return parse_partial_shape(raw) if kind == "pshape" else _static_shape(raw)
            except ShapeSyntaxError as e:
                raise OpError(f"attribute {name}={raw!r}: {e}", code="bad-shape") from None
        return raw


def _parse_int(name: str, part: str, raw: str) -> int:
    if not _INT_RE.match(part):
        raise OpError(f"attribute {name}={raw!r} is not an integer" + (" list" if part != raw else ""), code="bad-attribute")
    value = int(part)
    if not -limits.INT64_MAX - 1 <= value <= limits.INT64_MAX:
        raise OpError(f"attribute {name}={raw!r} does not fit in int64", code="bad-attribute")
    return value


def _parse_float(name: str, part: str, raw: str) -> float:
    if not _FLOAT_RE.match(part):
        raise OpError(f"attribute {name}={raw!r} is not a number" + (" list" if part != raw else ""), code="bad-attribute")
    return float(part)


def IndexType(default: str = "i64", doc: str = "") -> Attr:  # noqa: N802 (reads like a type)
    """An element-type attribute that may only be i32 or i64 (the type of an
    op's index outputs); its value is the ElementType."""
    return Attr("index_type", dtypes.get(default), doc=doc or "i32 or i64")


def Enum(*choices: str, default: str | None = None, doc: str = "") -> Attr:  # noqa: N802 (reads like a type)
    return Attr("enum", default if default is not None else choices[0], doc=doc, choices=tuple(choices))


def _parse_etype(name: str, raw: str) -> ElementType:
    etype = dtypes.lookup(raw)
    if etype is None:
        raise OpError(f"attribute {name}={raw!r} is not an IR element type", code="bad-element-type")
    if not etype.supported:
        raise OpError(
            f"element type {etype.name} is valid IR but not supported by irexec "
            f"(supported: {', '.join(dtypes.supported_names())})",
            code="unsupported-element-type",
        )
    return etype
