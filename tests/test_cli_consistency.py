"""The same mistake gets the same answer in every command, and the habits of
ruff, Polygraphy and benchmark_app carry over: report formats (SARIF, GitLab),
readable outputs, discoverable inputs, ranges for random inputs, timing."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
from pathlib import Path

import jsonschema
import numpy as np
import pytest

import irexec.cli.paths
from irexec.api.inputs import plan_inputs
from irexec.api.load import read_model
from irexec.model.builder import IRBuilder

REPO = Path(__file__).resolve().parent.parent


def _model(write_ir, name: str = "model") -> str:
    """input_ids (layer Parameter_1, i64[2,?]) -> Convert(i32) -> Gather indices into a [50,4] table."""
    b = IRBuilder()
    table = b.const(np.arange(200, dtype=np.float32).reshape(50, 4), name="embeddings")
    ids = b.parameter("Parameter_1", "2,?", "i64", names=["input_ids"])
    ids32 = b.layer("Convert", "opset1", [ids], {"destination_type": "i32"}, name="to_i32")
    g = b.layer("Gather", "opset8", [table, ids32, b.const(np.array(0, np.int64))], {"batch_dims": 0}, name="gather",
                names=["hidden"])
    b.result(g, name="out")
    return write_ir(b, name=name)


# ------------------------------------------------------------------ one answer per mistake

def _commands(model: str, tmp: Path) -> dict[str, list[str]]:
    return {"run": ["run", model], "check": ["check", model], "inspect": ["inspect", model]}


MISTAKES = {
    # class: (exit status, code)
    "missing path": (1, "file-not-found"),
    "directory for a file": (1, "is-a-directory"),
    "unreadable file": (1, "cannot-read-file"),
    "unwritable output": (1, "cannot-write-output"),
    "misspelt name": (2, "unknown-name"),
    "out-of-range shape": (1, "input-shape-mismatch"),
}


def _cases(model: str, tmp: Path) -> list[tuple[str, list[str]]]:
    blocker = tmp / "a-file"
    blocker.write_text("")
    unreadable = tmp / "locked.xml"
    unreadable.write_text("<net/>")
    missing, folder, bad_out = tmp / "nope.xml", tmp, blocker / "out"
    return [
        ("missing path", ["run", missing]), ("missing path", ["check", missing]), ("missing path", ["inspect", missing]),
        ("missing path", ["run", model, "--inputs", tmp / "nope.npz"]),
        ("missing path", ["run", model, "--compare", tmp / "nope.npz"]),
        ("missing path", ["run", model, "--weights", tmp / "nope.bin"]),
        ("missing path", ["check", model, "--weights", tmp / "nope.bin"]),
        ("directory for a file", ["run", folder]), ("directory for a file", ["inspect", folder]),
        ("directory for a file", ["run", model, "--inputs", folder]),
        ("directory for a file", ["run", model, "--output", folder]),
        ("directory for a file", ["run", model, "--save-inputs", folder]),
        ("directory for a file", ["check", model, "-o", folder]),
        ("directory for a file", ["inspect", model, "--dot", folder]),
        ("unreadable file", ["run", unreadable]), ("unreadable file", ["check", unreadable]),
        ("unreadable file", ["inspect", unreadable]),
        ("unwritable output", ["run", model, "--output", bad_out / "o.npz"]),
        ("unwritable output", ["run", model, "--save-inputs", bad_out / "i.npz"]),
        ("unwritable output", ["run", model, "--dump", bad_out]),
        ("unwritable output", ["check", model, "-o", bad_out / "r.json"]),
        ("unwritable output", ["check", model, "--format", "sarif", "-o", bad_out / "r.sarif"]),
        ("unwritable output", ["inspect", model, "--dot", bad_out / "g.dot"]),
        ("misspelt name", ["run", model, "--input-shape", "input_idz:2,3"]),
        ("misspelt name", ["run", model, "--val-range", "input_idz:0,3"]),
        ("misspelt name", ["run", model, "--stop-at", "gathr"]),
        ("misspelt name", ["check", model, "--input-shape", "input_idz:2,3"]),
        ("misspelt name", ["run", model, "--compare", model.replace(".xml", ".ref.npz"), "--atol", "hiden:1"]),
        ("out-of-range shape", ["run", model, "--input-shape", "input_ids:3,4"]),
        ("out-of-range shape", ["check", model, "--input-shape", "input_ids:3,4"]),
    ]


def test_every_command_gives_one_exit_status_and_one_code_per_class_of_mistake(write_ir, run_cli, tmp_path, monkeypatch):
    model = _model(write_ir)
    np.savez(model.replace(".xml", ".ref.npz"), hidden=np.zeros((2, 1, 4), np.float32))
    locked = str(tmp_path / "locked.xml")

    def open_for_reading(path):  # as root no mode bit refuses a read: pretend it does
        if os.path.abspath(path) == locked:
            raise PermissionError(13, "Permission denied")
        return open(path, "rb")

    monkeypatch.setattr(irexec.cli.paths, "open_for_reading", open_for_reading)
    seen: dict[str, set[tuple[int, str]]] = {}
    for mistake, args in _cases(model, tmp_path):
        r = run_cli(*args)
        codes = re.findall(r"error\[([a-z0-9-]+)\]", r.output)
        assert "Traceback" not in r.output and "Error: " not in r.output, (args, r.output)
        assert codes, (args, r.output)
        seen.setdefault(mistake, set()).add((r.exit_code, codes[0]))
    assert seen == {k: {v} for k, v in MISTAKES.items()}


def test_outputs_create_missing_parent_folders(write_ir, run_cli, tmp_path):
    model = _model(write_ir)
    assert run_cli("run", model, "-o", tmp_path / "a/b/out.npz", "--save-inputs", tmp_path / "c/in.npz").exit_code == 0
    assert run_cli("check", model, "-o", tmp_path / "d/e/report.json", "-f", "json").exit_code == 0
    assert run_cli("inspect", model, "--dot", tmp_path / "f/g.dot").exit_code == 0
    assert run_cli("run", model, "--dump", tmp_path / "h/i").exit_code == 0
    for p in ("a/b/out.npz", "c/in.npz", "d/e/report.json", "f/g.dot", "h/i/index.json"):
        assert (tmp_path / p).is_file(), p


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_written_files_honour_the_umask(write_ir, run_cli, tmp_path, umask, mode):
    model = _model(write_ir)
    old = os.umask(umask)
    try:
        assert run_cli("run", model, "-o", tmp_path / "out.npz", "--save-inputs", tmp_path / "in.npz",
                       "--dump", tmp_path / "dump").exit_code == 0
        assert run_cli("check", model, "-o", tmp_path / "report.txt").exit_code == 0
        assert run_cli("inspect", model, "--dot", tmp_path / "g.dot").exit_code == 0
    finally:
        os.umask(old)
    files = ["out.npz", "in.npz", "report.txt", "g.dot", "dump/index.json", "dump/0000_embeddings.npz"]
    assert {f: oct(stat.S_IMODE((tmp_path / f).stat().st_mode)) for f in files} == {f: oct(mode) for f in files}


def test_a_weights_file_or_an_npz_given_as_the_model_says_so(write_ir, run_cli, tmp_path):
    model = _model(write_ir)
    weights = model.replace(".xml", ".bin")
    for cmd in ("run", "check", "inspect"):
        r = run_cli(cmd, weights)
        assert r.exit_code == 1 and "error[not-xml]" in r.output, r.output
        assert "this looks like a weights file (.bin); pass the model's .xml" in r.output and model in r.output
    npz = tmp_path / "in.npz"
    np.savez(npz, x=np.zeros(2))
    r = run_cli("run", npz)
    assert r.exit_code == 1 and "error[not-xml]" in r.output and "an .npz archive of tensors" in r.output


# ------------------------------------------------------------------ inputs are discoverable

def test_parameters_are_named_by_layer_and_tensor_name(write_ir, run_cli, tmp_path):
    model = _model(write_ir)
    r = run_cli("inspect", model)
    assert any(line.split()[:4] == ["input", "Parameter_1", "input_ids", "i64"] for line in r.output.splitlines()), r.output
    empty = tmp_path / "empty.npz"
    np.savez(empty, other=np.zeros(1))
    r = run_cli("run", model, "--inputs", empty)
    assert r.exit_code == 1 and "error[input-mismatch]" in r.output
    assert "Parameters: 'Parameter_1' (tensor 'input_ids')" in r.output
    assert "no input given for Parameter 'Parameter_1' (tensor 'input_ids')" in r.output
    r = run_cli("run", model, "--input-shape", "input_idz:2,3")
    assert "(Parameters: 'Parameter_1' (tensor 'input_ids')); did you mean 'input_ids'?" in r.output


def test_a_float64_input_for_an_f32_parameter_says_how_to_convert_it(write_ir, run_cli, save_npz):
    b = IRBuilder()
    b.result(b.parameter("x", "2", "f32"))
    r = run_cli("run", write_ir(b), "--inputs", save_npz(x=np.zeros(2)))
    assert r.exit_code == 1 and "input 'x' has dtype float64 but the Parameter is f32" in r.output
    assert "convert it first, e.g. x.astype(np.float32)" in r.output


# ------------------------------------------------------------------ random inputs

def test_random_indices_are_drawn_within_the_dim_they_index_through_converts(write_ir, run_cli, tmp_path):
    model = _model(write_ir)
    saved = tmp_path / "in.npz"
    r = run_cli("run", model, "--seed", "5", "--input-shape", "input_ids:2,400", "--save-inputs", saved)
    assert r.exit_code == 0, r.output
    row = next(line for line in r.output.splitlines() if line.startswith("Parameter_1"))
    assert row.split()[:6] == ["Parameter_1", "input_ids", "int64", "[2,400]", "(--input-shape)", "[0,"]
    assert "49]  indices of Gather 'gather' (dim of 50)" in row
    with np.load(saved) as data:
        ids = data["Parameter_1"]
    assert ids.min() >= 0 and ids.max() == 49  # 800 draws reach the top
    r = run_cli("run", model, "--val-range", "input_ids:[3,4]", "--save-inputs", saved)
    assert r.exit_code == 0 and "[3, 4]" in r.output and "--val-range" in r.output
    with np.load(saved) as data:
        assert set(np.unique(data["Parameter_1"])) <= {3, 4}
    for bad in ("input_ids:4,3", "input_ids:a,b", "input_ids:1"):
        r = run_cli("run", model, "--val-range", bad)
        assert r.exit_code == 2 and "error[bad-val-range]" in r.output, bad


@pytest.mark.parametrize("op, inputs, attrs, expected", [
    ("GatherND", lambda b, d, i: [d, i], {"batch_dims": "0"}, (0, 6)),  # indices span dims 0,1 of [7,9,5]
    ("ScatterUpdate", lambda b, d, i: [d, i, b.const(np.zeros((3, 9, 5), np.float32)), b.const(np.array(1))], {}, (0, 8)),
    ("EmbeddingBagPackedSum", lambda b, d, i: [d, i], {}, (0, 6)),
    ("ReverseSequence", lambda b, d, i: [d, i], {"batch_axis": "0", "seq_axis": "2"}, (1, 5)),
    ("GatherElements", lambda b, d, i: [d, i], {"axis": "-1"}, (0, 4)),
])
def test_index_ranges_are_read_from_the_graph_by_op_type_and_input(write_ir, op, inputs, attrs, expected):
    """Read generically from layer records and declared dims: also for ops irexec does not execute."""
    b = IRBuilder()
    data = b.const(np.zeros((7, 9, 5), np.float32))
    idx = b.parameter("idx", "7,2" if op == "GatherND" else "7", "i64")
    idx = b.layer("Convert", "opset1", [idx], {"destination_type": "i32"})
    b.result(b.layer(op, "opset8", inputs(b, data, idx), attrs, outputs=[((7, 9, 5), "f32")]))
    model = read_model(write_ir(b))
    [plan] = plan_inputs(model)
    assert (plan.low, plan.high) == expected and op in plan.range_note


# ------------------------------------------------------------------ timing

def test_repeat_prints_latency_and_throughput_after_a_warm_up_run(write_ir, run_cli):
    r = run_cli("run", _model(write_ir), "--repeat", "4")
    assert r.exit_code == 0, r.output
    assert "Count:          4 iterations (after 1 warm-up run, not counted)" in r.output
    stats = dict(re.findall(r"^\s*(Median|Average|Min|Max):\s+([0-9.]+) ms$", r.output, re.M))
    assert set(stats) == {"Median", "Average", "Min", "Max"}
    assert float(stats["Min"]) <= float(stats["Median"]) <= float(stats["Max"])
    assert re.search(r"^Throughput:\s+[0-9.]+ FPS$", r.output, re.M)
    assert "Throughput" not in run_cli("run", _model(write_ir, "once")).output


def test_compare_counts_outputs_not_reference_arrays(write_ir, run_cli, save_npz):
    b = IRBuilder()
    b.result(b.parameter("x", "2", "f32"), name="y")
    model = write_ir(b)
    # two arrays for one output, no name shared: not paired by position
    ref = save_npz("ref", xx=np.zeros(2), zz=np.zeros(2))
    r = run_cli("run", model, "--inputs", save_npz(x=np.zeros(2, np.float32)), "--compare", ref)
    assert r.exit_code == 1
    assert "FAILED: 1 of 1 output(s) differ" in r.output and "holds 2 array(s) that are not outputs of this run" in r.output


# ------------------------------------------------------------------ report formats

def _sarif_schema() -> dict:
    return json.loads((REPO / "schemas" / "sarif-2.1.0.schema.json").read_text())


def test_sarif_report_validates_and_describes_every_code(write_ir, run_cli, tmp_path):
    from irexec.report.rules import RULES
    from tests.test_check_cli import broken_chain

    bad = write_ir(broken_chain(), name="bad")
    r = run_cli("check", bad, tmp_path / "nope.xml", "--format", "sarif")
    assert r.exit_code == 1
    log = json.loads(r.stdout)
    jsonschema.validate(log, _sarif_schema())
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-2.1.0.json")
    driver = log["runs"][0]["tool"]["driver"]
    rules = {rule["id"]: rule for rule in driver["rules"]}
    table = (REPO / "docs" / "diagnostics.md").read_text()
    documented = set(re.findall(r"`([a-z0-9]+(?:-[a-z0-9]+)+)`", table))
    assert documented <= set(rules) == set(RULES)
    assert all(rule["shortDescription"]["text"] and rule["help"]["text"] for rule in rules.values())
    results = log["runs"][0]["results"]
    mismatch = next(x for x in results if x["ruleId"] == "shape-mismatch")
    assert mismatch["level"] == "error" and mismatch["locations"][0]["physicalLocation"]["region"]["startLine"] > 1
    assert driver["rules"][mismatch["ruleIndex"]]["id"] == "shape-mismatch"
    missing = next(x for x in results if x["ruleId"] == "file-not-found")
    assert missing["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].startswith("file:///")
    with pytest.raises(jsonschema.ValidationError):  # the schema does check levels
        jsonschema.validate(dict(log, runs=[dict(log["runs"][0], results=[dict(mismatch, level="fatal")])]), _sarif_schema())


def test_gitlab_code_quality_report(write_ir, run_cli):
    from tests.test_check_cli import broken_chain, mixed_model

    bad = write_ir(broken_chain(), name="bad")
    good = write_ir(mixed_model(repeats=1), name="good")
    r = run_cli("check", bad, good, "--output-format", "gitlab")
    assert r.exit_code == 1
    issues = json.loads(r.stdout)
    assert {"major", "minor"} <= {i["severity"] for i in issues} <= {"major", "minor", "info"}
    assert len({i["fingerprint"] for i in issues}) == len(issues)
    for i in issues:
        assert set(i) >= {"description", "check_name", "fingerprint", "severity", "location"}
        assert i["location"]["path"].endswith(".xml") and i["location"]["lines"]["begin"] >= 1
    assert json.loads(run_cli("check", bad, "-f", "gitlab").stdout) == issues[:sum(i["location"]["path"] == bad for i in issues)]


# ------------------------------------------------------------------ the README

def test_quick_start_leaves_a_clean_work_tree():
    readme = (REPO / "README.md").read_text()
    quick = readme[readme.index("## Quick start"):readme.index("## Commands")]
    written = re.findall(r"--output (\S+)", quick)
    assert written
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    for path in written:
        proc = subprocess.run(["git", "check-ignore", "-q", path], cwd=REPO, capture_output=True)
        assert proc.returncode == 0, f"{path} would be left in the work tree"


def test_ruff_is_in_the_dev_extra():
    import tomllib

    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert any(req.startswith("ruff") for req in extras["dev"])
    assert "ruff check ." in (REPO / "README.md").read_text() and "'.[dev]'" in (REPO / "README.md").read_text()
