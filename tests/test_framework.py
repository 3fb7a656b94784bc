"""The op framework from the outside: declared input rules, one inference path
for check and run, plans cached per input signature, kernels held to their
inference, value bounds, runs of only what is needed, and `inspect --shapes`."""

from __future__ import annotations

import json

import numpy as np
import pytest

import irexec
from irexec.base import dtypes
from irexec.base.errors import InternalError, ModelError, OpError, UsageError
from irexec.base.shapes import Dim, PartialShape, broadcast_numpy, parse_partial_shape
from irexec.model.builder import IRBuilder
from irexec.ops.framework.base import In, Inference, Op, TensorInfo
from irexec.ops.framework.registry import all_ops

I64 = np.int64


def info(shape: str, etype: str = "f32", value=None) -> TensorInfo:
    return TensorInfo(parse_partial_shape(shape), dtypes.get(etype), value)


def test_every_op_declares_its_family_and_inputs():
    for cls in all_ops():
        assert isinstance(cls.family, str) and cls.family, cls.display()
        assert all(isinstance(i, In) for i in cls.inputs), cls.display()


def test_unknown_input_type_is_never_an_error():
    """A tensor from a layer irexec does not infer has an unknown type: checked where known, never refused."""
    from irexec.ops.movement.gather import Gather8

    out = Gather8(attrs={"batch_dims": 0}).inference([info("4,5"), info("3", "undefined"), info("", "i64", np.array(1))])
    assert str(out.outputs[0].shape) == "[4,3]"


def test_declared_rules_give_coded_errors_naming_the_input():
    from irexec.ops.movement.roll import Roll7

    with pytest.raises(OpError) as e:
        Roll7().inference([info("4"), info("2", "f32"), info("1", "i64")])
    d = e.value.diagnostics[0]
    assert (d.code, d.port, d.port_kind) == ("bad-input-type", 1, "input")
    assert "shift must have element type i32 or i64, got f32" in d.message
    with pytest.raises(OpError, match="axes must be a scalar or 1-D, got rank 2") as e:
        Roll7().inference([info("4"), info("1", "i64"), info("1,1", "i64")])
    assert e.value.code == "bad-input-rank"


def test_bad_enum_attribute_lists_the_choices(write_ir, builder):
    x = builder.parameter("x", [2], "f32")
    y = builder.layer("Add", "opset1", [x, x], {"auto_broadcast": "sideways"}, outputs=[([2], "f32")])
    builder.result(y)
    (d,) = irexec.check(write_ir(builder)).errors
    assert d.code == "bad-attribute" and "not one of numpy, none, pdpd" in d.message


def test_plans_are_cached_per_input_signature():
    from irexec.ops.movement.roll import Roll7

    op = Roll7()
    data, shift, axes = np.zeros((4, 3), np.float32), np.array([1], I64), np.array([0], I64)
    first = op.plan_for([data, shift, axes])
    assert op.plan_for([data.copy(), shift.copy(), axes.copy()]) is first  # same shapes and values: the same plan
    assert op.plan_for([data, np.array([2], I64), axes]) is not first  # a value input changed: a new plan
    assert op.plan_for([data, shift, axes]).plan == {0: 1}


class _WrongKernel(Op):
    """Infers f32 but returns f64: the executor must name it, not the next layer."""

    type, version, family = "WrongKernelForTest", 1, "test"
    inputs = (In("data"),)

    def infer(self, data: TensorInfo) -> Inference:
        return Inference([TensorInfo(data.shape, data.etype)])

    def compute(self, plan, data):  # type: ignore[no-untyped-def]
        return [data.astype(np.float64)]


def test_a_kernel_contradicting_its_inference_is_an_internal_error_naming_the_layer(write_ir, builder, monkeypatch):
    from irexec.ops.framework import registry

    monkeypatch.setitem(registry._REGISTRY, "wrongkernelfortest", {1: _WrongKernel})
    registry.resolve.cache_clear()
    try:
        x = builder.parameter("x", [2, 3], "f32")
        builder.result(builder.layer("WrongKernelForTest", "opset1", [x], name="culprit"))
        path = write_ir(builder)
        with pytest.raises(InternalError, match=r"WrongKernelForTest-1 layer 1 'culprit' output 0: kernel returned float64\[2,3\], "
                                                r"inference said f32\[2,3\]"):
            irexec.run(path, {"x": np.zeros((2, 3), np.float32)})
    finally:
        registry.resolve.cache_clear()


