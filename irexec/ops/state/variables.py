"""ReadValue-3/6 and Assign-3/6: the variables of a stateful model.

A variable's value lives in the session, not in the model (see
``irexec/model/variables.py``).  ReadValue gives the variable's current value; on a
fresh or reset state it gives its initialising input, or zeros of the
variable's shape (dynamic dims 0) when it has none, as OpenVINO does.  Assign
is a sink: it executes though no Result reads it, and the value it receives
becomes the variable's value once the run has finished.  The executor feeds a
ReadValue that has a value and collects what the Assigns received; the kernels
here only cover the reset case.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...base import dtypes, limits
from ...base.dtypes import ElementType
from ...base.errors import OpError
from ...base.shapes import PartialShape
from ..framework.base import Attr, In, Op, TensorInfo, op_error
from ..framework.registry import register

_DYNAMIC_TYPES = ("dynamic", "undefined")


@dataclass(frozen=True)
class Variable:
    """What a model declares of one variable: its id, partial shape and type
    (``dynamic`` when undeclared), and where its ReadValue is."""

    id: str
    shape: PartialShape
    etype: ElementType
    line: int | None = None
    has_init: bool = False  # its ReadValue has an initialising input, read on a reset state

    def fits(self, shape: PartialShape, etype: ElementType) -> str | None:
        """Why a tensor cannot be this variable's value, or None."""
        if self.etype.name not in _DYNAMIC_TYPES and etype.name not in _DYNAMIC_TYPES and etype.name != self.etype.name:
            return f"its element type {etype.name} is not the variable's {self.etype.name}"
        if shape.intersect(self.shape) is None:
            return f"its shape {shape} does not fit the variable's {self.shape}"
        return None

    def initial_zeros(self, room: int | None = None) -> np.ndarray | None:
        """The value a ReadValue without an initialising input reads on a reset
        state: zeros, each dynamic dim 0 (None with an initialising input, or when the
        type or rank is not declared).  Refused (``memory-limit``) before anything
        is allocated when they need more than ``room`` bytes (default: the memory limit)."""
        if self.has_init or self.etype.dtype is None or self.shape.rank is None:
            return None
        shape = tuple(d.lo for d in self.shape.dims or ())
        why = limits.over_limit(limits.nbytes(shape, self.etype.dtype.itemsize),
                                limits.resolve(room))
        if why:
            raise OpError(f"the zeros variable {self.id!r} starts from, {self.etype.name}{list(shape)}, {why}",
                          code="memory-limit")
        out = np.zeros(shape, self.etype.dtype)
        out.flags.writeable = False
        return out


def _etype(name: str, raw: str) -> ElementType:
    if raw.strip().lower() in _DYNAMIC_TYPES:
        return dtypes.get("dynamic")
    return Attr("etype").parse(name, raw)


class StateOp(Op):
    family = "state"
    deterministic = False  # a variable's value changes between runs: never folded
    # set when the model is read (variables.link): the variable this layer reads or writes
    variable: Variable | None = None


class ReadValueOp(StateOp):
    """Every ReadValue version: the executor feeds it the variable's value."""


@register
class ReadValue3(ReadValueOp):
    type, version, since_opset = "ReadValue", 3, 3
    summary = "a variable's value; its shape and type are those of init_value, which it gives on a reset state"
    inputs = (In("init_value"),)
    attributes = {"variable_id": Attr("str", required=True)}

    def infer(self, init: TensorInfo) -> list[TensorInfo]:
        return [TensorInfo(init.shape, init.etype)]

    def compute(self, plan: None, init: np.ndarray) -> Sequence[np.ndarray]:
        return [init]


@register
class ReadValue6(ReadValueOp):
    type, version, since_opset = "ReadValue", 6, 6
    summary = "a variable's value; on a reset state init_value, or zeros (dynamic dims 0) without it"
    inputs = (In("init_value", optional=True),)
    attributes = {
        "variable_id": Attr("str", required=True),
        "variable_type": Attr("str", default="dynamic", doc="element type, or dynamic"),
        "variable_shape": Attr("pshape", default=PartialShape(None), doc="partial shape, e.g. ?,3,?,64"),
    }

    def validate(self) -> list[OpError]:
        try:
            _etype("variable_type", self.variable_type)
        except OpError as e:
            return [e]
        return []

    @property
    def variable_etype(self) -> ElementType:
        return _etype("variable_type", self.variable_type)

    def infer(self, *init: TensorInfo) -> list[TensorInfo]:
        shape, etype = self.variable_shape, self.variable_etype
        if not init:
            return [TensorInfo(shape, etype)]
        given = init[0]
        why = Variable(self.variable_id, shape, etype).fits(given.shape, given.etype)
        if why:
            raise op_error(f"init_value does not fit variable {self.variable_id!r}: {why}", "variable-mismatch", 0)
        if etype.name in _DYNAMIC_TYPES:
            etype = given.etype
        # a run reads the initialising value itself; a check, where that shape is
        # not static, sees what any run may read: the variable's shape
        if given.shape.is_static:
            shape = given.shape
        return [TensorInfo(shape, etype)]

    def compute(self, plan: None, *init: np.ndarray) -> Sequence[np.ndarray]:
        if init:
            return [init[0]]
        state = limits.accounting()  # the run charged this output already: it only has to fit the limit
        zeros = Variable(self.variable_id, self.variable_shape, self.variable_etype).initial_zeros(
            state[0] if state is not None else None)
        if zeros is None:
            raise OpError(f"variable {self.variable_id!r} has no value and no declared type and rank to start from",
                          code="variable-mismatch")
        return [zeros]


class AssignOp(StateOp):
    inputs = (In("new_value"),)
    attributes = {"variable_id": Attr("str", required=True)}
    sink = True  # executes though no Result depends on it

    def infer(self, value: TensorInfo) -> list[TensorInfo]:
        var = self.variable
        if var is not None:
            why = var.fits(value.shape, value.etype)
            if why:
                raise op_error(f"the value assigned to variable {var.id!r} does not fit: {why}"
                               + (f" (its ReadValue is at line {var.line})" if var.line else ""), "variable-mismatch", 0)
        return [TensorInfo(value.shape, value.etype)]

    def compute(self, plan: None, value: np.ndarray) -> Sequence[np.ndarray]:
        return [value]


@register
class Assign3(AssignOp):
    type, version, since_opset = "Assign", 3, 3
    summary = "sink: its input becomes the variable's value when the run ends"


@register
class Assign6(AssignOp):
    type, version, since_opset = "Assign", 6, 6
    summary = "sink: its input becomes the variable's value when the run ends"
