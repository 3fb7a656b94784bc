"""Options shared by the commands: one declaration per group, every command that runs a
model takes --max-memory, and an option given outside the mode it applies to is a usage
error (exit 2) that says what it needs and what the command is doing instead."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from irexec.model.builder import IRBuilder

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "roll-example-1"


def _relu(write_ir, shape: str = "2,3", name: str = "model") -> str:
    b = IRBuilder()
    x = b.parameter("x", shape, "f32")
    b.result(b.layer("Relu", "opset1", [x], names=["y"]), name="out")
    return write_ir(b, name=name)


def _fails(r, code: str, *words: str) -> None:
    assert r.exit_code == 2, r.output
    assert f"error[{code}]" in r.output and "Traceback" not in r.output, r.output
    for w in words:
        assert w in r.output, r.output


def test_diff_of_two_irs_refuses_the_device_options(write_ir, run_cli):
    a, b = _relu(write_ir, name="a"), _relu(write_ir, name="b")
    r = run_cli("diff", a, b, "--config", "FOO=1", "--layers", "all")
    _fails(r, "diff-usage", "--config needs --device", "--layers needs --device", f"this compares {a} with {b}")
    _fails(run_cli("diff", a, b, "--expose", "4"), "diff-usage", "--expose needs --device")
    _fails(run_cli("diff", a, b, "-j", "2"), "diff-usage", "--jobs needs --inputs-dir DIR")


def test_diff_inputs_and_generated_input_options_exclude_each_other(write_ir, run_cli, save_npz, tmp_path):
    a, b = _relu(write_ir, name="a"), _relu(write_ir, name="b")
    feeds = save_npz(x=np.ones((2, 3), np.float32))
    r = run_cli("diff", a, b, "--inputs", feeds, "--seed", "3", "--input-shape", "x:2,3")
    _fails(r, "diff-usage", "--seed needs generated inputs", "--input-shape needs generated inputs")
    (tmp_path / "samples").mkdir()
    r = run_cli("diff", a, b, "--inputs-dir", tmp_path / "samples", "--html", tmp_path / "r.html", "--steps", "2",
                "--fail-on", "origin")  # --steps applies over a data set too (each sample's prefill)
    _fails(r, "diff-usage", "--fail-on needs", "over the samples in")
    assert "--steps needs" not in r.output
    assert not (tmp_path / "r.html").exists()
    r = run_cli("diff", a, "--device", "CPU", "--ablate", "3")
    _fails(r, "diff-usage", "--ablate needs a second IR", "with the CPU plugin")


def test_diff_takes_max_memory(write_ir, run_cli, save_npz):
    a, b = _relu(write_ir, "1000,1000", name="a"), _relu(write_ir, "1000,1000", name="b")
    r = run_cli("diff", a, b, "--max-memory", "1MiB")
    assert r.exit_code == 1 and "error[memory-limit]" in r.output and "Traceback" not in r.output, r.output
    assert run_cli("diff", a, b, "--max-memory", "lots").exit_code == 2
    ok = run_cli("diff", a, b, "--max-memory", "1GiB")
    assert ok.exit_code == 0, ok.output


def test_a_project_file_max_memory_reaches_diff_and_generate(write_ir, run_cli, tmp_path, monkeypatch):
    a, b = _relu(write_ir, "1000,1000", name="a"), _relu(write_ir, "1000,1000", name="b")
    (tmp_path / "pyproject.toml").write_text('[tool.irexec]\nmax-memory = "1MiB"\n')
    monkeypatch.chdir(tmp_path)
    r = run_cli("diff", a, b)
    assert r.exit_code == 1 and "error[memory-limit]" in r.output, r.output
    big = IRBuilder()
    x = big.parameter("input_ids", "1,1000", "i64")
    big.result(big.layer("Add", "opset1", [big.const(np.zeros((1000, 1000), np.float32), name="w"),
                                           big.layer("Convert", "opset1", [x], {"destination_type": "f32"})]))
    prompt = tmp_path / "prompt.npz"
    np.savez(prompt, input_ids=np.zeros((1, 2), np.int64))
    r = run_cli("generate", write_ir(big, name="big"), "--inputs", prompt, "-n", "1")
    assert r.exit_code == 1 and "error[memory-limit]" in r.output, r.output


def test_run_refuses_options_that_do_not_apply(write_ir, run_cli, save_npz, tmp_path):
    model = _relu(write_ir)
    feeds = save_npz(x=np.ones((2, 3), np.float32))
    r = run_cli("run", model, "--inputs", feeds, "--seed", "2", "--val-range", "0,1")
    _fails(r, "option-not-applicable", "--seed needs generated inputs", "--val-range needs generated inputs",
           f"the inputs come from {feeds}")
    _fails(run_cli("run", model, "--rtol", "1e-3"), "option-not-applicable", "--rtol needs --compare REF.npz")
    _fails(run_cli("run", model, "--top", "3"), "option-not-applicable", "--top needs --profile")
    r = run_cli("run", model, "--stop-at", "x", "--state-out", tmp_path / "s.npz")
    _fails(r, "option-not-applicable", "--state-out needs a whole run", "this run stops at x")
    # the defaults are no choice: the same options unset, or set to what they default to in a project file
    assert run_cli("run", model, "--inputs", feeds).exit_code == 0


def test_generate_names_the_mode_and_what_it_needs(write_ir, run_cli, tmp_path):
    model = _relu(write_ir)
    r = run_cli("generate", model, "-n", "2")
    _fails(r, "bad-prompt", f"{model} is a model file", "it needs --inputs")
    assert "--prompt" not in r.output  # not given, so not blamed
    r = run_cli("generate", model, "--inputs", tmp_path / "p.npz", "--language", "en", "-n", "2")
    _fails(r, "bad-prompt", "--language needs a Whisper export folder", f"{model} is a model file")
    folder = tmp_path / "folder"
    folder.mkdir()
    r = run_cli("generate", folder, "--weights", tmp_path / "w.bin", "--prompt", "hi", "-n", "2")
    _fails(r, "bad-prompt", "--weights needs a model file", f"{folder} is an export folder")


def test_every_command_that_runs_a_model_takes_max_memory(run_cli):
    for command in ("run", "generate", "diff"):
        r = run_cli(command, "--help")
        assert "--max-memory SIZE" in r.output, command


def test_shared_options_are_declared_once():
    """Each shared option is spelt in cli/option_groups.py and in no command module."""
    cli = Path(__file__).resolve().parents[1] / "irexec" / "cli"
    shared = ('"--max-memory"', '"--seed"', '"--input-shape"', '"--val-range"', '"--weights"', '"--follow-symlinks"',
              '"--inputs"', '"--report"', '"--json"', '"--html"')
    for module in cli.glob("*_cmd.py"):
        text = module.read_text()
        assert not [s for s in shared if f"option({s}" in text], module.name


def test_run_examples_still_pass(run_cli):
    r = run_cli("run", EXAMPLE / "model.xml", "--inputs", EXAMPLE / "inputs.npz", "--compare", EXAMPLE / "expected.npz",
                "--atol", "0")
    assert r.exit_code == 0 and "PASSED" in r.output, r.output


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_check_of_an_empty_folder_gives_one_message_and_the_summary(run_cli, tmp_path, fmt):
    (tmp_path / "empty").mkdir()
    r = run_cli.subprocess("check", tmp_path / "empty", "--format", fmt)
    assert r.returncode == 1
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and "0 files checked" in lines[0] and "--allow-empty" in lines[0], r.stderr
    if fmt == "text":
        assert r.stdout.splitlines()[-1] == "0 files, 0 errors, 0 warnings"
    else:
        assert json.loads(r.stdout)["files"] == []
    ok = run_cli.subprocess("check", tmp_path / "empty", "--allow-empty")
    assert ok.returncode == 0 and len(ok.stderr.splitlines()) == 1 and "--allow-empty" not in ok.stderr
    assert ok.stdout.splitlines()[-1] == "0 files, 0 errors, 0 warnings"


def test_inspect_and_ops_refuse_options_for_another_output(write_ir, run_cli):
    model = _relu(write_ir)
    _fails(run_cli("inspect", model, "--all-nodes"), "option-not-applicable", "--all-nodes needs a drawing")
    _fails(run_cli("ops", "--format", "json", "--wide"), "option-not-applicable", "--wide needs --format text")
    assert run_cli("ops", "Roll", "--wide").exit_code == 0
