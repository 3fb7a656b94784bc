"""Small ONNX models with control flow and recurrent ops (Loop, If, LSTM, GRU,
RNN, and a Loop whose body holds an If), built with ``onnx.helper``, converted
by OpenVINO's ONNX frontend and saved as IR: ``irexec check`` accepts each
file, and ``irexec run --compare`` matches OpenVINO CPU's values within the
recurrent ops' bound (README, Accuracy of the recurrent ops)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ov = pytest.importorskip("openvino")
onnx = pytest.importorskip("onnx")
from onnx import TensorProto as TP  # noqa: E402
from onnx import helper as oh  # noqa: E402
from oracle import CPU_CONFIG  # noqa: E402

import irexec  # noqa: E402

RTOL, ATOL = 1e-5, 1e-5
rng = np.random.default_rng(20261123)


def f32(*shape: int, scale: float = 0.6) -> np.ndarray:
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def vi(name: str, etype: int, shape: list[Any] | None) -> onnx.ValueInfoProto:
    return oh.make_tensor_value_info(name, etype, shape)


def init(name: str, value: np.ndarray) -> onnx.TensorProto:
    return onnx.numpy_helper.from_array(value, name)


def model(graph: onnx.GraphProto) -> onnx.ModelProto:
    m = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 17)])
    onnx.checker.check_model(m, full_check=True)
    return m


# ------------------------------------------------------------------ the models

def loop_body(extra: list[onnx.NodeProto] | None = None) -> onnx.GraphProto:
    """(i, cond, acc) -> (sum(acc') < limit, acc' = acc + x * i, scan tanh(acc')); ``extra`` nodes may
    replace how acc' is made (they must write acc_out from acc_in)."""
    nodes = extra or [oh.make_node("Cast", ["i"], ["i_f"], to=TP.FLOAT),
                      oh.make_node("Mul", ["x", "i_f"], ["xi"]),
                      oh.make_node("Add", ["acc_in", "xi"], ["acc_out"])]
    nodes = nodes + [oh.make_node("ReduceSum", ["acc_out"], ["total"], keepdims=0),
                     oh.make_node("Less", ["total", "limit"], ["cond_out"]),
                     oh.make_node("Tanh", ["acc_out"], ["scan_out"])]
    return oh.make_graph(nodes, "body",
                         [vi("i", TP.INT64, []), vi("cond_in", TP.BOOL, []), vi("acc_in", TP.FLOAT, [2, 3])],
                         [vi("cond_out", TP.BOOL, []), vi("acc_out", TP.FLOAT, [2, 3]), vi("scan_out", TP.FLOAT, [2, 3])])


def loop_graph(body: onnx.GraphProto, name: str) -> onnx.GraphProto:
    return oh.make_graph(
        [oh.make_node("Loop", ["trip", "cond", "acc0"], ["acc_final", "scans"], body=body)], name,
        [vi("trip", TP.INT64, []), vi("cond", TP.BOOL, []), vi("acc0", TP.FLOAT, [2, 3]), vi("x", TP.FLOAT, [2, 3]),
         vi("limit", TP.FLOAT, [])],
        [vi("acc_final", TP.FLOAT, [2, 3]), vi("scans", TP.FLOAT, ["n", 2, 3])])


def loop_feeds(trip: int, cond: bool, limit: float) -> dict[str, np.ndarray]:
    # x > 0, so the sum grows every iteration and ``limit`` ends the loop
    return {"trip": np.array(trip, np.int64), "cond": np.array(cond), "acc0": f32(2, 3), "x": np.abs(f32(2, 3)) + 0.1,
            "limit": np.array(limit, np.float32)}


def loop_model() -> onnx.ModelProto:
    return model(loop_graph(loop_body(), "loop"))


def if_model() -> onnx.ModelProto:
    """Two branches with different sub-graphs over outer values; the condition is an input."""
    then = oh.make_graph([oh.make_node("MatMul", ["a", "w"], ["aw"]), oh.make_node("Sigmoid", ["aw"], ["then_out"])],
                         "then", [], [vi("then_out", TP.FLOAT, [3, 4])])
    other = oh.make_graph([oh.make_node("Sub", ["b", "a_sum"], ["d"]), oh.make_node("Relu", ["d"], ["r"]),
                           oh.make_node("Mul", ["r", "r"], ["else_out"])],
                          "else", [], [vi("else_out", TP.FLOAT, [3, 4])])
    g = oh.make_graph(
        [oh.make_node("ReduceSum", ["a"], ["a_sum"], keepdims=1),
         oh.make_node("If", ["c"], ["y"], then_branch=then, else_branch=other),
         oh.make_node("Add", ["y", "b"], ["z"])], "if",
        [vi("c", TP.BOOL, []), vi("a", TP.FLOAT, [3, 5]), vi("b", TP.FLOAT, [3, 4])],
        [vi("z", TP.FLOAT, [3, 4])], [init("w", f32(5, 4))])
    return model(g)


def rnn_family_model(kind: str, direction: str, hidden: int = 4, batch: int = 3, steps: int = 5, size: int = 3,
                     **attrs: Any) -> onnx.ModelProto:
    """One ONNX LSTM/GRU/RNN with weights as initializers, initial states and sequence_lens as inputs."""
    gates = {"LSTM": 4, "GRU": 3, "RNN": 1}[kind]
    dirs = 2 if direction == "bidirectional" else 1
    ins = ["X", "W", "R", "B", "lens", "h0"] + (["c0"] if kind == "LSTM" else [])
    outs = ["Y", "Y_h"] + (["Y_c"] if kind == "LSTM" else [])
    node = oh.make_node(kind, ins, outs, hidden_size=hidden, direction=direction, **attrs)
    inputs = [vi("X", TP.FLOAT, [steps, batch, size]), vi("lens", TP.INT32, [batch]), vi("h0", TP.FLOAT, [dirs, batch, hidden])]
    if kind == "LSTM":
        inputs.append(vi("c0", TP.FLOAT, [dirs, batch, hidden]))
    outputs = [vi("Y", TP.FLOAT, [steps, dirs, batch, hidden])] + [vi(n, TP.FLOAT, [dirs, batch, hidden]) for n in outs[1:]]
    inits = [init("W", f32(dirs, gates * hidden, size)), init("R", f32(dirs, gates * hidden, hidden)),
             init("B", f32(dirs, 2 * gates * hidden, scale=0.3))]
    return model(oh.make_graph([node], kind.lower(), inputs, outputs, inits))


def rnn_family_feeds(kind: str, lens: list[int], dirs: int, hidden: int = 4, steps: int = 5, size: int = 3) -> dict[str, np.ndarray]:
    batch = len(lens)
    feeds = {"X": f32(steps, batch, size), "lens": np.array(lens, np.int32), "h0": f32(dirs, batch, hidden)}
    if kind == "LSTM":
        feeds["c0"] = f32(dirs, batch, hidden)
    return feeds


def loop_if_model() -> onnx.ModelProto:
    """A Loop whose body holds an If: even iterations add x * i, odd ones scale by the outer ``k``."""
    even = oh.make_graph([oh.make_node("Cast", ["i"], ["i_f"], to=TP.FLOAT), oh.make_node("Mul", ["x", "i_f"], ["xi"]),
                          oh.make_node("Add", ["acc_in", "xi"], ["even_out"])],
                         "even", [], [vi("even_out", TP.FLOAT, [2, 3])])
    odd = oh.make_graph([oh.make_node("Mul", ["acc_in", "k"], ["odd_out"])], "odd", [], [vi("odd_out", TP.FLOAT, [2, 3])])
    nodes = [oh.make_node("Mod", ["i", "two"], ["parity"]),
             oh.make_node("Equal", ["parity", "zero"], ["is_even"]),
             oh.make_node("If", ["is_even"], ["acc_out"], then_branch=even, else_branch=odd)]
    g = loop_graph(loop_body(nodes), "loop_if")
    g.initializer.extend([init("two", np.array(2, np.int64)), init("zero", np.array(0, np.int64))])
    g.input.append(vi("k", TP.FLOAT, []))
    return model(g)


def loop_lstm_model() -> onnx.ModelProto:
    """A Loop whose body runs an LSTM over the outer sequence from the carried
    state, carrying its last hidden state and scanning it."""
    hidden, size, batch, steps = 3, 2, 2, 4
    lstm = oh.make_node("LSTM", ["X", "W", "R", "B", "", "h_in", "c0"], ["", "Y_h"], hidden_size=hidden)
    body = oh.make_graph(
        [lstm, oh.make_node("Identity", ["cond_in"], ["cond_out"]), oh.make_node("Identity", ["Y_h"], ["h_out"]),
         oh.make_node("Identity", ["Y_h"], ["scan_out"])], "body",
        [vi("i", TP.INT64, []), vi("cond_in", TP.BOOL, []), vi("h_in", TP.FLOAT, [1, batch, hidden])],
        [vi("cond_out", TP.BOOL, []), vi("h_out", TP.FLOAT, [1, batch, hidden]), vi("scan_out", TP.FLOAT, [1, batch, hidden])])
    g = oh.make_graph(
        [oh.make_node("Loop", ["trip", "", "h0"], ["h_final", "hs"], body=body)], "loop_lstm",
        [vi("trip", TP.INT64, []), vi("X", TP.FLOAT, [steps, batch, size]), vi("h0", TP.FLOAT, [1, batch, hidden]),
         vi("c0", TP.FLOAT, [1, batch, hidden])],
        [vi("h_final", TP.FLOAT, [1, batch, hidden]), vi("hs", TP.FLOAT, ["n", 1, batch, hidden])],
        [init("W", f32(1, 4 * hidden, size)), init("R", f32(1, 4 * hidden, hidden)), init("B", f32(1, 8 * hidden, scale=0.3))])
    return model(g)


def if_shapes_model() -> onnx.ModelProto:
    """Branches whose outputs differ in shape: the If's output dim is dynamic."""
    then = oh.make_graph([oh.make_node("Concat", ["a", "a"], ["t"], axis=0)], "then", [], [vi("t", TP.FLOAT, [6, 2])])
    other = oh.make_graph([oh.make_node("Neg", ["a"], ["e"])], "else", [], [vi("e", TP.FLOAT, [3, 2])])
    return model(oh.make_graph([oh.make_node("If", ["c"], ["y"], then_branch=then, else_branch=other)], "if_shapes",
                               [vi("c", TP.BOOL, []), vi("a", TP.FLOAT, [3, 2])], [vi("y", TP.FLOAT, ["n", 2])]))


def loop_grow_model() -> onnx.ModelProto:
    """A loop-carried value that grows every iteration (no condition input)."""
    body = oh.make_graph([oh.make_node("Concat", ["v_in", "x"], ["v_out"], axis=0),
                          oh.make_node("Identity", ["cond_in"], ["cond_out"])], "body",
                         [vi("i", TP.INT64, []), vi("cond_in", TP.BOOL, []), vi("v_in", TP.FLOAT, ["n", 2])],
                         [vi("cond_out", TP.BOOL, []), vi("v_out", TP.FLOAT, ["m", 2])])
    return model(oh.make_graph([oh.make_node("Loop", ["trip", "", "v0"], ["v"], body=body)], "grow",
                               [vi("trip", TP.INT64, []), vi("v0", TP.FLOAT, [1, 2]), vi("x", TP.FLOAT, [2, 2])],
                               [vi("v", TP.FLOAT, ["k", 2])]))


def dynamic_rnn_model(kind: str, direction: str, hidden: int = 3, size: int = 2) -> onnx.ModelProto:
    """Sequence and batch dynamic, no sequence_lens, no initial states."""
    gates = {"LSTM": 4, "GRU": 3, "RNN": 1}[kind]
    dirs = 2 if direction == "bidirectional" else 1
    node = oh.make_node(kind, ["X", "W", "R"], ["Y", "Y_h"], hidden_size=hidden, direction=direction)
    return model(oh.make_graph([node], "dyn", [vi("X", TP.FLOAT, ["s", "b", size])],
                               [vi("Y", TP.FLOAT, ["s", dirs, "b", hidden]), vi("Y_h", TP.FLOAT, [dirs, "b", hidden])],
                               [init("W", f32(dirs, gates * hidden, size)), init("R", f32(dirs, gates * hidden, hidden))]))


MODELS: dict[str, tuple[Any, Any]] = {
    # name: (model builder, feeds builder)
    "loop-trip-count": (loop_model, lambda: loop_feeds(6, True, 1e9)),
    "loop-condition-ends-it": (loop_model, lambda: loop_feeds(50, True, 4.0)),
    "loop-condition-false": (loop_model, lambda: loop_feeds(5, False, 1e9)),
    "if-then": (if_model, lambda: {"c": np.array(True), "a": f32(3, 5), "b": f32(3, 4)}),
    "if-else": (if_model, lambda: {"c": np.array(False), "a": f32(3, 5), "b": f32(3, 4)}),
    "lstm-bidirectional-lens": (lambda: rnn_family_model("LSTM", "bidirectional"),
                                lambda: rnn_family_feeds("LSTM", [5, 2, 4], 2)),
    "lstm-reverse-clip": (lambda: rnn_family_model("LSTM", "reverse", clip=0.7),
                          lambda: rnn_family_feeds("LSTM", [3, 5, 1], 1)),
    "gru-bidirectional-lbr": (lambda: rnn_family_model("GRU", "bidirectional", linear_before_reset=1),
                              lambda: rnn_family_feeds("GRU", [4, 5, 2], 2)),
    "gru-forward": (lambda: rnn_family_model("GRU", "forward"), lambda: rnn_family_feeds("GRU", [5, 1, 3], 1)),
    "rnn-bidirectional": (lambda: rnn_family_model("RNN", "bidirectional"), lambda: rnn_family_feeds("RNN", [2, 5, 5], 2)),
    "rnn-relu": (lambda: rnn_family_model("RNN", "forward", activations=["Relu"]),
                 lambda: rnn_family_feeds("RNN", [5, 3, 4], 1)),
    "if-branch-shapes-then": (if_shapes_model, lambda: {"c": np.array(True), "a": f32(3, 2)}),
    "if-branch-shapes-else": (if_shapes_model, lambda: {"c": np.array(False), "a": f32(3, 2)}),
    "loop-growing-state": (loop_grow_model, lambda: {"trip": np.array(3, np.int64), "v0": f32(1, 2), "x": f32(2, 2)}),
    "lstm-dynamic-reverse": (lambda: dynamic_rnn_model("LSTM", "reverse"), lambda: {"X": f32(5, 3, 2)}),
    "gru-dynamic-bidirectional": (lambda: dynamic_rnn_model("GRU", "bidirectional"), lambda: {"X": f32(4, 2, 2)}),
    "loop-lstm": (loop_lstm_model, lambda: {"trip": np.array(3, np.int64), "X": f32(4, 2, 2), "h0": f32(1, 2, 3),
                                            "c0": f32(1, 2, 3)}),
    "loop-if": (loop_if_model, lambda: {**loop_feeds(7, True, 1e9), "k": np.array(0.5, np.float32)}),
}


# ------------------------------------------------------------------ helpers

def to_ir(m: onnx.ModelProto, tmp: Path) -> str:
    src = tmp / "model.onnx"
    onnx.save(m, str(src))
    xml = tmp / "model.xml"
    ov.save_model(ov.convert_model(str(src)), str(xml))
    return str(xml)


def openvino_values(xml: str, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    core = ov.Core()
    compiled = core.compile_model(core.read_model(xml), "CPU", CPU_CONFIG)
    results = compiled({name: ov.Tensor(np.array(v)) for name, v in feeds.items()})
    return {out.get_any_name(): np.asarray(results[out]) for out in compiled.outputs}


# ------------------------------------------------------------------ tests

@pytest.fixture(scope="module")
def converted(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Each builder converted once (cases sharing a model share its IR)."""
    cache: dict[Any, str] = {}

    def get(build: Any) -> str:
        if build not in cache:
            cache[build] = to_ir(build(), tmp_path_factory.mktemp("onnx"))
        return cache[build]

    return get


@pytest.mark.parametrize("name", list(MODELS))
def test_converted_model_matches_openvino_cpu(name: str, converted, run_cli, save_npz) -> None:  # type: ignore[no-untyped-def]
    build, make_feeds = MODELS[name]
    xml = converted(build)
    feeds = make_feeds()
    report = irexec.check(xml)
    assert not report.errors, [str(d) for d in report.errors]
    want = openvino_values(xml, feeds)
    got = irexec.run(xml, feeds)
    assert set(got) == set(want)
    for out, w in want.items():
        g = got[out]
        assert g.shape == w.shape and g.dtype == w.dtype, (out, g.shape, w.shape, g.dtype, w.dtype)
        np.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL, err_msg=f"{name} {out}")
    # the same through the command line, against OpenVINO's values saved as a reference
    r = run_cli("run", xml, "--inputs", save_npz(**feeds), "--compare", save_npz("ref", **want),
                "--rtol", str(RTOL), "--atol", str(ATOL))
    assert r.exit_code == 0, r.output


def test_control_flow_is_not_vacuous(tmp_path: Path) -> None:
    """The loop models really iterate and branch: the condition cuts the loop
    short, a false condition runs no iteration, and the If's branches differ."""
    xml = to_ir(loop_model(), tmp_path)
    full = irexec.run(xml, loop_feeds(6, True, 1e9))
    cut = irexec.run(xml, loop_feeds(50, True, 4.0))
    none = irexec.run(xml, loop_feeds(5, False, 1e9))
    assert full["scans"].shape[0] == 6 and 0 < cut["scans"].shape[0] < 50 and none["scans"].shape[0] == 0
    xml = to_ir(if_model(), tmp_path)
    a, b = f32(3, 5), f32(3, 4)
    assert not np.allclose(irexec.run(xml, {"c": np.array(True), "a": a, "b": b})["z"],
                           irexec.run(xml, {"c": np.array(False), "a": a, "b": b})["z"])


def test_nested_body_dim_is_reported_at_its_line(tmp_path: Path) -> None:
    """A corrupted declared dim of a layer inside the If inside the Loop's body
    is a shape-mismatch located at that dim's line of the XML."""
    xml = to_ir(loop_if_model(), tmp_path)
    text = Path(xml).read_text()
    outer = text.index("<body>")
    inner = text.index("<then_body>", outer)  # the If inside the Loop's body
    # the first Multiply inside the nested body: its output port's first dim
    layer = text.index('type="Multiply"', inner)
    out = text.index("<output>", layer)
    m = re.compile(r"<dim>(\d+)</dim>").search(text, out)
    assert m is not None
    bad = str(int(m.group(1)) + 3)
    text = text[:m.start()] + f"<dim>{bad}</dim>" + text[m.end():]
    Path(xml).write_text(text)
    line = text[: m.start()].count("\n") + 1  # the one wrong <dim>
    report = irexec.check(xml)
    errors = [d for d in report.diagnostics if d.severity == "error"]
    assert errors and errors[0].code == "shape-mismatch" and errors[0].line == line, [str(d) for d in errors]
