"""`irexec check` as CI uses it: many files, every finding at once, unknown
ops trusted as declared, exit codes, verbosity, colour, output files."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np

from irexec.model.builder import IRBuilder, Out
from irexec.ops.framework.registry import resolve

SHAPE = (2, 6)
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _f32(b: IRBuilder, type_: str, version: str, inputs: list[Out], attrs: dict | None = None,
         dims: tuple[int, ...] = SHAPE) -> Out:
    return b.layer(type_, version, inputs, attrs, outputs=[(dims, "f32")])


def mixed_model(repeats: int = 40, wrong_last_dims: bool = False) -> IRBuilder:
    """A chain mixing implemented ops with ops irexec may not know (a custom
    CustomMatMul that no opset has, Relu, Convolution), 12 layers per repeat."""
    b = IRBuilder()
    x = b.parameter("x", SHAPE, "f32")
    for _ in range(repeats):
        x = _f32(b, "Roll", "opset7", [x, b.const(np.array([1])), b.const(np.array([1]))])
        x = _f32(b, "CustomMatMul", "opset1", [x, b.const(np.eye(6, dtype=np.float32))],
                 {"transpose_a": "false", "transpose_b": "false"})
        x = _f32(b, "Gather", "opset8", [x, b.const(np.arange(5, -1, -1)), b.const(np.array(1))], {"batch_dims": 0})
        x = _f32(b, "Relu", "opset1", [x])
        x = _f32(b, "ReverseSequence", "opset1", [x, b.const(np.array([6, 3]))], {"batch_axis": 0, "seq_axis": 1})
        x = _f32(b, "Convert", "opset1", [x], {"destination_type": "f32"})
    x = _f32(b, "Convolution", "opset1", [b.layer("Unsqueeze", "opset1", [x, b.const(np.array([0, 1]))],
                                                  outputs=[((1, 1, 2, 6), "f32")]),
                                          b.const(np.ones((1, 1, 1, 1), np.float32))],
             {"strides": "1,1", "dilations": "1,1", "pads_begin": "0,0", "pads_end": "0,0"}, dims=(1, 1, 2, 6))
    x = _f32(b, "Convert", "opset1", [x], {"destination_type": "f32"}, dims=(1, 1, 2, 7) if wrong_last_dims else (1, 1, 2, 6))
    b.result(x)
    return b


def broken_chain() -> IRBuilder:
    """Gather with an axis out of range, three layers after it, and an
    independent declared-dims error on another branch."""
    b = IRBuilder()
    x = b.parameter("x", SHAPE, "f32")
    g = _f32(b, "Gather", "opset8", [x, b.const(np.array([0, 1])), b.const(np.array(5))], {"batch_dims": 0})
    y = _f32(b, "Convert", "opset1", [g], {"destination_type": "f32"})
    y = _f32(b, "Convert", "opset1", [y], {"destination_type": "f32"})
    b.result(y)
    z = _f32(b, "Convert", "opset1", [x], {"destination_type": "f32"}, dims=(2, 7))
    b.result(z)
    return b


def test_hundreds_of_mixed_layers_check_clean_with_one_warning_per_unknown_op(write_ir, run_cli):
    path = write_ir(mixed_model())
    r = run_cli("check", path)
    assert r.exit_code == 0, r.output
    warnings = [line for line in r.stdout.splitlines() if "warning[unsupported-op]" in line]
    unknown = {"CustomMatMul": 40, "Relu": 40, "Convolution": 1, "Unsqueeze": 1}
    unknown = {t: n for t, n in unknown.items() if resolve(t, "opset1") is None}
    assert len(warnings) == len(unknown), r.stdout
    for op, count in unknown.items():
        (line,) = [w for w in warnings if f"({op}/opset1)" in w]
        if count > 1:
            assert f"{count} layers, first at lines" in line
    n = sum(unknown.values())  # a grouped warning counts every layer, as --statistics does
    assert r.stdout.splitlines()[-1] == f"1 file, 0 errors, {n} warning{'s' if n != 1 else ''}"
    layers = sum(1 for line in Path(path).read_text().splitlines() if "<layer " in line)
    assert layers >= 400


def test_strict_makes_warnings_fail(write_ir, run_cli):
    path = write_ir(mixed_model(repeats=2))
    assert run_cli("check", path, "--strict").exit_code == 1
    assert run_cli("check", path, "--strict", "--exit-zero").exit_code == 0


def test_layers_after_unknown_ops_are_still_checked(write_ir, run_cli):
    path = write_ir(mixed_model(repeats=3, wrong_last_dims=True))
    r = run_cli("check", path)
    assert r.exit_code == 1
    assert re.search(r'error\[shape-mismatch\] layer \d+ "Convert_\d+" \(Convert-1\) output port 1: '
                     r"declared \[1,1,2,7\] but inferred \[1,1,2,6\]", r.stdout), r.stdout


def test_every_finding_at_once_and_one_skipped_note_per_failing_layer(write_ir, run_cli):
    path = write_ir(broken_chain())
    r = run_cli("check", path)
    assert r.exit_code == 1
    assert "(Gather-8)" in r.stdout and "axis" in r.stdout
    assert "declared [2,7] but inferred [2,6]" in r.stdout
    assert "note[skipped]" not in r.stdout  # notes only with -v
    v = run_cli("check", path, "-v")
    skipped = [line for line in v.stdout.splitlines() if "note[skipped]" in line]
    # Convert, Convert, Result fold into one note that names the layer they wait for
    assert len(skipped) == 1, v.stdout
    assert 'note[skipped] 3 layers not checked: they depend on layer 3 "Gather_3", which failed' in skipped[0]
    assert v.stdout.splitlines()[-1].endswith(", 3 notes")  # the note stands for 3 layers, as --statistics counts


def test_files_directories_globs_and_a_missing_path(write_ir, run_cli, tmp_path):
    good = write_ir(mixed_model(repeats=1), name="good")
    bad = write_ir(broken_chain(), name="bad")
    sub = tmp_path / "sub" / "deeper"
    sub.mkdir(parents=True)
    mixed_model(repeats=1).write(sub / "nested.xml")
    (tmp_path / "sub" / "notes.txt").write_text("not a model")
    (tmp_path / "sub" / "broken.xml").write_text("<net version='11'><layers>")  # malformed XML
    r = run_cli("check", good, str(tmp_path / "sub"), str(tmp_path / "b*.xml"), str(tmp_path / "nope.xml"))
    assert r.exit_code == 1
    out = r.stdout
    assert "nope.xml: error[file-not-found]" in out
    assert "broken.xml:1: error[xml-syntax]" in out
    assert f"{os.path.basename(bad)}:" in out
    assert "nested.xml" in out and not any("nested.xml" in line and "error[" in line for line in out.splitlines())
    assert out.splitlines()[-1].startswith("5 files, ")


def test_a_pattern_that_matches_nothing_and_an_empty_directory_fail(run_cli, tmp_path):
    (tmp_path / "empty").mkdir()
    r = run_cli("check", str(tmp_path / "empty"))
    assert r.exit_code == 1 and "no *.xml files" in r.stderr and "--allow-empty" in r.stderr
    assert run_cli("check", str(tmp_path / "empty"), "--allow-empty").exit_code == 0
    r = run_cli("check", str(tmp_path / "*.xml"))
    assert r.exit_code == 1 and "no file matches the pattern" in r.stdout


def test_the_same_file_twice_is_checked_once(write_ir, run_cli, tmp_path):
    path = write_ir(mixed_model(repeats=1))
    r = run_cli("check", path, str(tmp_path), str(tmp_path / "*.xml"))
    assert r.stdout.splitlines()[-1].startswith("1 file, ")


def test_quiet_prints_findings_only_and_qq_or_silent_nothing_as_ruff(write_ir, run_cli):
    good = write_ir(mixed_model(repeats=1), name="good")
    bad = write_ir(broken_chain(), name="bad")
    full = run_cli("check", good, bad)
    r = run_cli("check", good, bad, "-q")  # the findings, without the summary line
    assert r.exit_code == 1 and r.stdout == "".join(line + "\n" for line in full.stdout.splitlines()[:-1])
    assert "error[shape-mismatch]" in r.stdout and "warning[unsupported-op]" in r.stdout
    assert not re.search(r"\d+ files?, ", r.stdout)
    r = run_cli("check", good, "-q")  # warnings are findings too; nothing else is printed
    assert r.exit_code == 0 and "warning[unsupported-op]" in r.stdout and "file," not in r.stdout
    for args in (["-qq"], ["--silent"], ["-s"], ["-q", "-q", "-q"]):
        r = run_cli("check", good, bad, *args)
        assert r.exit_code == 1 and r.output == "", args
    r = run_cli("check", good, bad, "--format", "github", "-q")
    assert r.stdout.startswith("::") and all(line.startswith("::") for line in r.stdout.splitlines())
    r = run_cli("check", good, bad, "--exit-zero")
    assert r.exit_code == 0 and "error[shape-mismatch]" in r.stdout
    assert run_cli("check", good, "-q", "-v").exit_code == 2
    assert run_cli("check", good, "--silent", "-v").exit_code == 2


def test_output_format_is_accepted_as_ruff_spells_it(write_ir, run_cli):
    bad = write_ir(broken_chain())
    assert run_cli("check", bad, "--output-format", "json").stdout == run_cli("check", bad, "--format", "json").stdout


def test_format_auto_follows_github_actions(write_ir, run_cli):
    bad = write_ir(broken_chain())
    r = run_cli("check", bad, env={"GITHUB_ACTIONS": "true"})
    assert r.stdout.startswith("::error file=") and r.exit_code == 1
    r = run_cli("check", bad, env={"GITHUB_ACTIONS": ""})
    assert "::error" not in r.stdout and "error[shape-mismatch]" in r.stdout


def test_colour_only_when_asked_or_on_a_terminal(write_ir, run_cli):
    bad = write_ir(broken_chain())
    assert not ANSI.search(run_cli("check", bad).stdout)  # CliRunner's stdout is not a TTY
    coloured = run_cli("check", bad, "--color", "always").stdout
    assert ANSI.search(coloured)
    assert ANSI.sub("", coloured) == run_cli("check", bad, "--color", "never").stdout
    assert not ANSI.search(run_cli("check", bad, env={"NO_COLOR": "1"}).stdout)


def test_output_file_is_written_whole_and_summary_printed(write_ir, run_cli, tmp_path):
    bad = write_ir(broken_chain())
    target = tmp_path / "report" / "irexec.json"
    target.parent.mkdir()
    r = run_cli("check", bad, "-f", "json", "-o", target)
    assert r.exit_code == 1
    errors = int(re.fullmatch(r"1 file, (\d+) errors, 0 warnings\n", r.stdout).group(1))
    import json

    assert json.loads(target.read_text())["summary"]["errors"] == errors >= 2
    assert [p.name for p in target.parent.iterdir()] == ["irexec.json"]  # no temporary left behind


def _dynamic_model() -> IRBuilder:
    b = IRBuilder()
    x = b.parameter("x", "1,?", "f32")
    y = b.layer("Convert", "opset1", [x], {"destination_type": "f32"}, outputs=[((1, 5), "f32")])
    b.result(y)
    return b


def test_input_shape_pins_dynamic_dims(write_ir, run_cli):
    path = write_ir(_dynamic_model())
    assert run_cli("check", path).exit_code == 0  # [1,?] fits the declared [1,5]
    r = run_cli("check", path, "--input-shape", "x:1,4")
    assert r.exit_code == 1 and "declared [1,5] but inferred [1,4]" in r.stdout
    assert run_cli("check", path, "--input-shape", "x:1,-1").exit_code == 0
    r = run_cli("check", path, "--input-shape", "y:1,4")
    assert r.exit_code == 2 and "'y'" in r.stderr
    r = run_cli("check", path, "--input-shape", "x:1,a")
    assert r.exit_code == 2 and "--input-shape" in r.output


def test_weights_needs_a_single_model(write_ir, run_cli):
    a = write_ir(_dynamic_model(), name="a")
    b = write_ir(_dynamic_model(), name="b")
    assert run_cli("check", a, b, "--weights", a.replace(".xml", ".bin")).exit_code == 2


def test_a_bug_on_one_file_is_reported_and_the_others_still_checked(write_ir, run_cli, monkeypatch):
    import irexec.checker.model_checker

    good = write_ir(mixed_model(repeats=1), name="good")
    victim = write_ir(_dynamic_model(), name="victim")
    real = irexec.checker.model_checker.check_model

    def flaky(model, *args, **kwargs):
        if model.path == victim:
            raise ZeroDivisionError("boom")
        return real(model, *args, **kwargs)

    monkeypatch.setattr(irexec.checker.model_checker, "check_model", flaky)
    r = run_cli("check", victim, good)
    assert r.exit_code == 2
    assert "error[internal-error] irexec failed on this file: ZeroDivisionError: boom" in r.stdout
    assert r.stdout.splitlines()[-1].startswith("2 files, 1 error")
    assert "Traceback" not in r.output


def test_real_process_exit_codes(write_ir, run_cli, tmp_path):
    good = write_ir(mixed_model(repeats=1), name="good")
    write_ir(broken_chain(), name="bad")
    p = run_cli.subprocess("check", str(tmp_path / "*.xml"), "--format", "github")
    assert p.returncode == 1, p.stderr
    assert "::error file=" in p.stdout and "Traceback" not in p.stderr
    assert run_cli.subprocess("check", good).returncode == 0
    assert run_cli.subprocess("check", good, "--format", "yaml").returncode == 2


def test_dropping_tensors_after_their_last_consumer_changes_no_finding(write_ir):
    """The CLI checks with keep_tensors=False (memory); every finding, note and
    line must be those of a check that keeps every tensor."""
    from irexec.api.load import read_model
    from irexec.checker.model_checker import check_model

    for builder in (broken_chain(), mixed_model(repeats=3, wrong_last_dims=True)):
        model = read_model(str(write_ir(builder)))
        kept = check_model(model)
        dropped = check_model(model, keep_tensors=False)
        assert kept.tensors and not dropped.tensors
        assert [d.format() for d in dropped.diagnostics] == [d.format() for d in kept.diagnostics]
        assert {d.code for d in kept.diagnostics} >= {"shape-mismatch"}
