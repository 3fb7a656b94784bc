"""Parameter-1, Const-1 and Result-1: where tensors enter, live and leave."""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from ...base import limits, lowbit, strings
from ...base.errors import ModelError, OpError
from ...base.shapes import PartialShape, format_dims
from ..framework.base import FOLD_WORK_LIMIT, Attr, In, Inference, Op, TensorInfo
from ..framework.registry import register


@register
class Parameter1(Op):
    type, version = "Parameter", 1
    family = "io"
    summary = "model input; its shape attribute may hold dynamic, interval and dynamic-rank dims"
    attributes = {
        "shape": Attr("pshape", required=True, doc="partial shape, e.g. 1,?,2..5 or ..."),
        "element_type": Attr("etype", required=True),
    }

    def validate(self) -> list[OpError]:
        """Dims no int64 runtime can hold, or shapes no address space can."""
        return _too_large(self.shape, self.element_type.itemsize)

    def infer(self) -> list[TensorInfo]:
        return [TensorInfo(self.shape, self.element_type)]

    def compute(self, plan: None) -> Sequence[np.ndarray]:
        raise OpError("a Parameter has no value until it is fed", code="input-mismatch")


def _too_large(shape: PartialShape | tuple[int, ...], itemsize: int) -> list[OpError]:
    bounds: Sequence[int]
    if isinstance(shape, PartialShape):
        bounds = [d.hi if d.hi is not None else d.lo for d in shape.dims or ()]
    else:
        bounds = shape
    if bounds and max(bounds) > limits.INT64_MAX:
        return [OpError(f"shape {_shape_text(shape)} has a dim larger than 2^63-1", code="bad-shape")]
    if len(bounds) > limits.MAX_RANK:
        return [OpError(f"shape {_shape_text(shape)} has {len(bounds)} dims; irexec holds tensors of at most "
                        f"{limits.MAX_RANK}", code="shape-too-large")]
    need = limits.nbytes([d for d in bounds if d], itemsize)  # NumPy refuses [0, 2^63-1] too: every dim counts
    if need > limits.MAX_TENSOR_BYTES:
        return [OpError(f"shape {_shape_text(shape)} needs {limits.format_bytes(need)}, "
                        "more than any 64-bit address space holds", code="shape-too-large")]
    return []


def _shape_text(shape: PartialShape | tuple[int, ...]) -> str:  # built only for a finding
    return format_dims(shape)


# The most bytes of a string Const whose value inference reads (check folds it, a
# tokenizer's vocabulary among them): the fold budget's bytes of f64.
STRING_FOLD_BYTES = FOLD_WORK_LIMIT * 8

# Shapes are immutable and a model repeats a few Const shapes thousands of times: build each once.
_static_pshape = lru_cache(maxsize=4096)(PartialShape.static)


@register
class Const1(Op):
    type, version = "Const", 1
    family = "io"
    summary = "constant tensor stored in the .bin (memory-mapped, read only when needed)"
    attributes = {
        "element_type": Attr("etype", required=True),
        "shape": Attr("shape", required=True, doc="static shape, e.g. 16, 16"),
        "offset": Attr("uint", required=True),
        "size": Attr("uint", required=True),
    }

    @property
    def nbytes(self) -> int:
        """Bytes the value takes in the .bin (a low-bit type packs several elements a byte)."""
        count = math.prod(map(int, self.shape))  # Python ints: exact, no wrap-around
        et = self.element_type
        if et.is_string:  # the characters' length is in the blob; the count and offsets are not
            return strings.packed_header(count) if count else 0
        return lowbit.packed_nbytes(count, et.name, et.bits) if et.packed else count * et.itemsize

    def validate(self) -> list[OpError]:
        """Checks that need only the .bin's length, never its bytes."""
        shape = tuple(map(int, self.shape))  # Python ints: exact, no wrap-around
        itemsize = self.element_type.itemsize
        too_large = _too_large(shape, itemsize)
        if too_large:
            return too_large
        need = self.nbytes
        if self.size < need:
            packing = (f" at {self.element_type.bits} bits an element" if self.element_type.packed
                       else " with its count and offsets" if self.element_type.is_string else "")
            return [
                OpError(
                    f"size={self.size} bytes is less than shape {list(self.shape)} x {self.element_type}{packing} "
                    f"needs ({need} bytes)",
                    code="const-size-mismatch",
                )
            ]
        if need == 0:
            return []  # OpenVINO writes empty Consts with size="1"; no bytes are read
        assert self.weights is not None
        if not self.weights.exists:
            where = self.weights.path or "(none)"
            return [OpError(f"needs {need} bytes from the weights file, but {where} does not exist", code="missing-weights")]
        total = self.weights.size or 0
        if self.offset + self.size > total:
            return [
                OpError(
                    f"offset={self.offset} + size={self.size} = {self.offset + self.size} is past the end "
                    f"of the {total}-byte weights file {self.weights.path}",
                    code="weights-out-of-bounds", values={"end": self.offset + self.size},
                )
            ]
        if self.element_type.is_string:
            try:
                self.string_chars()  # the count and offsets only: the characters are read when the value is
            except ModelError as e:
                return [OpError(e.diagnostics[0].message, code=e.diagnostics[0].code)]
        return []

    def string_chars(self) -> int:
        """A string Const's characters' length, from its packed offsets (read once)."""
        chars = self.__dict__.get("_chars")
        if chars is None:
            assert self.weights is not None
            chars = self._chars = self.weights.string_chars(self.offset, tuple(self.shape), self.size)
        return chars

    @property
    def held_nbytes(self) -> int:
        """Bytes the value holds in memory once read: a string Const's characters
        and elements (unpacked from the map), else its elements' bytes."""
        count = math.prod(map(int, self.shape))
        if self.element_type.is_string:
            return strings.held_bytes(count, self.string_chars()) if count else 0
        return count * self.element_type.itemsize

    def _value(self) -> np.ndarray:
        assert self.weights is not None
        return self.weights.array(self.offset, tuple(self.shape), self.element_type, self.size)

    def infer(self) -> list[TensorInfo] | Inference:
        shape = _static_pshape(tuple(self.shape))
        if not self.element_type.is_string:
            return [TensorInfo(shape, self.element_type, self._value)]
        # unpacking makes one bytes object an element: charged by the characters, before they are read;
        # a check reads no more of them than the bytes of its fold budget (its value is a run's to make)
        held = self.held_nbytes
        info = TensorInfo(shape, self.element_type, self._value if held <= STRING_FOLD_BYTES else None)
        return Inference([info], scratch=max(0, held - self.nbytes_as_elements))

    @property
    def nbytes_as_elements(self) -> int:
        return math.prod(map(int, self.shape)) * self.element_type.itemsize

    def compute(self, plan: None) -> Sequence[np.ndarray]:
        return [self._value()]


@register
class Result1(Op):
    type, version = "Result", 1
    family = "io"
    summary = "model output"
    inputs = (In("data"),)
    outputs = 0

    def infer(self, data: TensorInfo) -> list[TensorInfo]:
        return []

    def compute(self, plan: None, data: np.ndarray) -> Sequence[np.ndarray]:
        return [data]
