"""TensorIterator-1, Loop-5 and If-8 on IR that OpenVINO itself writes: the
check is clean, a run equals OpenVINO CPU, and findings inside a body point
at the body's lines."""

from __future__ import annotations

import numpy as np
import pytest

import irexec

ov = pytest.importorskip("openvino")
from openvino import opset1  # noqa: E402
from openvino import opset8 as ops  # noqa: E402
from oracle import CPU_CONFIG  # noqa: E402


def loop_model(dynamic=False, body_cond=True):
    T = -1 if dynamic else 5
    trip = ops.parameter([], ov.Type.i64, name="trip")
    cond = ops.parameter([], ov.Type.boolean, name="cond")
    x = ops.parameter([2, 3], ov.Type.f32, name="x")
    a = ops.parameter([2, 3], ov.Type.f32, name="a")
    seq = ops.parameter([T, 2, 3], ov.Type.f32, name="seq")
    flags = ops.parameter([T], ov.Type.f32, name="flags")
    bi = ops.parameter([], ov.Type.i64, name="it")
    bx = ops.parameter([2, 3], ov.Type.f32, name="bx")
    ba = ops.parameter([2, 3], ov.Type.f32, name="ba")
    bs = ops.parameter([1, 2, 3], ov.Type.f32, name="bs")
    bf = ops.parameter([1], ov.Type.f32, name="bf")
    s = ops.add(ops.add(bx, ba), ops.convert(bi, "f32"))
    s3 = ops.add(bs, s)
    bc = ops.convert(bf, "boolean") if body_cond else ops.constant(True)
    body = ov.Model([ops.result(bc), ops.result(s), ops.result(s3)], [bi, bx, ba, bs, bf], "body")
    loop = ops.loop(trip, cond)
    loop.set_function(body)
    loop.set_special_body_ports([0, 0])
    loop.set_merged_input(bx, x.output(0), body.get_results()[1].output(0))
    loop.set_invariant_input(ba, a.output(0))
    loop.set_sliced_input(bs, seq.output(0), 0, 1, 1, -1, 0)
    loop.set_sliced_input(bf, flags.output(0), 0, 1, 1, -1, 0)
    o1 = loop.get_iter_value(body.get_results()[1].output(0), -1)
    o2 = loop.get_concatenated_slices(body.get_results()[2].output(0), 0, 1, 1, -1, 0)
    return ov.Model([o1, o2], [trip, cond, x, a, seq, flags], "loop")


def ti_model(reverse=False):
    seq = ops.parameter([2, 4, 3], ov.Type.f32, name="seq")  # batch, time, feat
    h0 = ops.parameter([2, 1, 3], ov.Type.f32, name="h0")
    w = ops.parameter([1, 3], ov.Type.f32, name="w")
    bxs = ops.parameter([2, 1, 3], ov.Type.f32, name="bxs")
    bh = ops.parameter([2, 1, 3], ov.Type.f32, name="bh")
    bw = ops.parameter([1, 3], ov.Type.f32, name="bw")
    h = ops.add(ops.add(bxs, bh), bw)
    body = ov.Model([ops.result(h), ops.result(ops.concat([h, bh], 2))], [bxs, bh, bw], "tibody")
    ti = opset1.tensor_iterator()
    ti.set_body(body)
    if reverse:
        ti.set_sliced_input(bxs, seq.output(0), -1, -1, 1, 0, 1)
    else:
        ti.set_sliced_input(bxs, seq.output(0), 0, 1, 1, -1, 1)
    ti.set_merged_input(bh, h0.output(0), body.get_results()[0].output(0))
    ti.set_invariant_input(bw, w.output(0))
    o1 = ti.get_iter_value(body.get_results()[0].output(0), -1)
    o2 = ti.get_concatenated_slices(body.get_results()[1].output(0), -1, -1, 1, 0, 1) if reverse else \
        ti.get_concatenated_slices(body.get_results()[1].output(0), 0, 1, 1, -1, 1)
    return ov.Model([o1, o2], [seq, h0, w], "ti")


def if_model(dynamic=False):
    c = ops.parameter([], ov.Type.boolean, name="c")
    x = ops.parameter([-1, 3] if dynamic else [2, 3], ov.Type.f32, name="x")
    y = ops.parameter([2, 3], ov.Type.f32, name="y")
    tx = ops.parameter(x.get_partial_shape(), ov.Type.f32, name="tx")
    ty = ops.parameter([2, 3], ov.Type.f32, name="ty")
    then_body = ov.Model([ops.result(ops.add(tx, ty))], [tx, ty], "then")
    ex = ops.parameter(x.get_partial_shape(), ov.Type.f32, name="ex")
    else_body = ov.Model([ops.result(ops.concat([ex, ex], 0))], [ex], "else")
    iff = ops.if_op(c)
    iff.set_then_body(then_body)
    iff.set_else_body(else_body)
    iff.set_input(x.output(0), tx, ex)
    iff.set_input(y.output(0), ty, None)
    out = iff.set_output(then_body.get_results()[0], else_body.get_results()[0])
    return ov.Model([out], [c, x, y], "if")


