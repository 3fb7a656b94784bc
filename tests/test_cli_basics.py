"""The CLI end to end: run, inspect, ops, input validation and exit codes."""

from __future__ import annotations

import os

import ml_dtypes
import numpy as np
import pytest
from lxml import etree

import irexec
from irexec.cli import main
from irexec.model.builder import IRBuilder


def _identity_model(write_ir, shape="2,3", etype="f32", name="x") -> str:
    b = IRBuilder()
    x = b.parameter(name, shape, etype)
    b.result(x, name="out")
    return write_ir(b)


def _weights_model(write_ir) -> tuple[str, np.ndarray]:
    """f16 Const -> Convert(f32) -> Result, the way compressed weights are stored."""
    b = IRBuilder()
    w = np.arange(12, dtype=np.float16).reshape(3, 4) / 8
    c = b.const(w, name="w_compressed")
    y = b.layer("Convert", "opset1", [c], {"destination_type": "f32"}, name="w", names=["weights"])
    b.result(y, name="out")
    return write_ir(b), w.astype(np.float32)


def test_run_prints_table_and_writes_npz(write_ir, save_npz, run_cli, tmp_path):
    model = _identity_model(write_ir)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = tmp_path / "out.npz"
    r = run_cli("run", model, "--inputs", save_npz(x=x), "--output", out)
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[0].split() == ["output", "dtype", "shape", "min", "max", "nan", "inf"]
    assert lines[2].split() == ["x", "float32", "[2,3]", "0", "5", "0", "0"]
    with np.load(out) as data:
        np.testing.assert_array_equal(data["x"], x)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".irexec-")] == []


def test_run_weights_through_convert(write_ir, run_cli, tmp_path):
    model, expected = _weights_model(write_ir)
    out = tmp_path / "o.npz"
    r = run_cli("run", model, "-o", out)
    assert r.exit_code == 0, r.output
    with np.load(out) as data:
        assert data["weights"].dtype == np.float32
        np.testing.assert_array_equal(data["weights"], expected)


def test_run_warns_where_a_computed_shape_contradicts_the_declared_dims(write_ir, save_npz, run_cli):
    """OpenVINO ignores declared dims and so does the run, but it says so (check makes it an error)."""
    b = IRBuilder()
    x = b.parameter("x", "4,3", "f32")
    shift, axes = b.const(np.array([1], np.int64)), b.const(np.array([0], np.int64))
    y = b.layer("Roll", "opset7", [x, shift, axes], outputs=[([4, 5], "f32")], name="roll")
    z = b.layer("Roll", "opset7", [y, shift, axes], outputs=[([-1, 3], "f32")], name="roll_ok")
    b.result(z, name="out")
    model = write_ir(b)
    feeds = {"x": np.arange(12, dtype=np.float32).reshape(4, 3)}
    r = run_cli("run", model, "--inputs", save_npz(**feeds))
    assert r.exit_code == 0, r.output
    [warning] = [line for line in r.output.splitlines() if "warning[" in line]
    port_line = etree.parse(model).find("layers/layer[@name='roll']/output/port").sourceline
    assert warning.startswith(f"{model}:{port_line}: warning[shape-mismatch] layer 3 \"roll\" (Roll-7) output port")
    assert "declared [4,5] but computed [4,3]" in warning

    with irexec.Session(model) as s:
        # the third run replays the second's inferences (the second runs without the folded
        # layers), and its shapes' findings with them
        runs = [s.run(feeds) for _ in range(3)]
    for r in runs:
        assert [(d.code, d.severity, d.layer_name) for d in r.warnings] == [("shape-mismatch", "warning", "roll")]
        np.testing.assert_array_equal(r["out"], np.roll(feeds["x"], 2, 0))


def test_inputs_accepted_by_port_name(write_ir, save_npz, run_cli):
    b = IRBuilder()
    x = b.parameter("x", [2], "i32", names=["alias", "x"])
    b.result(x)
    r = run_cli("run", write_ir(b), "--inputs", save_npz(alias=np.array([1, 2], np.int32)))
    assert r.exit_code == 0, r.output


@pytest.mark.parametrize(
    "feeds,message",
    [
        ({}, "no input given for Parameter 'x' (f32[2,3])"),
        ({"x": np.zeros((2, 3), np.float32), "y": np.zeros(1)}, "input 'y' matches no Parameter (Parameters: 'x')"),
        ({"x": np.zeros((2, 3), np.float64)}, "input 'x' has dtype float64 but the Parameter is f32"),
        ({"x": np.zeros((3, 2), np.float32)}, "input 'x' has shape [3,2] but the Parameter accepts [2,3]"),
    ],
)
def test_input_mismatch(write_ir, save_npz, run_cli, tmp_path, feeds, message):
    model = _identity_model(write_ir)
    out = tmp_path / "o.npz"
    r = run_cli("run", model, "--inputs", save_npz(**feeds), "-o", out)
    assert r.exit_code == 1
    assert "error[input-mismatch]" in r.output and message in r.output, r.output
    assert "Traceback" not in r.output
    assert not out.exists()


