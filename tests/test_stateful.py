"""Stateful models: ReadValue-3/6 and Assign-3/6 against OpenVINO CPU over
several calls, the Session's state API, `irexec run --state-in/--state-out`,
the checks a stateful model gets, and `irexec generate`."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("openvino")
import openvino as ov  # noqa: E402
from stateful_models import accumulator, ov_greedy, save, tiny_lm, variable  # noqa: E402

from irexec import InputError, IRExecError, ModelError, UsageError  # noqa: E402
from irexec.api.load import read_model  # noqa: E402
from irexec.api.session import Session  # noqa: E402
from irexec.checker.model_checker import check_model  # noqa: E402
from irexec.executor.engine import run_model  # noqa: E402

KINDS = ("v6-init", "v6-zeros", "v3", "v6-grow")


def _x(kind: str, step: int) -> np.ndarray:
    shape = (step + 1, 3) if kind == "v6-grow" else (2, 3)
    return np.arange(np.prod(shape), dtype=np.float32).reshape(shape) * (step + 1) - 2


def _ov_request(path: str):  # type: ignore[no-untyped-def]
    return ov.Core().compile_model(path, "CPU", {"INFERENCE_PRECISION_HINT": "f32"}).create_infer_request()


@pytest.mark.parametrize("kind", KINDS)
def test_runs_carry_state_as_openvino_does(kind, tmp_path):
    path = save(accumulator(kind), tmp_path)
    request = _ov_request(path)
    with Session(path) as s:
        assert list(s.variables) == ["grow" if kind == "v6-grow" else "acc"]
        for step in range(3):
            out = s.run({"x": _x(kind, step)}).outputs
            expected = request.infer({"x": _x(kind, step)})[0]
            np.testing.assert_array_equal(next(iter(out.values())), expected)
        ov_state = {st.name: st.state.data.copy() for st in request.query_state()}
        assert {k: v.tolist() for k, v in s.state.items()} == {k: v.tolist() for k, v in ov_state.items()}
        s.reset_state()
        request.reset_state()
        np.testing.assert_array_equal(next(iter(s.run({"x": _x(kind, 0)}).outputs.values())),
                                      request.infer({"x": _x(kind, 0)})[0])


@pytest.mark.parametrize("kind", [*KINDS, "tiny-lm"])
def test_inferred_shapes_and_types_match_openvinos(kind, tmp_path):
    """irexec check's inference of every ReadValue and Assign output (and every other layer)
    against OpenVINO's own, on the file read back by read_model."""
    path = save(tiny_lm() if kind == "tiny-lm" else accumulator(kind), tmp_path)
    result = check_model(read_model(path))
    assert result.errors == []
    by_name = {layer.name: layer.id for layer in result_layers(path)}
    seen = set()
    for node in ov.Core().read_model(path).get_ordered_ops():
        name = node.get_friendly_name()
        if node.get_type_name() == "Result" or name not in by_name:
            continue
        info = result.tensors[(by_name[name], 0)]
        want = node.get_output_partial_shape(0)
        assert str(info.shape).replace(" ", "") == str(want).replace(" ", ""), name
        assert info.etype.name == node.get_output_element_type(0).get_type_name(), name
        seen.add(node.get_type_name())
    assert {"ReadValue", "Assign"} <= seen


def result_layers(path: str):  # type: ignore[no-untyped-def]
    return read_model(path).layers.values()


def test_same_feed_shapes_on_a_grown_state_are_not_replayed(tmp_path):
    """The shapes of a run depend on the state as well as the feeds: feeding the same
    shape three times grows the variable each time."""
    path = save(accumulator("v6-grow"), tmp_path)
    with Session(path) as s:
        shapes = [s.run({"x": np.ones((1, 3), np.float32)}).outputs["Result_" + _result_suffix(s)].shape for _ in range(3)]
    assert shapes == [(1, 3), (2, 3), (3, 3)]


def _result_suffix(s: Session) -> str:
    return s.output_names[0].split("_", 1)[1]


