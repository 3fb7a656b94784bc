"""One inference per signature: a long model repeats the same block (an Add of a
bias, an activation) on the same shapes hundreds of times, and an op whose
``infer`` reads only its attributes and its inputs' shapes and element types
(``Op.infer_from_types``) infers the same for each of them."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from ..ops.framework.base import Op
from ..ops.framework.tensor import Inference, TensorInfo

# bounded: a model of ever new signatures gets no reuse, not unbounded memory
_MAX_ENTRIES = 4096


class InferenceMemo:
    """Inferences by (op class, attribute values, each input's shape and element type).
    Shapes are keyed by identity (a check shares one shape object per declared dims
    list) and held by the entry, so an id cannot be reused while its key lives."""

    __slots__ = ("_entries",)

    def __init__(self) -> None:
        self._entries: dict[Hashable, tuple[Inference, tuple[Any, ...]]] = {}

    def inference(self, op: Op, inputs: Sequence[TensorInfo]) -> Inference:
        """``op.inference(inputs)``, reused when a layer of the same signature had it;
        a failed inference raises every time and is never kept."""
        cls = type(op)
        if not cls.infer_from_types:
            return op.inference(inputs)
        try:
            attrs = tuple([getattr(op, name) for name in cls.attributes])
            key = (cls, attrs, *[(id(i.shape), i.etype) for i in inputs])
            found = self._entries.get(key)
        except TypeError:  # an attribute value that does not hash (a list): no reuse
            return op.inference(inputs)
        if found is not None:
            return found[0]
        inference = op.inference(inputs)
        if len(self._entries) >= _MAX_ENTRIES:
            self._entries.clear()
        self._entries[key] = (inference, tuple([i.shape for i in inputs]))
        return inference
