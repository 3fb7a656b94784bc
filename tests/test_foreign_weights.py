"""Another model's larger .bin: every Const is in bounds but reads garbage.
`check` and `run` give one error that suspects the .bin and names --weights."""

from __future__ import annotations

import json

import numpy as np

from irexec.model.builder import IRBuilder


def _model(write_ir) -> str:
    b = IRBuilder()
    x = b.parameter("x", "2,3", "f32")
    r = b.layer("Reshape", "opset1", [x, b.const(np.array([3, 2], np.int64))], {"special_zero": "false"})
    g = b.layer("Gather", "opset8", [r, b.const(np.array([0], np.int64)), b.const(np.array(1, np.int64))],
                {"batch_dims": "0"}, names=["y"])
    b.result(g)
    return write_ir(b)


def _foreign_bin(tmp_path) -> str:
    rng = np.random.default_rng(3)
    path = tmp_path / "other.bin"
    path.write_bytes(rng.integers(-(2**62), 2**62, size=512, dtype=np.int64).tobytes())
    return str(path)


def test_check_and_run_give_one_error_naming_weights(write_ir, run_cli, tmp_path, save_npz):
    path, other = _model(write_ir), _foreign_bin(tmp_path)
    assert run_cli("check", path).exit_code == 0
    r = run_cli("check", path, "--weights", other)
    assert r.exit_code == 1
    errors = [line for line in r.stdout.splitlines() if "error[" in line]
    assert len(errors) == 1 and "error[weights-mismatch]" in errors[0], r.stdout
    assert "--weights" in errors[0] and "4096 bytes but the model's Consts end at byte" in errors[0]
    doc = json.loads(run_cli("check", path, "--weights", other, "-f", "json").stdout)
    (finding,) = doc["files"][0]["diagnostics"]
    assert finding["code"] == "weights-mismatch" and doc["summary"]["errors"] == 1
    run = run_cli("run", path, "--weights", other, "--inputs", save_npz(x=np.ones((2, 3), np.float32)))
    assert run.exit_code == 1 and "error[weights-mismatch]" in run.output and "--weights" in run.output
    assert run.output.count("error[") == 1, run.output