def test_state_api_get_set_reset(tmp_path):
    path = save(accumulator("v6-init"), tmp_path)
    with Session(path) as s:
        assert s.state == {} and s.get_state("acc") is None  # starts from its initialising input
        with pytest.raises(UsageError) as e:
            s.save_state(tmp_path / "s.npz")
        assert e.value.code == "state-not-set" and not (tmp_path / "s.npz").exists()
        mine = np.full((2, 3), 100, np.float32)
        s.set_state("acc", mine)
        mine[:] = 0  # copied: the session's value does not change
        assert s.run({"x": np.ones((2, 3), np.float32)}).outputs[s.output_names[0]][0, 0] == 101
        value = s.get_state("acc")
        assert value[0, 0] == 101 and not value.flags.writeable
        s.set_state({"acc": np.zeros((2, 3), np.float32)})
        assert s.run({"x": np.ones((2, 3), np.float32)}).outputs[s.output_names[0]][0, 0] == 1
        s.reset_state("acc")
        assert s.get_state("acc") is None
        for bad in (np.zeros((3, 3), np.float32), np.zeros((2, 3), np.float64)):
            with pytest.raises(InputError) as e:
                s.set_state("acc", bad)
            assert e.value.code == "state-mismatch" and "'acc'" in str(e.value)
        with pytest.raises(UsageError) as e:
            s.get_state("nope")
        assert e.value.code == "unknown-variable"


def test_no_init_variable_reads_zeros_with_dynamic_dims_zero(tmp_path):
    with Session(save(accumulator("v6-grow"), tmp_path)) as s:
        assert s.get_state("grow").shape == (0, 3)
    with Session(save(accumulator("v6-zeros"), tmp_path)) as s:
        assert s.state["acc"].tolist() == [[0.0] * 3] * 2


def test_a_state_that_does_not_fit_is_refused_by_a_run(tmp_path):
    model = read_model(save(accumulator("v6-zeros"), tmp_path))
    with pytest.raises(InputError) as e:
        run_model(model, {"x": np.ones((2, 3), np.float32)}, state={"acc": np.ones((2, 4), np.float32)})
    assert e.value.code == "state-mismatch" and "'acc'" in str(e.value)
    d = e.value.diagnostics[0]
    assert d.line is not None and d.layer_name.startswith("ReadValue")


def test_repeated_runs_each_start_from_the_same_state(tmp_path):
    with Session(save(accumulator("v6-zeros"), tmp_path)) as s:
        s.run({"x": np.ones((2, 3), np.float32)}, repeat=3, warmup=1)
        assert s.get_state("acc")[0, 0] == 1


def test_stop_at_executes_no_assign(tmp_path):
    with Session(save(accumulator("v6-zeros"), tmp_path)) as s:
        s.run({"x": np.ones((2, 3), np.float32)}, stop_at=s.model.parameters[0].name)
        assert s.get_state("acc")[0, 0] == 0


# ---------------------------------------------------------------- the CLI


def _lm_steps(batch: int = 1) -> list[dict[str, np.ndarray]]:
    ids = np.array([[3, 7, 11, 2, 9], [1, 2, 3, 4, 5]][:batch], np.int64)
    step0 = {"input_ids": ids, "attention_mask": np.ones_like(ids), "position_ids": np.tile(np.arange(5), (batch, 1)),
             "beam_idx": np.arange(batch, dtype=np.int32)}
    step1 = {"input_ids": np.full((batch, 1), 4, np.int64), "attention_mask": np.ones((batch, 6), np.int64),
             "position_ids": np.full((batch, 1), 5, np.int64), "beam_idx": np.arange(batch, dtype=np.int32)[::-1].copy()}
    return [step0, step1]