def loop_ti_model():
    """A Loop whose body runs a TensorIterator (a recurrence over the time axis
    of an invariant sequence) from the loop-carried state, and whose body's
    body holds an If choosing per time step between two updates."""
    trip = ops.parameter([], ov.Type.i64, name="trip")
    cond = ops.parameter([], ov.Type.boolean, name="cond")
    seq = ops.parameter([2, 4, 3], ov.Type.f32, name="seq")
    h0 = ops.parameter([2, 1, 3], ov.Type.f32, name="h0")
    # the TensorIterator's body: h' = relu(x + h) if sum(x) > 0 else h - x (exact in f32 on both sides)
    tx = ops.parameter([2, 1, 3], ov.Type.f32, name="tx")
    th = ops.parameter([2, 1, 3], ov.Type.f32, name="th")
    ix, ih = ops.parameter([2, 1, 3], ov.Type.f32, name="ix"), ops.parameter([2, 1, 3], ov.Type.f32, name="ih")
    then_body = ov.Model([ops.result(ops.relu(ops.add(ix, ih)))], [ix, ih], "then")
    ex, eh = ops.parameter([2, 1, 3], ov.Type.f32, name="ex"), ops.parameter([2, 1, 3], ov.Type.f32, name="eh")
    else_body = ov.Model([ops.result(ops.subtract(eh, ex))], [ex, eh], "else")
    positive = ops.greater(ops.reduce_sum(tx, ops.constant([0, 1, 2])), ops.constant(np.float32(0)))
    iff = ops.if_op(positive.output(0))
    iff.set_then_body(then_body)
    iff.set_else_body(else_body)
    iff.set_input(tx.output(0), ix, ex)
    iff.set_input(th.output(0), ih, eh)
    h_next = iff.set_output(then_body.get_results()[0], else_body.get_results()[0])
    ti_body = ov.Model([ops.result(h_next)], [tx, th], "ti_body")
    # the Loop's body: run the TensorIterator from the carried h, add the iteration number
    bi = ops.parameter([], ov.Type.i64, name="it")
    bseq = ops.parameter([2, 4, 3], ov.Type.f32, name="bseq")
    bh = ops.parameter([2, 1, 3], ov.Type.f32, name="bh")
    ti = opset1.tensor_iterator()
    ti.set_body(ti_body)
    ti.set_sliced_input(tx, bseq.output(0), 0, 1, 1, -1, 1)
    ti.set_merged_input(th, bh.output(0), ti_body.get_results()[0].output(0))
    last = ti.get_iter_value(ti_body.get_results()[0].output(0), -1)
    h_out = ops.add(last, ops.convert(bi, "f32"))
    body = ov.Model([ops.result(ops.constant(True)), ops.result(h_out)], [bi, bseq, bh], "loop_body")
    loop = ops.loop(trip, cond)
    loop.set_function(body)
    loop.set_special_body_ports([0, 0])
    loop.set_invariant_input(bseq, seq.output(0))
    loop.set_merged_input(bh, h0.output(0), body.get_results()[1].output(0))
    final = loop.get_iter_value(body.get_results()[1].output(0), -1)
    every = loop.get_concatenated_slices(body.get_results()[1].output(0), 0, 1, 1, -1, 1)
    return ov.Model([final, every], [trip, cond, seq, h0], "loop_ti")


MODELS = {
    "loop": lambda: loop_model(),
    "loop_dynamic": lambda: loop_model(dynamic=True),
    "loop_const_condition": lambda: loop_model(body_cond=False),
    "ti": lambda: ti_model(),
    "ti_reverse": lambda: ti_model(reverse=True),
    "loop_ti": loop_ti_model,
    "if": lambda: if_model(),
    "if_dynamic": lambda: if_model(dynamic=True),
}


def save(tmp_path, name: str) -> str:
    path = str(tmp_path / f"{name}.xml")
    ov.save_model(MODELS[name](), path, compress_to_fp16=False)
    return path


def loop_feeds(trip: int, cond: bool, flags: list[int], steps: int = 5) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(trip + steps)
    return {"trip": np.array(trip, np.int64), "cond": np.array(cond), "x": rng.random((2, 3), np.float32),
            "a": rng.random((2, 3), np.float32), "seq": rng.random((steps, 2, 3), np.float32),
            "flags": np.array(flags, np.float32)}


