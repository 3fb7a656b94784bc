"""``irexec run --report out.json``: real reports from the command line,
validated against schemas/run-report.schema.json and read back."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from irexec.model.builder import IRBuilder

jsonschema = pytest.importorskip("jsonschema")

SCHEMA = Path(__file__).resolve().parent.parent / "schemas" / "run-report.schema.json"
X = np.array([[1, -2, 3, 0], [5, 6, 7, 8]], np.float32)
Y = np.array([[1, 1, 1, 0], [2, 0, 2, 2]], np.float32)


def _model(write_ir) -> str:  # type: ignore[no-untyped-def]
    """x / y -> Result "ratio";  x -> Convert(i64) -> Result "whole"."""
    b = IRBuilder()
    x = b.parameter("x", [2, 4], "f32")
    y = b.parameter("y", [2, 4], "f32")
    b.result(b.layer("Divide", "opset1", [x, y], {}, name="ratio", names=["ratio"]), name="out_ratio")
    b.result(b.layer("Convert", "opset1", [x], {"destination_type": "i64"}, name="to_i64", names=["whole"]), name="out_whole")
    return write_ir(b)


def _strict(path: Path) -> dict:
    """The report as strict JSON (NaN and Infinity are not JSON), valid against the schema."""
    def refuse(name: str) -> None:
        raise AssertionError(f"{path.name} holds {name}, which is not JSON")

    doc = json.loads(path.read_text(), parse_constant=refuse)
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text()))
    errors = sorted(validator.iter_errors(doc), key=str)
    assert not errors, errors[0]
    return doc


def test_the_schema_is_a_valid_draft_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(json.loads(SCHEMA.read_text()))


def test_a_report_with_a_failed_comparison(write_ir, save_npz, run_cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    model = _model(write_ir)
    with np.errstate(all="ignore"):
        ratio = X / Y
    ref = {"ratio": ratio.copy(), "whole": X.astype(np.int64)}
    ref["ratio"][1, 2] += np.float32(0.5)  # 3.5 vs 4: beyond the f32 default
    out = tmp_path / "reports" / "run.json"  # the folder is created
    r = run_cli.subprocess("run", model, "--inputs", save_npz(x=X, y=Y), "--compare", save_npz("ref", **ref),
                           "--report", out)
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"wrote the run report to {out}" in r.stdout
    doc = _strict(out)
    assert doc["ok"] is False and doc["model"] == model and doc["inputs"]["seed"] is None
    outputs = {o["name"]: o for o in doc["outputs"]}
    spread = outputs["ratio"].pop("distribution")
    finite = np.array([1, -2, 3, 2.5, 3.5, 4])
    assert spread["median"] == pytest.approx(float(np.median(finite))) and spread["std"] == pytest.approx(finite.std())
    assert ratio[tuple(spread["max_at"])] == 4 and ratio[tuple(spread["min_at"])] == -2
    assert ratio[tuple(spread["p99_at"])] == spread["p99"] and ratio[tuple(spread["p95_at"])] == spread["p95"]
    assert outputs["ratio"] == {"name": "ratio", "dtype": "float32", "shape": [2, 4], "size": 8, "min": -2.0, "max": 4.0,
                                "mean": pytest.approx(float(np.mean([1, -2, 3, 2.5, 3.5, 4]))), "nan": 1, "posinf": 1,
                                "neginf": 0}
    assert (outputs["whole"]["dtype"], outputs["whole"]["min"], outputs["whole"]["max"]) == ("int64", -2, 8)
    cmp = {c["name"]: c for c in doc["comparison"]["outputs"]}
    assert doc["comparison"]["passed"] is False
    assert cmp["ratio"]["passed"] is False and cmp["ratio"]["mismatches"] == 1 and cmp["ratio"]["worst_index"] == [1, 2]
    assert (cmp["ratio"]["atol"], cmp["ratio"]["rtol"], cmp["ratio"]["tolerance_from"]) == (pytest.approx(4e-4), 1e-5, "default")
    assert cmp["ratio"]["max_abs_error"] == 0.5
    assert cmp["ratio"]["tolerance"] == "atol=0.0004 (0.0001 x max|ref| 4), rtol=1e-05, the float32 default"
    assert cmp["whole"]["passed"] is True and cmp["whole"]["tolerance"] == "exact (atol=0, rtol=0), the int64 default"
    t = doc["timings"]
    assert t["total_seconds"] >= t["run_seconds"] > 0 and len(t["latencies_seconds"]) == 1 and t["compare_seconds"] >= 0
    assert [p.name for p in out.parent.iterdir()] == ["run.json"]  # no temporary left


def test_a_report_of_generated_inputs_a_repeat_and_a_stop(write_ir, run_cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    model = _model(write_ir)
    out = tmp_path / "r.json"
    r = run_cli("run", model, "--seed", "3", "--repeat", "3", "--report", out)
    assert r.exit_code == 0, r.output
    doc = _strict(out)
    assert doc["ok"] is True and doc["comparison"] is None and doc["inputs"]["seed"] == 3
    assert [t["name"] for t in doc["inputs"]["tensors"]] == ["x", "y"]
    assert doc["timings"]["warmup_runs"] == 1 and len(doc["timings"]["latencies_seconds"]) == 3
    r = run_cli("run", model, "--seed", "3", "--stop-at", "ratio", "--report", out)
    assert r.exit_code == 0, r.output
    doc = _strict(out)
    assert doc["stopped_at"] == {"layer_id": 2, "layer_name": "ratio", "op": "Divide-1"}
    assert len(doc["outputs"]) == 1


def test_no_report_from_a_failed_run_and_an_old_one_stays_whole(write_ir, save_npz, run_cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    model = _model(write_ir)
    out = tmp_path / "r.json"
    out.write_text("previous report\n")
    r = run_cli("run", model, "--inputs", save_npz(x=X, y=Y), "--check-finite", "--report", out)
    assert r.exit_code == 1 and "error[non-finite]" in r.output
    assert out.read_text() == "previous report\n"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".irexec-")) == []


def test_a_report_path_that_is_a_folder_is_refused_before_the_run(write_ir, save_npz, run_cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    r = run_cli("run", _model(write_ir), "--inputs", save_npz(x=X, y=Y), "--report", tmp_path)
    assert r.exit_code == 1 and "error[is-a-directory]" in r.output.splitlines()[0]  # before any table is printed


def test_a_report_of_a_shared_real_model(run_cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from test_real_models import MODELS_DIR

    d = MODELS_DIR / "bert_tiny"
    if not (d / "model.xml").is_file():
        pytest.skip(f"{d} is absent (the real models are not shipped with this checkout)")
    out = tmp_path / "bert.json"
    r = run_cli("run", d / "model.xml", "--inputs", d / "inputs.npz", "--compare", d / "expected.npz", "--report", out)
    assert r.exit_code == 0, r.output
    doc = _strict(out)
    assert doc["ok"] and doc["comparison"]["outputs"][0]["max_abs_error"] < 1e-5


def test_verbose_prints_the_distribution_and_every_run_ends_with_its_verdict(write_ir, save_npz, run_cli) -> None:  # type: ignore[no-untyped-def]
    model = _model(write_ir)
    feeds = save_npz(x=X, y=Y)
    r = run_cli.subprocess("run", model, "--inputs", feeds, "-v")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    head = next(i for i, l in enumerate(lines) if l.split()[:4] == ["output", "mean", "std", "median"])
    assert lines[head].split()[4:] == ["p95", "p99", "min", "at", "max", "at"]
    runtime = lines[-1].split("Runtime: ")[1].split("s |")[0]
    assert lines[-1] == f"PASSED | Runtime: {runtime}s | Command: irexec run {model} --inputs {feeds} -v"
    ref = save_npz("ref", ratio=np.zeros((2, 4), np.float32), whole=X.astype(np.int64))
    bad = run_cli.subprocess("run", model, "--inputs", feeds, "--compare", ref)
    assert bad.returncode == 1 and bad.stdout.splitlines()[-1].startswith("FAILED | Runtime: ")