def test_two_invocations_reproduce_a_prefill_and_a_decode_step(tmp_path, save_npz, run_cli):
    path = save(tiny_lm(), tmp_path)
    steps = _lm_steps(batch=2)
    request = _ov_request(path)
    expected = [request.infer(step)["logits"].copy() for step in steps]
    ref0, ref1 = save_npz("ref0", logits=expected[0]), save_npz("ref1", logits=expected[1])
    s1, s2 = tmp_path / "s1.npz", tmp_path / "s2.npz"
    r = run_cli("run", path, "--inputs", save_npz("in0", **steps[0]), "--state-out", s1, "--compare", ref0,
                "--atol", "1e-5", "--rtol", "1e-5")
    assert r.exit_code == 0, r.output
    assert "wrote 2 variable(s)" in r.output
    assert set(np.load(s1).files) == {"past.key", "past.value"}
    r = run_cli("run", path, "--inputs", save_npz("in1", **steps[1]), "--state-in", s1, "--state-out", s2,
                "--compare", ref1, "--atol", "1e-5", "--rtol", "1e-5", "--profile", "--dump", tmp_path / "dump")
    assert r.exit_code == 0, r.output
    assert "PASSED" in r.output and "ReadValue-6" in r.output and "Assign-6" in r.output  # the profile lists them
    dumped = " ".join(p.name for p in (tmp_path / "dump").iterdir())
    assert "ReadValue" in dumped and "Assign" in dumped
    ov_state = {st.name: st.state.data for st in request.query_state()}
    with np.load(s2) as got:
        for key, value in ov_state.items():
            np.testing.assert_allclose(got[key], value, rtol=1e-5, atol=1e-5)
            assert got[key].shape == (2, 6, 16)
    # without --state-in the decode step starts from the initial (empty) cache, which its mask of 6 does not fit
    r = run_cli("run", path, "--inputs", save_npz("in1", **steps[1]), "--compare", ref1, "--atol", "1e-5")
    assert r.exit_code == 1 and "error[incompatible-inputs]" in r.output


def test_session_api_reproduces_the_two_steps(tmp_path):
    path = save(tiny_lm(), tmp_path)
    steps = _lm_steps()
    request = _ov_request(path)
    with Session(path) as s:
        for step in steps:
            np.testing.assert_allclose(s.run(step)["logits"], request.infer(step)["logits"], rtol=1e-5, atol=1e-5)
        s.save_state(tmp_path / "s.npz")
    with Session(path) as s:
        s.load_state(tmp_path / "s.npz")
        assert s.state.keys() == {"past.key", "past.value"} and s.get_state("past.key").shape == (1, 6, 16)


@pytest.mark.parametrize("change, needle", [
    ("missing", "has no array for variable 'past.value'"),
    ("extra", "holds 'other', which is not a variable"),
    ("shape", "variable 'past.key'"),
    ("dtype", "element type f64 is not the variable's f32"),
])
def test_a_state_file_that_does_not_fit_is_refused(change, needle, tmp_path, save_npz, run_cli):
    path = save(tiny_lm(), tmp_path)
    good = {"past.key": np.zeros((1, 5, 16), np.float32), "past.value": np.zeros((1, 5, 16), np.float32)}
    state = dict(good)
    if change == "missing":
        del state["past.value"]
    elif change == "extra":
        state["other"] = np.zeros(1, np.float32)
    elif change == "shape":
        state["past.key"] = np.zeros((1, 5, 8), np.float32)
    else:
        state["past.key"] = np.zeros((1, 5, 16), np.float64)
    out = tmp_path / "out.npz"
    r = run_cli("run", path, "--inputs", save_npz("in", **_lm_steps()[1]), "--state-in", save_npz("s", **state),
                "--state-out", out)
    assert r.exit_code == 1, r.output
    assert "error[state-mismatch]" in r.output and needle in r.output
    assert not out.exists()


