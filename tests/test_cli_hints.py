"""Messages that point a new user at the fix: a positional npz, a word that is
not an option, a non-IR .xml, a path with nothing to check."""

from __future__ import annotations

import numpy as np

from irexec.model.builder import IRBuilder


def _model(write_ir) -> str:
    b = IRBuilder()
    x = b.parameter("x", "2,3", "f32")
    b.result(b.layer("Relu", "opset1", [x], {}, names=["y"]))
    return write_ir(b)


def test_a_positional_npz_says_what_arr_0_is(write_ir, run_cli, tmp_path):
    np.savez(tmp_path / "pos.npz", np.ones((2, 3), np.float32))
    r = run_cli.subprocess("run", _model(write_ir), "--inputs", tmp_path / "pos.npz")
    assert r.returncode == 1
    assert "'arr_0' is how np.savez names an array passed by position" in r.stderr
    assert "np.savez('inputs.npz', x=...)" in r.stderr


def test_words_users_reach_for(write_ir, run_cli, save_npz):
    path = _model(write_ir)
    r = run_cli.subprocess("run", path, "--tolerance", "1e-3")
    assert r.returncode == 2 and "use --atol [OUTPUT:]VALUE and --rtol [OUTPUT:]VALUE" in r.stderr
    assert "--val-range" not in r.stderr
    inputs = save_npz(x=np.ones((2, 3), np.float32))
    ref = save_npz("ref", y=np.ones((2, 3), np.float32))
    ok = run_cli.subprocess("run", path, "--input", inputs, "--compare", ref, "--abs-tol", "0", "--rel-tol", "0")
    assert ok.returncode == 0 and "exact (atol=0, rtol=0), as given" in ok.stdout, ok.stdout + ok.stderr


def test_a_non_ir_xml_names_skip_non_ir(run_cli, tmp_path):
    pom = tmp_path / "pom.xml"
    pom.write_text('<?xml version="1.0"?>\n<project><modelVersion>4.0.0</modelVersion></project>\n')
    r = run_cli.subprocess("check", pom)
    assert r.returncode == 1 and "error[not-ir]" in r.stdout and "--skip-non-ir" in r.stdout
    assert run_cli.subprocess("check", pom, "--skip-non-ir").returncode == 0


def test_a_path_with_nothing_to_check_fails_unless_allowed(run_cli, tmp_path):
    (tmp_path / "empty").mkdir()
    r = run_cli.subprocess("check", tmp_path / "empty")
    assert r.returncode == 1 and "0 files checked" in r.stderr and "--allow-empty" in r.stderr
    assert run_cli.subprocess("check", tmp_path / "empty", "--allow-empty").returncode == 0


def test_inspect_with_a_drawing_prints_only_where_it_went(write_ir, run_cli, tmp_path):
    r = run_cli.subprocess("inspect", _model(write_ir), "--dot", tmp_path / "g.dot")
    assert r.returncode == 0
    assert r.stdout.splitlines() == [f"wrote the graph (3 layers) to {tmp_path / 'g.dot'}"], r.stdout
    assert (tmp_path / "g.dot").read_text().startswith("digraph")


def test_ops_filters_by_name_or_family_and_fits_the_terminal(run_cli):
    r = run_cli.subprocess("ops", "Gather", env={"COLUMNS": "80"})
    assert r.returncode == 0
    ops = [line.split()[0] for line in r.stdout.splitlines()[2:]]
    assert "Gather-8" in ops and "GatherND-8" in ops and all("Gather" in op for op in ops)
    assert max(len(line) for line in r.stdout.splitlines()) <= 80
    family = run_cli.subprocess("ops", "matmul", env={"COLUMNS": "60"}).stdout.splitlines()
    assert any(line.startswith("MatMul-1") for line in family) and max(len(line) for line in family) <= 60
    wide = run_cli.subprocess("ops", "--wide", env={"COLUMNS": "60"}).stdout
    assert max(len(line) for line in wide.splitlines()) > 60
    none = run_cli.subprocess("ops", "NoSuchThing")
    assert none.returncode == 1 and "families: " in none.stderr