def test_broadcast_numpy_follows_openvino_merge_rules():
    def b(x: str, y: str) -> str:
        r = broadcast_numpy(parse_partial_shape(x), parse_partial_shape(y))
        return "none" if r is None else str(r)

    assert b("2,1,4", "3,1") == "[2,3,4]"
    assert b("?,4", "3,1") == "[3,4]"  # a dynamic dim may be 1: the other wins
    assert b("1..3", "0..5") == "[..5]"  # both may be 1: the hull
    assert b("1..3", "2..5") == "[2..5]"  # only one may be 1: the other
    assert b("2..3", "5..8") == "none"
    assert b("...", "3") == "[...]"


def test_dim_interval_arithmetic():
    assert Dim(2, 5) + Dim(1, 1) == Dim(3, 6)
    assert Dim(2, None) * 3 == Dim(6, None)
    assert Dim(7, 9).floordiv(2) == Dim(3, 4)


def test_bounds_flow_through_concat_and_gather():
    """Value bounds (a shape computed at run time) pass through data movement untouched."""
    from irexec.ops.framework.base import UNBOUNDED
    from irexec.ops.movement.concat import Concat1
    from irexec.ops.movement.gather import Gather8

    dims = TensorInfo(PartialShape.static((2,)), dtypes.get("i64"), None,
                      (np.array([0, 3], I64), np.array([UNBOUNDED, 8], I64)))
    tail = info("2", "i64", np.array([4, 16], I64))
    concat = Concat1(attrs={"axis": 0})
    inference = concat.inference([dims, tail])
    (out,) = concat.fold([dims, tail], inference)
    lo, hi = out.bounds()
    assert lo.tolist() == [0, 3, 4, 16] and hi.tolist() == [UNBOUNDED, 8, 4, 16]
    gather = Gather8(attrs={"batch_dims": 0})
    picks = [out, info("2", "i64", np.array([1, 3], I64)), info("", "i64", np.array(0, I64))]
    (picked,) = gather.fold(picks, gather.inference(picks))
    assert [x.tolist() for x in picked.bounds()] == [[3, 16], [8, 16]]


def _two_branch_model(builder: IRBuilder) -> tuple[IRBuilder, str]:
    x = builder.parameter("x", [4, 3], "f32")
    fancy = builder.layer("FancyOp", "opset1", [x], name="fancy", outputs=[([4, 3], "f32")])
    builder.result(fancy, name="needs_fancy")
    fine = builder.layer("Add", "opset1", [x, x], name="doubled", names=["doubled"])
    builder.result(fine, name="fine")
    return builder, "doubled"


def test_a_run_needs_only_what_the_requested_outputs_depend_on(write_ir, builder, run_cli, save_npz):
    b, key = _two_branch_model(builder)
    path = write_ir(b)
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    got = irexec.run(path, {"x": x}, outputs=[key])
    assert list(got) == [key] and np.array_equal(got[key], x + x)
    r = run_cli("run", path, "--inputs", save_npz(x=x), "--stop-at", "doubled")
    assert r.exit_code == 0, r.output


def test_a_needed_missing_op_is_one_error_listing_every_type(write_ir, builder, run_cli, save_npz):
    x = builder.parameter("x", [4], "f32")
    a = builder.layer("FancyOp", "opset1", [x], outputs=[([4], "f32")])
    c = builder.layer("FancyOp", "opset1", [a], outputs=[([4], "f32")])
    d = builder.layer("OtherOp", "opset3", [c], outputs=[([4], "f32")])
    builder.result(d)
    path = write_ir(builder)
    with pytest.raises(ModelError) as e:
        irexec.run(path, {"x": np.zeros(4, np.float32)})
    (diag,) = e.value.diagnostics
    assert diag.code == "unsupported-op"
    assert "FancyOp/opset1 (2 layers, first at line" in diag.message and "OtherOp/opset3 (1 layer at line" in diag.message
    r = run_cli("run", path, "--inputs", save_npz(x=np.zeros(4, np.float32)))
    assert r.exit_code == 1 and "error[unsupported-op]" in r.output and "Traceback" not in r.output


def test_unknown_requested_output_is_unknown_name(write_ir, builder):
    b, _ = _two_branch_model(builder)
    with pytest.raises(UsageError) as e:
        irexec.run(write_ir(b), {"x": np.zeros((4, 3), np.float32)}, outputs=["nope"])
    assert e.value.code == "unknown-name" and "'nope'" in str(e.value)


def test_inspect_shapes_lists_inferred_next_to_declared(write_ir, builder, run_cli):
    x = builder.parameter("x", "?,3", "f32")
    y = builder.layer("Concat", "opset1", [x, builder.const(np.zeros((2, 3), np.float32))], {"axis": 0}, name="joined")
    builder.result(y)
    path = write_ir(builder)
    r = run_cli("inspect", path, "--shapes")
    assert r.exit_code == 0
    row = next(line for line in r.output.splitlines() if "joined" in line)
    assert "Concat-1" in row and "f32[2..,3]" in row and "f32[?,3]" in row
    r = run_cli("inspect", path, "--shapes", "--format", "json")
    ports = json.loads(r.output)["ports"]
    joined = next(p for p in ports if p["layer"] == "joined")
    assert joined["inferred_shape"] == "[2..,3]" and joined["declared_shape"] == "[?,3]" and joined["inferred_type"] == "f32"
    const = next(p for p in ports if p["op"] == "Const-1")
    assert const["known"] == "value"