def test_state_options_need_a_stateful_model_and_a_whole_run(tmp_path, write_ir, builder, save_npz, run_cli):
    x = builder.parameter("x", "2", "f32")
    builder.result(builder.layer("Relu", "opset1", [x]))
    plain = write_ir(builder)
    r = run_cli("run", plain, "--state-out", tmp_path / "s.npz")
    assert r.exit_code == 2 and "error[not-stateful]" in r.output
    path = save(tiny_lm(), tmp_path)
    r = run_cli("run", path, "--inputs", save_npz("in", **_lm_steps()[0]), "--stop-at", "input_ids", "--state-out",
                tmp_path / "s.npz")
    assert r.exit_code == 2 and "--state-out needs a whole run" in r.output


# ---------------------------------------------------------------- check


def test_assign_is_a_sink_not_an_unreachable_layer(tmp_path):
    for model in (tiny_lm(), *(accumulator(k) for k in KINDS)):
        result = check_model(read_model(save(model, tmp_path, model.get_friendly_name())))
        assert [d.format() for d in result.diagnostics] == []


def _edit(path: str, edit) -> str:  # type: ignore[no-untyped-def]
    text = Path(path).read_text()
    new = edit(text)
    assert new != text
    Path(path).write_text(new)
    return path


def _line_of(path: str, needle: str) -> int:
    return next(i for i, line in enumerate(Path(path).read_text().splitlines(), 1) if needle in line)


def _codes(path: str) -> list[tuple[str, int | None]]:
    return [(d.code, d.line) for d in check_model(read_model(path)).diagnostics]


def test_pairing_breaks_are_reported_at_their_layers(tmp_path):
    # an Assign of another variable: the ReadValue has no Assign, the Assign no ReadValue
    path = _edit(save(accumulator("v6-zeros"), tmp_path, "a"),
                 lambda t: re.sub(r'(type="Assign"[^>]*>\s*<data variable_id=")acc', r"\1other", t))
    rv, asg = _line_of(path, 'type="ReadValue"'), _line_of(path, 'type="Assign"')
    assert _codes(path) == [("variable-without-assign", rv), ("variable-without-read-value", asg)]
    with pytest.raises(ModelError) as e:
        Session(path)
    assert {d.code for d in e.value.diagnostics} == {"variable-without-read-value"}


def test_a_variable_never_assigned_is_a_warning_openvino_compiles(tmp_path, run_cli):
    """OpenVINO reads and compiles a ReadValue without an Assign (its CPU plugin refuses only
    to infer it): irexec warns (an error under --strict), and a run reads the initial value."""
    import openvino.opset8 as o8

    x = o8.parameter([2, 3], np.float32, name="x")
    read = o8.read_value(variable("acc", [2, 3]))
    path = save(ov.Model([o8.result(o8.add(read, x))], [x], "never-assigned"), tmp_path, "a")
    model = ov.Core().read_model(path)
    assert len(model.get_sinks()) == 0 and len(model.get_variables()) == 1
    ov.Core().compile_model(model, "CPU")
    found = check_model(read_model(path)).diagnostics
    assert [(d.code, d.severity) for d in found] == [("variable-without-assign", "warning")]
    assert run_cli("check", path).exit_code == 0
    strict = run_cli("check", "--strict", path)
    assert strict.exit_code == 1 and "warning[variable-without-assign]" in strict.output
    session = Session(path)
    x = _x("v6-zeros", 0)
    first, second = session.run({"x": x}), session.run({"x": x})
    for name in first.outputs:
        np.testing.assert_array_equal(first.outputs[name], second.outputs[name])  # the state never changes


def test_a_variable_read_or_written_twice(tmp_path):
    path = save(tiny_lm(), tmp_path, "twice")
    # both caches made one variable: two ReadValues and two Assigns of it
    _edit(path, lambda t: t.replace('variable_id="past.value"', 'variable_id="past.key"'))
    text = Path(path).read_text()
    second_rv = [i for i, line in enumerate(text.splitlines(), 1) if 'type="ReadValue"' in line][1]
    second_asg = [i for i, line in enumerate(text.splitlines(), 1) if 'type="Assign"' in line][1]
    codes = _codes(path)
    assert ("variable-read-twice", second_rv) in codes and ("variable-assigned-twice", second_asg) in codes


