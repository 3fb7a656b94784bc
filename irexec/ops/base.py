"""What every op is made of: typed attributes, shape inference and a NumPy kernel.

An op is one subclass of ``Op`` in one file, registered with ``@register``:

    @register
    class Roll7(Op):
        type, version, since_opset = "Roll", 7, 7
        inputs = ("data", "shift", "axes")

        def infer(self, data, shift, axes): ...      # TensorInfo in, [TensorInfo] out
        def compute(self, data, shift, axes): ...    # ndarrays in, [ndarray] out
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from .. import dtypes
from ..dtypes import ElementType
from ..errors import OpError
from ..shapes import PartialShape, ShapeSyntaxError, parse_partial_shape, parse_static_shape

if TYPE_CHECKING:
    from ..ir.reader import Layer
    from ..ir.weights import Weights

# A value computed from Consts is folded only while it stays this small, so a
# check never materialises a big tensor just to learn that it is constant.
FOLD_LIMIT_ELEMENTS = 1 << 16


class TensorInfo:
    """What shape inference knows about one tensor: partial shape, element
    type and, when it is a compile-time constant, a lazily computed value."""

    __slots__ = ("shape", "etype", "_value", "_thunk")

    def __init__(
        self,
        shape: PartialShape,
        etype: ElementType,
        value: np.ndarray | Callable[[], np.ndarray | None] | None = None,
    ):
        self.shape = shape
        self.etype = etype
        if callable(value):
            self._thunk: Callable[[], np.ndarray | None] | None = value
            self._value: np.ndarray | None = None
        else:
            self._thunk = None
            self._value = value

    @property
    def is_constant(self) -> bool:
        return self._thunk is not None or self._value is not None

    def value(self) -> np.ndarray | None:
        """The constant value, or None when it is only known at run time."""
        if self._thunk is not None:
            thunk, self._thunk = self._thunk, None
            self._value = thunk()
        return self._value

    def __repr__(self) -> str:
        return f"TensorInfo({self.etype}{self.shape}{', const' if self.is_constant else ''})"


# ---------------------------------------------------------------- attributes

_INT_RE = re.compile(r"^\s*[-+]?[0-9]{1,100}\s*$")  # capped: see ir/reader.py
_UINT_RE = re.compile(r"^\s*[0-9]{1,100}\s*$")


@dataclass(frozen=True)
class Attr:
    """A ``<data>`` attribute with its type and default."""

    kind: str  # "int" | "uint" | "bool" | "str" | "etype" | "pshape" | "shape"
    default: Any = None
    required: bool = False
    doc: str = ""

    def parse(self, name: str, raw: str) -> Any:
        if self.kind == "etype":
            return _parse_etype(name, raw)
        if self.kind in ("pshape", "shape"):
            try:
                return parse_partial_shape(raw) if self.kind == "pshape" else _static_shape(raw)
            except ShapeSyntaxError as e:
                raise OpError(f"attribute {name}={raw!r}: {e}", code="bad-shape") from None
        if self.kind == "uint":
            if raw.isascii() and raw.isdigit() and len(raw) <= 100:  # the common case, without the regex
                return int(raw)
            if not _UINT_RE.match(raw):
                raise OpError(f"attribute {name}={raw!r} is not an unsigned integer", code="bad-attribute")
            return int(raw)
        if self.kind == "int":
            if not _INT_RE.match(raw):
                raise OpError(f"attribute {name}={raw!r} is not an integer", code="bad-attribute")
            value = int(raw)
            if not -(1 << 63) <= value < (1 << 63):
                raise OpError(f"attribute {name}={raw!r} does not fit in int64", code="bad-attribute")
            return value
        if self.kind == "bool":
            low = raw.strip().lower()
            if low in ("true", "1"):
                return True
            if low in ("false", "0"):
                return False
            raise OpError(f"attribute {name}={raw!r} is not a boolean (true/false)", code="bad-attribute")
        return raw


# Static shapes are immutable tuples and a model repeats a few shape strings on
# thousands of Consts: parse each once.
_static_shape = lru_cache(maxsize=4096)(parse_static_shape)


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


# ---------------------------------------------------------------------- ops


class Op:
    """Base class of every op.  Subclasses set the class variables and
    implement ``infer`` and ``compute``."""

    type: ClassVar[str]
    version: ClassVar[int]
    since_opset: ClassVar[int] = 1  # first opset whose `version="opsetN"` means this op version
    inputs: ClassVar[tuple[str, ...]] = ()
    optional_inputs: ClassVar[int] = 0  # trailing inputs that may be left unconnected
    num_outputs: ClassVar[int] = 1
    attributes: ClassVar[dict[str, Attr]] = {}
    family: ClassVar[str] = "movement"  # for pictures and listings
    summary: ClassVar[str] = ""

    def __init__(self, layer: Layer | None = None, attrs: dict[str, Any] | None = None, weights: Weights | None = None):
        self.layer = layer
        self.weights = weights
        values = attrs or {}  # only read: no copy
        for name, spec in self.attributes.items():
            setattr(self, name, values.get(name, spec.default))

    # ---- construction from a layer record
    @classmethod
    def parse_attributes(cls, data: dict[str, str]) -> tuple[dict[str, Any], list[OpError]]:
        """Typed attribute values, plus one error per bad or missing one."""
        values: dict[str, Any] = {}
        errors: list[OpError] = []
        for name, spec in cls.attributes.items():
            if name in data:
                try:
                    values[name] = spec.parse(name, data[name])
                except OpError as e:
                    errors.append(e)
            elif spec.required:
                errors.append(OpError(f"required attribute {name!r} is missing", code="bad-attribute"))
        return values, errors

    @classmethod
    def display(cls) -> str:
        return f"{cls.type}-{cls.version}"

    @property
    def min_inputs(self) -> int:
        return len(self.inputs) - self.optional_inputs

    # ---- the op's behaviour
    def infer(self, *inputs: TensorInfo) -> list[TensorInfo]:
        raise NotImplementedError

    def compute(self, *inputs: np.ndarray) -> Sequence[np.ndarray]:
        raise NotImplementedError

    def output_nbytes(self, *inputs: np.ndarray) -> int | None:
        """Bytes ``compute`` will allocate for these inputs when that is cheap to
        know (the executor's memory check skips inference then), else None."""
        return None

    def fold(self, inputs: Sequence[TensorInfo]) -> Callable[[], np.ndarray | None] | None:
        """A thunk computing this op's first output from constant inputs, or None."""
        if not inputs or not all(i.is_constant for i in inputs):
            return None
        if any((i.shape.max_elements() or FOLD_LIMIT_ELEMENTS + 1) > FOLD_LIMIT_ELEMENTS for i in inputs):
            return None

        def thunk() -> np.ndarray | None:
            values = [i.value() for i in inputs]
            if any(v is None for v in values):
                return None
            try:
                return np.asarray(self.compute(*values)[0])  # type: ignore[arg-type]
            except OpError:
                return None  # the run reports it with full context

        return thunk


def op_error(message: str, code: str, port: int | None = None, **values: Any) -> OpError:
    """An OpError about input ``port`` (an input index) of the current layer."""
    err = OpError(message, code=code)
    if port is not None:
        err.diagnostics = [d.located(port=port, port_kind="input") for d in err.diagnostics]
    return err


def scalar_or_first(value: np.ndarray) -> int:
    return int(np.asarray(value).reshape(-1)[0])


def normalize_axis(axis: int, rank: int, what: str, code: str, port: int | None = None) -> int:
    """``axis`` in [-rank, rank-1], made non-negative; an error names the range."""
    if not -rank <= axis < rank or rank == 0:
        raise op_error(
            f"{what} {axis} is out of range [{-rank}, {rank - 1}] for rank {rank}"
            if rank
            else f"{what} {axis} is invalid: the data is a scalar (rank 0) and has no axes",
            code,
            port,
        )
    return axis + rank if axis < 0 else axis