def test_only_the_inputs_a_run_needs_must_be_fed(write_ir, builder):
    x = builder.parameter("x", [2], "f32")
    y = builder.parameter("y", [2], "f32")
    builder.result(builder.layer("Add", "opset1", [x, x], names=["from_x"]))
    builder.result(builder.layer("Add", "opset1", [y, y], names=["from_y"]))
    path = write_ir(builder)
    got = irexec.run(path, {"x": np.ones(2, np.float32)}, outputs=["from_x"])
    assert got["from_x"].tolist() == [2.0, 2.0]
    with pytest.raises(irexec.InputError, match="no input given for Parameter 'y'"):
        irexec.run(path, {"x": np.ones(2, np.float32)})


def _shape_arithmetic_model(builder: IRBuilder, through_nonzero: bool):
    """y = x + Range(0, n) with n the last dim of x, or (``through_nonzero``)
    the number of non-zero elements of x: a shape known only from its values."""
    x = builder.parameter("x", [2, -1], "f32")
    src = builder.layer("NonZero", "opset3", [x], {"output_type": "i64"}) if through_nonzero else x
    shape = builder.layer("ShapeOf", "opset3", [src], {"output_type": "i64"})
    n = builder.layer("Gather", "opset8", [shape, builder.const(np.array(1, I64)), builder.const(np.array(0, I64))])
    r = builder.layer("Range", "opset4", [builder.const(np.array(0, I64)), n, builder.const(np.array(1, I64))],
                      {"output_type": "f32"})
    total = builder.layer("ReduceSum", "opset1", [r, builder.const(np.array([0], I64))], {"keep_dims": "true"})
    builder.result(builder.layer("Add", "opset1", [x, total]), "y")


@pytest.mark.parametrize("through_nonzero", [False, True])
def test_shape_arithmetic_is_reused_only_for_the_same_shapes(write_ir, builder, through_nonzero):
    """A loaded model keeps what its ShapeOf -> Gather -> Range layers give
    for one set of shapes; a new shape, or a shape that depends on values
    (NonZero), must be recomputed, never served from a stale run."""
    _shape_arithmetic_model(builder, through_nonzero)
    model = irexec.load(write_ir(builder))
    for cols, fill in [(3, 1.0), (5, 1.0), (3, 1.0), (3, 0.0), (5, 1.0), (3, 1.0)]:
        x = np.full((2, cols), fill, np.float32)
        x[0, 0] = 1.0
        n = int(np.count_nonzero(x)) if through_nonzero else cols
        got = irexec.run(model, {"x": x})["y"]
        assert np.array_equal(got, x + np.float32(n * (n - 1) / 2)), (cols, fill)


def test_an_unread_maxpool_index_is_skipped_but_dumped_for_real(write_ir, builder, run_cli, save_npz, tmp_path):
    """MaxPool-14's indices, read by no layer (the usual PyTorch export), are
    not computed in a plain run; the values are the same, and --dump and
    --stop-at still show the real indices."""
    from irexec.ops.framework.registry import resolve

    x = builder.parameter("x", [1, 3, 9, 8], "f32")
    attrs = {"strides": "2,2", "pads_begin": "1,0", "pads_end": "1,1", "kernel": "3,2", "rounding_type": "ceil_torch",
             "dilations": "1,1", "index_element_type": "i64", "axis": "0"}
    pool = builder.layer("MaxPool", "opset14", [x], attrs, name="pool")
    builder.result(builder.layer("Relu", "opset1", [pool], name="relu"), "y")
    model = write_ir(builder)
    data = np.random.default_rng(3).standard_normal((1, 3, 9, 8)).astype(np.float32)
    op = resolve("MaxPool", "opset14").build(None, attrs)[0]
    values, index = op.run(data)
    assert np.array_equal(irexec.run(model, {"x": data})["y"], np.maximum(values, 0))
    dump = tmp_path / "layers"
    r = run_cli("run", model, "--inputs", save_npz(x=data), "--dump", dump)
    assert r.exit_code == 0, r.output
    entry = next(e for e in json.loads((dump / "index.json").read_text())["layers"] if e["name"] == "pool")
    with np.load(dump / entry["file"]) as saved:
        assert index.any() and np.array_equal(saved[entry["outputs"][1]["key"]], index)
    r = run_cli("run", model, "--inputs", save_npz(x=data), "--stop-at", "pool", "-o", tmp_path / "out.npz")
    assert r.exit_code == 0, r.output
    with np.load(tmp_path / "out.npz") as out:
        assert any(np.array_equal(out[k], index) for k in out.files)