def test_assigned_value_must_fit_the_variable(tmp_path):
    # declare the variable [2,4]: the Assign's [2,3] no longer fits, nor the initialising input
    path = _edit(save(accumulator("v6-init"), tmp_path, "fit"),
                 lambda t: t.replace('variable_shape="2,3"', 'variable_shape="2,4"'))
    diags = check_model(read_model(path)).diagnostics
    assert [(d.code, d.layer_name[:9], d.port_kind) for d in diags if d.severity == "error"] == [
        ("variable-mismatch", "ReadValue", "input")]
    assert diags[0].line > _line_of(path, 'type="ReadValue"') and "does not fit the variable's [2,4]" in diags[0].message
    # three variables a f32[2,3], b f32[4,3], t i64[2,3]; then the Assigns' variable_ids rotated
    x = ov.opset8.parameter([2, 3], np.float32, name="x")
    a, b, t = variable("a", [2, 3]), variable("b", [4, 3]), variable("t", [2, 3], ov.Type.i64)
    ra = ov.opset8.add(ov.opset8.read_value(a), x)
    rb = ov.opset8.concat([ov.opset8.read_value(b), ra], 0)
    rt = ov.opset8.read_value(t)
    sinks = [ov.opset8.assign(ra, a), ov.opset8.assign(ov.opset8.slice(rb, [0], [4], [1]), b),
             ov.opset8.assign(ov.opset8.add(rt, ov.opset8.convert(ra, "i64")), t)]
    path = save(ov.Model([ov.opset8.result(rb)], sinks, [x], "three"), tmp_path, "three")
    ids = iter(["b", "t", "a"])
    _edit(path, lambda text: re.sub(r'(type="Assign"[^>]*>\s*<data variable_id=")\w+', lambda m: m.group(1) + next(ids), text))
    diags = check_model(read_model(path)).diagnostics
    assert {(d.code, d.layer_name[:6], d.port, d.port_kind) for d in diags} == {("variable-mismatch", "Assign", 0, "input")}
    messages = sorted(d.message for d in diags)
    assert len(messages) == 3
    assert "variable 'a' does not fit: its element type i64 is not the variable's f32" in messages[0]
    assert "variable 'b' does not fit: its shape [2,3] does not fit the variable's [4,3]" in messages[1]
    assert "variable 't' does not fit: its element type f32 is not the variable's i64" in messages[2]
    for d in diags:
        assert d.line == _line_of(path, f'name="{d.layer_name}"') + 3  # the Assign's input port
    with pytest.raises(IRExecError) as e:
        Session(path).run({"x": np.ones((2, 3), np.float32)})
    assert e.value.code == "variable-mismatch"


# ---------------------------------------------------------------- generate


@pytest.mark.parametrize("batch", [1, 2])
def test_generate_matches_a_greedy_loop_through_openvino(batch, tmp_path, save_npz, run_cli):
    path = save(tiny_lm(), tmp_path)
    ids = _lm_steps(batch)[0]["input_ids"]
    expected = ov_greedy(path, ids, 8)
    out = tmp_path / "tokens.npy"
    r = run_cli("generate", path, "--inputs", save_npz("prompt", input_ids=ids), "--max-new-tokens", 8,
                "--output", out, "--profile")
    assert r.exit_code == 0, r.output
    np.testing.assert_array_equal(np.load(out), expected)
    assert np.load(out).dtype == np.int64
    assert " ".join(map(str, expected[0, 5:])) in r.output
    assert "prefill" in r.output and "decode 7" in r.output
    r = run_cli("generate", path, "-i", save_npz("prompt", input_ids=ids), "-n", 8, "--compare", out)
    assert r.exit_code == 0 and "PASSED" in r.output