def test_scalar_and_one_element_are_different(write_ir, save_npz, run_cli):
    scalar = _identity_model(write_ir, shape="", name="s")
    r = run_cli("run", scalar, "--inputs", save_npz(s=np.array([1.0], np.float32)))
    assert r.exit_code == 1 and "has shape [1] but the Parameter accepts []" in r.output
    r = run_cli("run", scalar, "--inputs", save_npz(s=np.array(1.0, np.float32)))
    assert r.exit_code == 0, r.output


def test_interval_and_dynamic_parameter_shapes(write_ir, save_npz, run_cli):
    model = _identity_model(write_ir, shape="1..3,?,..4")
    ok = run_cli("run", model, "--inputs", save_npz(x=np.zeros((3, 9, 0), np.float32)))
    assert ok.exit_code == 0, ok.output
    bad = run_cli("run", model, "--inputs", save_npz(x=np.zeros((4, 1, 1), np.float32)))
    assert bad.exit_code == 1 and "accepts [1..3,?,..4]" in bad.output


def test_bf16_inputs_in_every_spelling(write_ir, save_npz, run_cli, tmp_path):
    model = _identity_model(write_ir, shape="3", etype="bf16")
    x = np.array([1.5, -2.0, np.inf], dtype=ml_dtypes.bfloat16)
    for feed in (x, x.view(np.uint16)):
        out = tmp_path / "o.npz"
        r = run_cli("run", model, "--inputs", save_npz(x=feed), "-o", out)
        assert r.exit_code == 0, r.output
        with np.load(out) as data:  # np.savez stores bf16 as 2-byte void
            np.testing.assert_array_equal(data["x"].view(np.uint16), x.view(np.uint16))


def test_bad_input_file(write_ir, run_cli, tmp_path):
    model = _identity_model(write_ir)
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip at all")
    r = run_cli("run", model, "--inputs", junk)
    assert r.exit_code == 1 and "error[bad-input-file]" in r.output and "Traceback" not in r.output


def test_bad_model_exit_code_and_no_traceback(write_ir, run_cli):
    path = write_ir('<?xml version="1.0"?>\n<net version="11"><layers><layer id="0"></layers></net>\n')
    for cmd in ("run", "inspect", "check"):
        r = run_cli(cmd, path)
        assert r.exit_code == 1, (cmd, r.output)
        assert "error[" in r.output and "Traceback" not in r.output


def test_inspect_summary(write_ir, run_cli):
    model, _ = _weights_model(write_ir)
    r = run_cli("inspect", model)
    assert r.exit_code == 0, r.output
    assert "IR v11, 3 layers, 2 edges" in r.output
    assert "Convert-1" in r.output and "Const-1" in r.output
    assert any(line.split()[:4] == ["output", "weights", "weights", "f32"] for line in r.output.splitlines())  # its tensor name


def test_ops_lists_registry(run_cli):
    r = run_cli("ops")
    assert r.exit_code == 0
    names = {line.split()[0] for line in r.output.splitlines()[2:]}
    assert {"Parameter-1", "Const-1", "Result-1", "Convert-1"} <= names


@pytest.mark.parametrize("cmd", ["run", "check", "inspect", "ops"])
def test_every_command_help_shows_an_example(run_cli, cmd):
    r = run_cli(cmd, "--help")
    assert r.exit_code == 0 and "Example" in r.output and f"irexec {cmd}" in r.output


def test_usage_error_exit_code(run_cli):
    assert run_cli("run").exit_code == 2
    assert run_cli("frobnicate").exit_code == 2


def test_internal_error_exit_2_without_traceback(write_ir, monkeypatch, capsys):
    model = _identity_model(write_ir)
    import irexec.executor.engine

    def boom(*a, **k):
        raise KeyError("kaboom")

    monkeypatch.setattr(irexec.executor.engine, "bind_feeds", boom)
    monkeypatch.delenv("IREXEC_TRACEBACK", raising=False)
    with pytest.raises(SystemExit) as e:
        main(["run", model])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "internal error: KeyError" in err and "Traceback" not in err


def test_real_subprocess_run(write_ir, save_npz, run_cli, tmp_path):
    model = _identity_model(write_ir, etype="i64")
    x = np.array([[1, -2, 3], [2**62, 0, -(2**63)]], dtype=np.int64)
    out = tmp_path / "o.npz"
    p = run_cli.subprocess("run", model, "--inputs", save_npz(x=x), "--output", out)
    assert p.returncode == 0, p.stderr
    with np.load(out) as data:
        np.testing.assert_array_equal(data["x"], x)
    p = run_cli.subprocess("run", os.path.join(tmp_path, "missing.xml"))
    assert p.returncode == 1 and "error[file-not-found]" in p.stderr and "Traceback" not in p.stderr