def test_outputs_are_writable_even_when_kept_for_later_runs(write_ir, builder):
    """An output computed from Consts or shapes alone is kept read-only for the
    next run; the caller still gets an array it may change."""
    x = builder.parameter("x", [2, -1], "f32")
    builder.result(builder.layer("ShapeOf", "opset3", [x], {"output_type": "i64"}), "shape")
    builder.result(builder.layer("Convert", "opset1", [builder.const(np.arange(3, dtype=np.float16))],
                                 {"destination_type": "f32"}), "weights")
    model = irexec.load(write_ir(builder))
    for _ in range(2):
        out = irexec.run(model, {"x": np.zeros((2, 5), np.float32)})
        out["shape"] += 1
        out["weights"] *= 2
        assert out["shape"].tolist() == [3, 6] and out["weights"].tolist() == [0.0, 2.0, 4.0]


def _counting_inference(monkeypatch) -> list:
    """Record every layer inference a run makes."""
    from irexec.ops.framework.base import Op

    calls: list = []
    plan_for = Op.plan_for

    def counted(self, args):
        calls.append(self.layer.name if self.layer is not None else type(self).__name__)
        return plan_for(self, args)

    monkeypatch.setattr(Op, "plan_for", counted)
    return calls


def test_a_run_on_feeds_of_known_shapes_replays_the_inferences(write_ir, builder, monkeypatch):
    """Shape arithmetic (ShapeOf -> Gather -> Concat -> Reshape) settles every
    layer's shapes from the feeds' shapes: a second run on feeds of the same
    shapes infers nothing (once the Consts are kept: the second run), a run on
    new shapes infers again, and each gives the outputs of a first run."""
    x = builder.parameter("x", [-1, 6], "f32")
    rows = builder.layer("Gather", "opset8", [builder.layer("ShapeOf", "opset3", [x], {"output_type": "i64"}),
                                               builder.const(np.array([0], np.int64)),
                                               builder.const(np.array(0, np.int64))], {"batch_dims": "0"})
    shape = builder.layer("Concat", "opset1", [rows, builder.const(np.array([3, 2], np.int64))], {"axis": "0"})
    scaled = builder.layer("Multiply", "opset1", [x, builder.const(np.float32(2))])
    builder.result(builder.layer("Reshape", "opset1", [scaled, shape], {"special_zero": "false"}, name="reshape"), "y")
    model = irexec.load(write_ir(builder))
    calls = _counting_inference(monkeypatch)
    a, b = (np.arange(n * 6, dtype=np.float32).reshape(n, 6) for n in (2, 5))
    first = irexec.run(model, {"x": a})["y"]
    assert "reshape" in calls and first.shape == (2, 3, 2)
    irexec.run(model, {"x": a})  # the first run of the steps without the Consts' layers
    calls.clear()
    assert np.array_equal(irexec.run(model, {"x": a + 1})["y"], (2 * (a + 1)).reshape(2, 3, 2))
    assert calls == []
    assert np.array_equal(irexec.run(model, {"x": b})["y"], (2 * b).reshape(5, 3, 2))
    assert "reshape" in calls


def test_a_shape_read_from_the_data_is_inferred_every_run(write_ir, builder, monkeypatch):
    """A Reshape whose target shape is an input's value, and the layers after
    a NonZero, can change shape between runs on feeds of the same shapes:
    their inference is made again each time."""
    x = builder.parameter("x", [6], "f32")
    target = builder.parameter("target", [2], "i64")
    builder.result(builder.layer("Reshape", "opset1", [x, target], {"special_zero": "false"}, name="reshape"), "y")
    model = irexec.load(write_ir(builder, "by_value"))
    calls = _counting_inference(monkeypatch)
    data = np.arange(6, dtype=np.float32)
    for target_shape in ([2, 3], [3, 2], [6, 1]):
        calls.clear()
        out = irexec.run(model, {"x": data, "target": np.array(target_shape, np.int64)})["y"]
        assert out.shape == tuple(target_shape) and "reshape" in calls

    b2 = type(builder)()
    v = b2.parameter("v", [8], "f32")
    found = b2.layer("NonZero", "opset3", [v], {"output_type": "i64"}, name="nonzero")
    b2.result(b2.layer("ShapeOf", "opset3", [found], {"output_type": "i64"}, name="count"), "n")
    model = irexec.load(write_ir(b2, "nonzero"))
    for k in (3, 5, 0):
        calls.clear()
        v_data = np.zeros(8, np.float32)
        v_data[:k] = 1
        assert irexec.run(model, {"v": v_data})["n"].tolist() == [1, k]
        assert "count" in calls