def test_generate_with_the_prompt_inputs_given(tmp_path, save_npz):
    """Inputs the prompt holds are used as given: the same as the ones generate builds."""
    from irexec.api.generate import generate

    path = save(tiny_lm(), tmp_path)
    with Session(path) as s:
        step0 = _lm_steps(2)[0]
        built = generate(s, {"input_ids": step0["input_ids"]}, 5).tokens
        given = generate(s, step0, 5).tokens
    np.testing.assert_array_equal(built, given)
    np.testing.assert_array_equal(built, ov_greedy(path, step0["input_ids"], 5))


def test_generate_stops_at_eos_and_compare_names_the_first_difference(tmp_path, save_npz, run_cli):
    path = save(tiny_lm(), tmp_path)
    ids = _lm_steps(1)[0]["input_ids"]
    full = ov_greedy(path, ids, 6)
    eos = int(full[0, 7])  # the third new token
    out = tmp_path / "t.npy"
    r = run_cli("generate", path, "-i", save_npz("p", input_ids=ids), "-n", 6, "--eos-token-id", eos, "-o", out)
    assert r.exit_code == 0 and "stopped" in r.output
    np.testing.assert_array_equal(np.load(out), full[:, :8])
    wrong = full.copy()
    wrong[0, 6] += 1
    np.save(tmp_path / "wrong.npy", wrong)
    r = run_cli("generate", path, "-i", save_npz("p", input_ids=ids), "-n", 6, "--compare", tmp_path / "wrong.npy")
    assert r.exit_code == 1
    assert "error[tokens-mismatch]" in r.output and "row 0, position 6" in r.output


def test_generate_refuses_a_model_that_is_not_a_stateful_causal_lm(tmp_path, save_npz, run_cli):
    r = run_cli("generate", save(accumulator("v6-zeros"), tmp_path), "-i", save_npz("p", input_ids=np.ones((1, 2), np.int64)),
                "-n", 2)
    assert r.exit_code == 1 and "error[not-causal-lm]" in r.output
    assert "no input_ids input" in r.output and "'x'" in r.output
    x = ov.opset8.parameter([-1, -1], np.int64, name="input_ids")
    stateless = ov.Model([ov.opset8.result(ov.opset8.convert(x, "f32"))], [x], "stateless")
    r = run_cli("generate", save(stateless, tmp_path, "stateless"), "-i", save_npz("p", input_ids=np.ones((1, 2), np.int64)),
                "-n", 2)
    assert r.exit_code == 1 and "no ReadValue/Assign variables" in r.output


def test_state_in_and_out_may_be_one_file(tmp_path, save_npz, run_cli):
    path = save(accumulator("v6-grow"), tmp_path)
    x = save_npz("x", x=np.ones((1, 3), np.float32))
    state = tmp_path / "S.npz"
    assert run_cli("run", path, "--inputs", x, "--state-out", state).exit_code == 0
    for rows in (2, 3):
        r = run_cli("run", path, "--inputs", x, "--state-in", state, "--state-out", state)
        assert r.exit_code == 0, r.output
        assert np.load(state)["grow"].shape == (rows, 3)


def test_generate_refuses_a_prompt_without_input_ids(tmp_path, save_npz, run_cli):
    path = save(tiny_lm(), tmp_path)
    r = run_cli("generate", path, "-i", save_npz("p", attention_mask=np.ones((1, 2), np.int64)), "-n", 2)
    assert r.exit_code == 1 and "error[input-mismatch]" in r.output and "input_ids" in r.output
    r = run_cli("generate", path, "-i", save_npz("p", input_ids=np.ones((1, 2), np.int64), extra=np.ones(1)), "-n", 2)
    assert r.exit_code == 1 and "'extra'" in r.output


def test_a_bad_variable_type_is_reported_at_its_readvalue(tmp_path):
    path = _edit(save(accumulator("v6-zeros"), tmp_path, "bad"),
                 lambda t: t.replace('variable_type="f32"', 'variable_type="f99"'))
    codes = _codes(path)
    assert ("bad-element-type", _line_of(path, 'variable_type="f99"')) in codes
