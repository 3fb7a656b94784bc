"""Conformance tables of the state family: ReadValue-3/6 and Assign-3/6, in
stateful models written by OpenVINO's Python API (see graphs.py).

Every table runs once on a fresh state, where a ReadValue gives its
initialising input, or zeros of the variable's shape without one:
x -> ReadValue -> Add(x) -> Assign, with Results on the ReadValue and the Add.
An Assign has no consumer; its output port (which OpenVINO writes) is
checked by the shape aspects, its pairing and fit by the error cases."""

from __future__ import annotations

import numpy as np
import pytest

ov = pytest.importorskip("openvino")
from openvino import opset3, opset6  # noqa: E402
from openvino import opset8 as ops  # noqa: E402
from openvino.op import assign as assign6  # noqa: E402
from openvino.op.util import Variable, VariableInfo  # noqa: E402

from conformance.graphs import BrokenFile, GraphTable, graph_conformance, partial  # noqa: E402
from conformance.state.references import state_reference  # noqa: E402

SHAPE = [2, 3]


def _variable(shape: ov.PartialShape) -> Variable:
    info = VariableInfo()
    info.data_shape = shape
    info.data_type = ov.Type.f32
    info.variable_id = "v"
    return Variable(info)


def state_model(version: int, op0: str, init: bool = True):
    """x -> ReadValue(x * 2, or no init) -> Add(x) -> Assign, the layer ``op0``
    ("read" or "assign") named op0; Results: the ReadValue and the Add."""
    def build(variant: str) -> ov.Model:
        x = ops.parameter(partial(SHAPE, variant), ov.Type.f32, name="x")
        twice = ops.multiply(x, ops.constant(np.float32(2)))
        if version == 3:
            read = opset3.read_value(twice, "v")
        else:
            # the variable as the initialising input is shaped (OpenVINO wants it to relax the
            # init's shape); without one, [2,3]
            var = _variable(partial(SHAPE, variant) if init else ov.PartialShape(SHAPE))
            read = opset6.read_value(twice, var) if init else opset6.read_value(var)
        added = ops.add(read, x)
        sink = opset3.assign(added, "v") if version == 3 else assign6(added, var)
        (read if op0 == "read" else sink).set_friendly_name("op0")
        return ov.Model([ops.result(read), ops.result(added)], [sink], [x], "state")
    return build


def feeds(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"x": (rng.standard_normal(SHAPE) * 10).astype(np.float32)}


# ---------------------------------------------------------------- broken files


def _layer(tree, type_: str):
    return tree.getroot().find(f"layers/layer[@type='{type_}']")


def _rename_assign(tree) -> None:
    """The Assign writes a variable no ReadValue reads."""
    _layer(tree, "Assign").find("data").set("variable_id", "w")


def _variable_shape(text: str):
    def edit(tree) -> None:
        _layer(tree, "ReadValue").find("data").set("variable_shape", text)
    return edit


def _rename_read(tree) -> None:
    """The ReadValue reads a variable no Assign writes: the Assign's variable is read by none."""
    _layer(tree, "ReadValue").find("data").set("variable_id", "w")


# A ReadValue without an Assign is a warning (OpenVINO compiles such a model): the
# error of this edit is the Assign's, whose variable no ReadValue reads any more.
READ_ANOTHER = BrokenFile("read-of-another-variable", _rename_read, "variable-without-read-value")
WITHOUT_READ = BrokenFile("assign-of-unknown-variable", _rename_assign, "variable-without-read-value")

TABLES = [
    GraphTable("ReadValue-3", "ReadValue", "opset3", state_model(3, "read"), feeds, state_reference(),
               errors=[READ_ANOTHER]),
    GraphTable("ReadValue-6-init", "ReadValue", "opset6", state_model(6, "read"), feeds, state_reference(),
               errors=[READ_ANOTHER,
                       BrokenFile("init-does-not-fit", _variable_shape("4,3"), "variable-mismatch")]),
    GraphTable("ReadValue-6-zeros", "ReadValue", "opset6", state_model(6, "read", init=False), feeds,
               state_reference(init=False), errors=[READ_ANOTHER]),
    GraphTable("Assign-3", "Assign", "opset3", state_model(3, "assign"), feeds, state_reference(),
               errors=[WITHOUT_READ]),
    GraphTable("Assign-6", "Assign", "opset6", state_model(6, "assign", init=False), feeds,
               state_reference(init=False),
               errors=[WITHOUT_READ,
                       # the ReadValue's zeros [1,3] still broadcast in the Add; the Assign's [2,3] does not fit
                       BrokenFile("value-does-not-fit", _variable_shape("1,3"), "variable-mismatch")]),
]

test_conformance = graph_conformance(TABLES)
