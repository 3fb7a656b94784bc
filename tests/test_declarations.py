"""The declaration language says the common rules once: ``In(..., elements=1)``,
``IndexType``, ``require`` and ``since_opset`` defaulting to ``version``; the
rules are enforced at check and run time with one message each."""

from __future__ import annotations

import numpy as np
import pytest

from irexec.base.errors import OpError
from irexec.base.shapes import Dim, PartialShape
from irexec.model.builder import IRBuilder
from irexec.ops.framework.base import INDEX, In, IndexType, Op, require
from irexec.ops.framework.registry import all_ops, resolve


@pytest.mark.parametrize(("dims", "ok"), [
    ((), True), ((1,), True), ((1, 1), True), ((2,), False), ((0,), False), ((1, 3), False),
    ((Dim(0, 5),), True), ((Dim(2, 5),), False), ((Dim(1, None), Dim(1, None)), True), (None, True),
])
def test_elements_is_refused_only_when_the_shape_cannot_hold_that_many(dims, ok):
    shape = PartialShape(None) if dims is None else PartialShape(tuple(d if isinstance(d, Dim) else Dim.of(d) for d in dims))
    assert In("x", elements=1).elements_ok(shape) is ok


def test_one_value_inputs_share_one_message_at_check_time(write_ir, run_cli):
    # Eye's num_rows, Gather's axis and If's cond say elements=1; each gets the same words
    b = IRBuilder()
    x = b.parameter("x", [5, 6])
    axis = b.parameter("axis", [2], "i64")
    y = b.layer("Gather", "opset8", [x, b.const(np.array([1], np.int64)), axis], outputs=[([5, 1], "f32")])
    b.result(y)
    r = run_cli("check", write_ir(b))
    assert r.exit_code == 1
    assert "bad-input-rank" in r.output and "axis must hold one value, got shape [2]" in r.output


def test_an_index_type_attribute_refuses_other_types_with_one_message(write_ir, run_cli):
    for op_type, version, attr in (("ShapeOf", "opset3", "output_type"), ("NonZero", "opset3", "output_type")):
        b = IRBuilder()
        x = b.parameter("x", [2, 3])
        y = b.layer(op_type, version, [x], {attr: "f32"}, outputs=[([2], "f32")])
        b.result(y)
        r = run_cli("check", write_ir(b, name=op_type))
        assert r.exit_code == 1, r.output
        assert f"attribute {attr}='f32' must be i32 or i64" in r.output and "bad-attribute" in r.output


def test_index_type_parses_to_an_element_type():
    spec = IndexType("i32")
    assert spec.default.name == "i32"
    assert spec.parse("output_type", "i64").name == "i64"
    with pytest.raises(OpError, match="must be i32 or i64"):
        spec.parse("output_type", "u8")
    assert INDEX == ("i32", "i64")


def test_require_raises_a_coded_error_at_a_port_only_when_the_rule_fails():
    require(True, "bad-value", lambda: pytest.fail("the message of a rule that holds is never built"))
    with pytest.raises(OpError) as e:
        require(2 > 3, "bad-value", "two must exceed three", port=1)
    d = e.value.diagnostics[0]
    assert (d.code, d.message, d.port, d.port_kind) == ("bad-value", "two must exceed three", 1, "input")


def test_since_opset_defaults_to_the_version():
    class Probe(Op):
        type, version, family = "Probe", 5, "movement"

    class Later(Probe):
        version = 9

    class Older(Op):
        type, version, since_opset, family = "Older", 0, 1, "movement"

    assert (Probe.since_opset, Later.since_opset, Older.since_opset) == (5, 9, 1)
    # the ops whose opset is not their version (OpenVINO's reader says so: tests/tools/probe_core_opsets.py)
    differ = sorted((c.display(), c.since_opset) for c in all_ops() if c.since_opset != c.version)
    assert differ == [("Acosh-3", 4), ("Asinh-3", 4), ("Atanh-3", 4), ("LSTMCell-0", 1), ("RNNCell-0", 1),
                      ("ROIPooling-0", 1), ("RegionYolo-0", 1), ("ReorgYolo-2", 1), ("ScatterNDUpdate-3", 4)]
    assert resolve("Roll", "opset7").since_opset == 7
