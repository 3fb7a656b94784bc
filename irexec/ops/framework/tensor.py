"""What inference passes between ops: ``TensorInfo`` (partial shape, element type,
and the value or value bounds when known) and ``Inference`` (outputs and a plan)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any

import numpy as np

from ...base import dtypes, limits
from ...base.dtypes import ElementType
from ...base.shapes import PartialShape

# A value computed from Consts is folded only while it stays this small, so a
# check never materialises a big tensor just to learn that it is constant.
FOLD_LIMIT_ELEMENTS = 1 << 16

# Value bounds are int64 arrays; this upper bound means "unbounded".
UNBOUNDED = np.iinfo(np.int64).max
LOWEST = np.iinfo(np.int64).min

_UNKNOWN_TYPES = frozenset({"dynamic", "undefined"})


class TensorInfo:
    """What inference knows about one tensor: partial shape, element type and,
    when it is a compile-time constant, a lazily computed value.  A tensor
    computed at run time from shapes (ShapeOf -> Gather -> Concat) may carry
    ``bounds``: int64 arrays of the lowest and highest value of each element
    (``UNBOUNDED`` above), so a Reshape downstream still learns what is known."""

    __slots__ = ("shape", "etype", "_value", "_thunk", "_bounds")

    def __init__(
        self,
        shape: PartialShape,
        etype: ElementType,
        value: np.ndarray | Callable[[], np.ndarray | None] | None = None,
        bounds: tuple[np.ndarray, np.ndarray] | None = None,
    ):
        self.shape = shape
        self.etype = etype
        if callable(value):
            self._thunk: Callable[[], np.ndarray | None] | None = value
            self._value: np.ndarray | None = None
        else:
            self._thunk = None
            self._value = value
        self._bounds = bounds

    @property
    def is_constant(self) -> bool:
        return self._thunk is not None or self._value is not None

    @property
    def known_type(self) -> bool:
        """False when the producer is a layer whose output type is not known."""
        return self.etype.name not in _UNKNOWN_TYPES

    def value(self) -> np.ndarray | None:
        """The constant value, or None when it is only known at run time."""
        if self._thunk is not None:
            thunk, self._thunk = self._thunk, None
            self._value = thunk()
        return self._value

    def bounds(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(lowest, highest) int64 value arrays of an integer tensor, from its
        constant value or from what propagated; None when nothing is known."""
        if self._bounds is not None:
            return self._bounds
        if self.is_constant and (self.etype.is_integral or self.etype.name == "boolean") and self.small:
            v = self.value()
            if v is not None and v.size <= FOLD_LIMIT_ELEMENTS:
                exact = _as_int64(v)
                if exact is not None:
                    self._bounds = (exact, exact)
        return self._bounds

    @property
    def small(self) -> bool:
        """The shape says the value is at most FOLD_LIMIT_ELEMENTS elements: decided
        before the value is read, so a big low-bit Const is never unpacked to learn it."""
        shape = self.shape
        if not shape.is_static:
            return self._thunk is None  # a value held already (computed on inferred shapes) costs nothing to look at
        return limits.element_count(shape.to_tuple()) <= FOLD_LIMIT_ELEMENTS

    def with_shape(self, shape: PartialShape) -> TensorInfo:
        return TensorInfo(shape, self.etype, self._value if self._thunk is None else self._thunk, self._bounds)

    def __repr__(self) -> str:
        extra = ", const" if self.is_constant else (", bounds" if self._bounds is not None else "")
        return f"TensorInfo({self.etype}{self.shape}{extra})"


def _as_int64(v: np.ndarray) -> np.ndarray | None:
    v = np.asarray(v)
    if v.dtype == np.uint64 and v.size and int(v.max()) > UNBOUNDED:
        return None
    return v.astype(np.int64)


@dataclass
class Inference:
    """What ``infer`` decides: the outputs, and a plan (normalised axes,
    permutation, output shape...) that the kernel uses as it is."""

    outputs: list[TensorInfo]
    plan: Any = None
    # Bytes the kernel allocates beside its outputs, known from the shapes (a
    # fused chain's temporaries): a run charges them with the outputs, before the kernel.
    scratch: int = 0

    @cached_property
    def output_nbytes(self) -> int | None:
        """Bytes of the outputs (exact, Python ints), None when a shape is not static.
        Cached: a run asks once per layer, and inferences are cached per signature."""
        total = 0
        for info in self.outputs:
            if not info.shape.is_static:
                return None
            total += limits.nbytes(info.shape.to_tuple(), info.etype.itemsize)
        return total

    @cached_property
    def data_sized(self) -> bool:
        """Whether the outputs' bytes are known only once the kernel has made them:
        a shape that is not static, or strings (each element holds its characters)."""
        return self.output_nbytes is None or any(info.etype.is_string for info in self.outputs)

    @cached_property
    def charge(self) -> int | None:
        """Bytes a run must have free before the kernel runs: outputs and scratch
        (cached as ``output_nbytes``; an inference is not changed once made)."""
        need = self.output_nbytes
        return None if need is None else need + self.scratch


def concrete_info(a: np.ndarray, with_value: bool) -> TensorInfo:
    """A run-time input as inference sees it."""
    etype = dtypes.from_dtype(a.dtype)
    if etype is None:
        etype = dtypes.get("undefined")
    return TensorInfo(_static_pshape(a.shape), etype, a if with_value else None)


# Shapes are immutable and a run repeats a few shapes on every layer: build each once.
_static_pshape = lru_cache(maxsize=4096)(PartialShape.static)