def ti_feeds() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(1)
    return {"seq": rng.random((2, 4, 3), np.float32), "h0": rng.random((2, 1, 3), np.float32),
            "w": rng.random((1, 3), np.float32)}


def if_feeds(c: bool) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(2)
    return {"c": np.array(c), "x": rng.random((2, 3), np.float32), "y": rng.random((2, 3), np.float32)}


def loop_ti_feeds() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(3)
    seq = rng.random((2, 4, 3), np.float32) * np.array([1, -1, 1, -1], np.float32)[None, :, None]  # both branches
    return {"trip": np.array(3, np.int64), "cond": np.array(True), "seq": seq, "h0": rng.random((2, 1, 3), np.float32)}


CASES = [
    ("loop", loop_feeds(3, True, [1] * 5)),
    ("loop", loop_feeds(-1, True, [1, 1, 1, 0, 1])),  # no trip count: the body's condition ends it
    ("loop", loop_feeds(3, False, [1] * 5)),  # no iteration: the merged input's initial value, an empty concat
    ("loop_const_condition", loop_feeds(4, True, [1, 1, 0, 1, 1])),
    ("loop_dynamic", loop_feeds(4, True, [1] * 7, steps=7)),
    ("ti", ti_feeds()),
    ("ti_reverse", ti_feeds()),
    ("loop_ti", loop_ti_feeds()),
    ("if", if_feeds(True)),
    ("if", if_feeds(False)),
    ("if_dynamic", if_feeds(False)),
]


@pytest.mark.parametrize("name", sorted(MODELS))
def test_check_is_clean(tmp_path, name):
    result = irexec.check(save(tmp_path, name))
    assert not result.diagnostics, [str(d) for d in result.diagnostics]


@pytest.mark.parametrize(("name", "feeds"), CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_run_equals_openvino(tmp_path, name, feeds):
    path = save(tmp_path, name)
    core = ov.Core()
    compiled = core.compile_model(core.read_model(path), "CPU", CPU_CONFIG)
    expected = compiled(feeds)
    got = irexec.run(path, feeds)
    assert len(got) == len(compiled.outputs)
    for port, value in zip(compiled.outputs, got.values()):
        want = expected[port]
        assert value.shape == want.shape and value.dtype == want.dtype
        np.testing.assert_array_equal(value, want)  # only Add and Concat in the bodies: exact


def test_body_finding_points_inside_the_body(tmp_path):
    path = save(tmp_path, "ti")
    text = open(path).read()
    body = text.index("<body>")
    # corrupt the first declared dim of the Add inside the body
    add = text.index('type="Add"', body)
    out = text.index("<output>", add)
    dim = text.index("<dim>2</dim>", out)
    text = text[:dim] + "<dim>7</dim>" + text[dim + len("<dim>2</dim>"):]
    open(path, "w").write(text)
    line = text[:dim].count("\n") + 1  # a finding about one dim points at that <dim>
    result = irexec.check(path)
    errors = [d for d in result.diagnostics if d.severity == "error"]
    assert errors and errors[0].code == "shape-mismatch" and errors[0].line == line, [str(d) for d in errors]


def test_bad_port_map_is_refused(tmp_path):
    path = save(tmp_path, "if")
    text = open(path).read().replace('internal_layer_id="0"', 'internal_layer_id="99"')
    open(path, "w").write(text)
    result = irexec.check(path)
    assert any(d.code == "bad-port-map" for d in result.diagnostics), [str(d) for d in result.diagnostics]
    with pytest.raises(irexec.IRExecError):
        irexec.run(path, if_feeds(True))


def test_nested_body_finding_points_at_its_line(tmp_path):
    """A corrupted declared dim in the If inside the TensorIterator inside the
    Loop is a shape-mismatch at that dim's line; OpenVINO writes the nesting."""
    path = save(tmp_path, "loop_ti")
    text = open(path).read()
    inner = text.index("<else_body>", text.index('type="TensorIterator"'))
    sub = text.index('type="Subtract"', inner)
    dim = text.index("<dim>", text.index("<output>", sub))
    end = text.index("</dim>", dim)
    text = text[:dim] + "<dim>9" + text[end:]
    open(path, "w").write(text)
    line = text[:dim].count("\n") + 1  # the one wrong <dim>
    result = irexec.check(path)
    errors = [d for d in result.diagnostics if d.severity == "error"]
    assert errors and errors[0].code == "shape-mismatch" and errors[0].line == line, [str(d) for d in errors]
    assert "Subtract" in (errors[0].op or ""), str(errors[0])
