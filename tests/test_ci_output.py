"""`irexec check` in CI: a cascade is a handful of lines in every format,
notes only when asked for, --select/--ignore/--statistics, [tool.irexec]
defaults from pyproject.toml, -j N, and XML that is not IR passed over."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import pytest
from lxml import etree

from irexec.model.builder import IRBuilder

SHAPE = (2, 6)


def cascade(downstream: int = 100) -> IRBuilder:
    """One bad layer (Gather with axis 5 on rank 2) in front of ``downstream`` layers."""
    b = IRBuilder()
    x = b.parameter("x", SHAPE, "f32")
    x = b.layer("Gather", "opset8", [x, b.const(np.array([0, 1])), b.const(np.array(5))], {"batch_dims": 0},
                outputs=[(SHAPE, "f32")])
    for _ in range(downstream):
        x = b.layer("Convert", "opset1", [x], {"destination_type": "f32"}, outputs=[(SHAPE, "f32")])
    b.result(x)
    return b


def clean() -> IRBuilder:
    b = IRBuilder()
    b.result(b.layer("Convert", "opset1", [b.parameter("x", SHAPE, "f32")], {"destination_type": "f16"},
                     outputs=[(SHAPE, "f16")]))
    return b


def _counts(fmt: str, out: str) -> int:
    """Findings in a report: annotations, alerts, issues, failures + system-out entries, diagnostics."""
    if fmt == "github":
        return sum(line.startswith("::") for line in out.splitlines())
    if fmt == "sarif":
        return len(json.loads(out)["runs"][0]["results"])
    if fmt == "gitlab":
        return len(json.loads(out))
    if fmt == "junit":
        root = etree.fromstring(out.encode())
        return sum(len((e.text or "").splitlines()) for e in root.iter("failure", "system-out"))
    if fmt == "json":
        return sum(len(f["diagnostics"]) for f in json.loads(out)["files"])
    return sum(bool(re.search(r"(error|warning|note)\[", line)) for line in out.splitlines())


@pytest.mark.parametrize("fmt", ["text", "github", "sarif", "gitlab", "junit", "json"])
def test_one_bad_layer_in_front_of_a_hundred_is_a_handful_of_findings(fmt, write_ir, run_cli):
    path = write_ir(cascade(100))
    r = run_cli("check", path, "-f", fmt)
    assert r.exit_code == 1
    # the error alone; json, the whole contract, also has the one note that stands for the 101 layers after it
    assert _counts(fmt, r.stdout) == (2 if fmt == "json" else 1), r.stdout
    if fmt not in ("sarif", "json"):  # sarif describes every rule, json lists every layer a note stands for
        assert len(r.stdout.splitlines()) <= 20, r.stdout
    notes = run_cli("check", path, "-f", fmt, "--include-notes")
    assert notes.exit_code == 1 and _counts(fmt, notes.stdout) == 2, notes.stdout
    assert "101 layers not checked: they depend on layer 3" in notes.stdout


def test_json_keeps_every_layer_of_a_folded_cascade(write_ir, run_cli):
    doc = json.loads(run_cli("check", write_ir(cascade(100)), "-f", "json").stdout)
    (note,) = [d for d in doc["files"][0]["diagnostics"] if d["code"] == "skipped"]
    assert note["severity"] == "note" and note["count"] == 101 and len(note["occurrences"]) == 101
    assert doc["summary"]["notes"] == 101 and doc["summary"]["errors"] == 1


def test_github_notices_only_with_include_notes_or_verbose(write_ir, run_cli):
    path = write_ir(cascade(5))
    assert "::notice" not in run_cli("check", path, "-f", "github").stdout
    for flag in ("--include-notes", "-v"):
        out = run_cli("check", path, "-f", "github", flag).stdout
        assert out.count("::notice") == 1 and "6 layers not checked" in out


def test_select_and_ignore_decide_the_findings_and_the_exit_status(write_ir, run_cli):
    path = write_ir(cascade(3))
    assert run_cli("check", path, "--ignore", "axis-out-of-range").exit_code == 0
    assert run_cli("check", path, "--select", "shape-mismatch,type-mismatch").exit_code == 0
    r = run_cli("check", path, "--select", "shape-mismatch", "--select", "axis-out-of-range")  # repeatable
    assert r.exit_code == 1 and "error[axis-out-of-range]" in r.stdout
    r = run_cli("check", path, "--select", "axis-out-of-range", "--ignore", "axis-out-of-range")
    assert r.exit_code == 0 and r.stdout.strip() == "1 file, 0 errors, 0 warnings"
    assert "note[skipped]" not in run_cli("check", path, "-v", "--ignore", "skipped").stdout


def test_an_unknown_code_is_a_usage_error_listing_the_known_ones(write_ir, run_cli):
    path = write_ir(clean())
    for option in ("--select", "--ignore"):
        r = run_cli("check", path, option, "shape-mismatch,shape-mismatc")
        assert r.exit_code == 2
        assert "'shape-mismatc' is no diagnostic code; did you mean 'shape-mismatch'" in r.output
        assert "known codes: " in r.output and "unsupported-op" in r.output and option in r.output


def test_statistics_count_every_finding_per_code(write_ir, run_cli):
    path = write_ir(cascade(100))
    r = run_cli("check", path, "--statistics", "-v")
    assert r.exit_code == 1
    lines = r.stdout.splitlines()
    assert re.fullmatch(r"101\s+skipped\s+note\s+Not checked", lines[0]), lines
    assert re.fullmatch(r"\s*1\s+axis-out-of-range\s+error\s+Axis out of range", lines[1]), lines
    assert lines[-1] == "1 file, 1 error, 0 warnings" and len(lines) == 3
    quiet = run_cli("check", path, "--statistics").stdout.splitlines()  # notes only with -v, as in the text report
    assert len(quiet) == 2 and "axis-out-of-range" in quiet[0]
    rows = json.loads(run_cli("check", path, "--statistics", "-f", "json").stdout)
    assert {(row["code"], row["count"]) for row in rows} == {("skipped", 101), ("axis-out-of-range", 1)}
    assert run_cli("check", path, "--statistics", "-f", "sarif").exit_code == 2


def test_jobs_give_the_same_report_and_exit_status(write_ir, run_cli, tmp_path):
    paths = [write_ir(cascade(3) if i % 3 == 0 else clean(), name=f"m{i}") for i in range(7)]
    for files, status in ((paths, 1), (paths[1:3], 0)):
        for fmt in ("text", "json", "sarif"):
            one = run_cli("check", *files, "-f", fmt)
            many = run_cli("check", *files, "-f", fmt, "-j", "3")
            assert one.exit_code == many.exit_code == status
            assert one.stdout == many.stdout
    proc = run_cli.subprocess("check", *paths, "-j", "2", "-f", "json")
    assert proc.returncode == 1 and [f["path"] for f in json.loads(proc.stdout)["files"]] == paths


POM = '<?xml version="1.0"?>\n<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion></project>\n'


def test_skip_non_ir_passes_over_xml_without_a_net_root(write_ir, run_cli, tmp_path):
    good = write_ir(clean(), name="good")
    (tmp_path / "pom.xml").write_text(POM)
    (tmp_path / "strings.xml").write_text('<!DOCTYPE resources>\n<resources><string name="a">b</string></resources>\n')
    (tmp_path / "broken.xml").write_text("<net version='11'>")  # not well-formed: still a finding
    r = run_cli("check", tmp_path / "pom.xml", tmp_path / "strings.xml", good, "--skip-non-ir")
    assert r.exit_code == 0 and r.output == "1 file, 0 errors, 0 warnings\n"
    v = run_cli("check", tmp_path / "pom.xml", good, "--skip-non-ir", "-v")
    assert "skipped " + str(tmp_path / "pom.xml") + ": root element <project> is not <net>" in v.output
    assert run_cli("check", tmp_path / "pom.xml", "--skip-non-ir", "-j", "2").exit_code == 0
    assert "error[not-ir]" in run_cli("check", tmp_path / "pom.xml").output
    r = run_cli("check", tmp_path, "--skip-non-ir")
    assert r.exit_code == 1 and "broken.xml" in r.output and "pom.xml" not in r.output


# ----------------------------------------------------------- [tool.irexec]


def _project(tmp_path: Path, table: str, model: IRBuilder | None = None) -> tuple[Path, Path]:
    """A project with ``table`` in its pyproject.toml, a model in models/, and a sub-folder to run in."""
    root = tmp_path / "project"
    (root / "models").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "x"\n\n' + table)
    (model or cascade(3)).write(root / "models" / "m.xml")
    sub = root / "models" / "deeper"
    sub.mkdir()
    return root, sub


def test_pyproject_defaults_from_the_nearest_table_and_the_command_line_wins(tmp_path, run_cli):
    root, sub = _project(tmp_path, '[tool.irexec]\nignore = ["axis-out-of-range"]\nformat = "github"\ninclude-notes = true\n')
    (sub / "pyproject.toml").write_text('[project]\nname = "inner"\n')  # no [tool.irexec]: passed over, as ruff does
    proc = run_cli.subprocess("check", "../m.xml", cwd=str(sub))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("::notice") == 1 and "::error" not in proc.stdout
    proc = run_cli.subprocess("check", "../m.xml", "--ignore", "skipped", "-f", "text", "-v", cwd=str(sub))
    assert proc.returncode == 1 and "error[axis-out-of-range]" in proc.stdout and "note[" not in proc.stdout
    assert f"settings from {root / 'pyproject.toml'}" in proc.stderr


def test_pyproject_sets_strict_jobs_select_and_run_memory(tmp_path, run_cli):
    root, _ = _project(tmp_path, '[tool.irexec]\nselect = "shape-mismatch,type-mismatch"\njobs = 2\nmax-memory = "1KiB"\n')
    assert run_cli.subprocess("check", "models/m.xml", cwd=str(root)).returncode == 0
    b = IRBuilder()
    b.result(b.layer("Convert", "opset1", [b.parameter("x", (64, 64), "f32")], {"destination_type": "f32"},
                     outputs=[((64, 64), "f32")]))
    b.write(root / "big.xml")
    proc = run_cli.subprocess("run", "big.xml", cwd=str(root))
    assert proc.returncode == 1 and "memory-limit" in proc.stderr, proc.stderr
    assert run_cli.subprocess("run", "big.xml", "--max-memory", "1MiB", cwd=str(root)).returncode == 0


@pytest.mark.parametrize("table,message", [
    ('[tool.irexec]\nselekt = ["skipped"]\n',
     "pyproject.toml:5: error[bad-config] [tool.irexec] has no key 'selekt'; did you mean 'select'?"),
    ('[tool.irexec]\nstrict = "yes"\n', "pyproject.toml:5: error[bad-config] [tool.irexec] strict = 'yes': expected true or false"),
    ('[tool.irexec]\nignore = ["skiped"]\n', "'skiped' is no diagnostic code; did you mean 'skipped'?"),
    ('[tool.irexec]\njobs = -1\n', "jobs = -1: expected an integer >= 0"),
    ('[tool.irexec]\nformat = "xml"\n', "format = 'xml': expected one of auto, text"),
    ('[tool.irexec]\nmax-memory = "lots"\n', "max-memory = 'lots': expected"),
    ('[tool.irexec]\nstrict = yes\n', "pyproject.toml:5: error[bad-config]"),
])
def test_a_bad_config_is_a_usage_error_naming_file_and_line(tmp_path, run_cli, table, message):
    root, _ = _project(tmp_path, table)
    for command in (["check", "models/m.xml"], ["run", "models/m.xml"]):
        proc = run_cli.subprocess(*command, cwd=str(root))
        assert proc.returncode == 2, proc.stderr
        assert message in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


# ------------------------------------------------ errors that point at the fix


def _weighty(consts: int = 6) -> IRBuilder:
    b = IRBuilder()
    x = b.parameter("x", (4,), "f32")
    for i in range(consts):
        x = b.layer("Add", "opset1", [x, b.const(np.full((4,), i, np.float32))], outputs=[((4,), "f32")])
    b.result(x)
    return b


def test_a_missing_bin_is_one_error_that_names_weights(tmp_path, run_cli):
    xml, bin_path = _weighty().write(tmp_path / "m.xml")
    os.remove(bin_path)
    for command in (["check", xml], ["run", xml], ["check", xml, "-f", "json"]):
        r = run_cli(*command)
        assert r.exit_code == 1
        found = r.output.count('"code": "missing-weights"') if "-f" in command else r.output.count("error[missing-weights]")
        assert found == 1, r.output
        assert "does not exist, and 6 Const layers" in r.output and "--weights FILE.bin" in r.output


def test_a_bin_too_small_for_the_consts_does_not_belong_to_this_model(tmp_path, run_cli):
    xml, _ = _weighty(6).write(tmp_path / "m.xml")
    _, other = _weighty(2).write(tmp_path / "other.xml")
    for command in ("check", "run"):
        r = run_cli(command, xml, "--weights", other)
        assert r.exit_code == 1 and r.output.count("weights-out-of-bounds") == 1, r.output
        assert f"the weights file {other} (32 bytes) does not belong to this model: 4 Const layers" in r.output


def test_a_real_model_with_another_models_bin(run_cli):
    # beside the repository, as tests/test_real_models.py finds them
    models = Path(os.environ.get("IREXEC_REAL_MODELS") or Path(__file__).resolve().parents[1].parent / "shared" / "models")
    squeeze, bert = models / "squeezenet1_1", models / "bert_tiny"
    if not squeeze.is_dir():
        pytest.skip("the shared models are not here")
    r = run_cli("check", squeeze / "model.xml", "--weights", bert / "model.bin")
    assert r.exit_code == 1 and r.output.count("error[") == 1
    assert "does not belong to this model: 13 Const layers" in r.output


def _conv_model() -> IRBuilder:
    b = IRBuilder()
    x = b.parameter("x", "1,3,?,?", "f32")
    b.result(b.layer("Convolution", "opset1", [x, b.const(np.ones((4, 3, 7, 7), np.float32))],
                     {"strides": "1,1", "dilations": "1,1", "pads_begin": "0,0", "pads_end": "0,0"},
                     outputs=[((1, 4, -1, -1), "f32")], names=["y"]))
    return b


def test_made_up_inputs_take_a_size_that_fits(write_ir, run_cli):
    """A 7x7 kernel on [1,3,?,?]: the default 1x1 does not fit, the kernel's 7 does."""
    path = write_ir(_conv_model())
    r = run_cli("run", path)
    assert r.exit_code == 0, r.output
    assert "[1,3,7,7] (dim 2 ? -> 7, dim 3 ? -> 7 (sizes that fit the graph))" in r.output


def test_input_shape_needed_suggests_none_when_no_size_fits(write_ir, run_cli):
    b = IRBuilder()
    x = b.parameter("x", "1,?", "f32")  # declared outputs [1,5] and [1,6]: no size of x fits both
    b.result(b.layer("Convert", "opset1", [x], {"destination_type": "f32"}, outputs=[((1, 5), "f32")], names=["y"]))
    b.result(b.layer("Convert", "opset1", [x], {"destination_type": "f32"}, outputs=[((1, 6), "f32")], names=["z"]))
    r = run_cli("run", write_ir(b))
    assert r.exit_code == 1 and "give a shape that fits with --input-shape x:DIMS" in r.output
    assert "no size tried fits the model" in r.output and "error[shape-mismatch]" in r.output
    assert "--input-shape x:1,1" not in r.output


def _named_chain() -> IRBuilder:
    b = IRBuilder()
    x = b.parameter("x", SHAPE, "f32")
    for name in ("enc.layer.0/aten::linear/MatMul", "enc.layer.1/aten::linear/MatMul", "enc.layer.1/aten::gelu/Gelu"):
        x = b.layer("Convert", "opset1", [x], {"destination_type": "f32"}, name=name, outputs=[(SHAPE, "f32")])
    b.result(x)
    return b


def test_stop_at_takes_a_unique_suffix_or_substring_and_suggests_names(write_ir, run_cli):
    path = write_ir(_named_chain())
    r = run_cli("run", path, "--stop-at", "gelu/Gelu")
    assert r.exit_code == 0 and "stopped at layer" in r.output and "enc.layer.1/aten::gelu/Gelu" in r.output
    r = run_cli("run", path, "--stop-at", "layer.0")
    assert r.exit_code == 0 and "'enc.layer.0/aten::linear/MatMul'" in r.output
    r = run_cli("run", path, "--stop-at", "linear/MatMul")
    assert r.exit_code == 2 and "is ambiguous: 2 layer names end with it" in r.output
    assert '"enc.layer.0/aten::linear/MatMul"' in r.output and '"enc.layer.1/aten::linear/MatMul"' in r.output
    r = run_cli("run", path, "--stop-at", "layer.1/aten::gelu/Gleu")
    assert r.exit_code == 2 and "names no layer; did you mean 'enc.layer.1/aten::gelu/Gelu'" in r.output


def test_profile_lists_the_top_layers_and_sums_the_rest(write_ir, run_cli):
    b = IRBuilder()
    x = b.parameter("x", SHAPE, "f32")
    for _ in range(30):
        x = b.layer("Convert", "opset1", [x], {"destination_type": "f32"}, outputs=[(SHAPE, "f32")])
    b.result(x)
    path = write_ir(b)

    def layer_rows(out: str) -> int:
        table = out[out.index("id  "):out.index("by op type")]
        return sum(bool(re.match(r"\d+\s+\S+\s+[A-Za-z]+-\d+\s", line)) for line in table.splitlines())

    r = run_cli("run", path, "--profile")
    assert r.exit_code == 0 and layer_rows(r.output) == 20  # the default top
    assert re.search(r"\.\.\. 12 more layers not shown \([0-9.]+ ms, [0-9.]+%\); --top 0 shows all", r.output)
    assert layer_rows(run_cli("run", path, "--profile", "--top", "5").output) == 5
    full = run_cli("run", path, "--profile", "--top", "0").output
    assert layer_rows(full) == 32 and "not shown" not in full


def test_the_graph_picture_folds_constants_unless_all_nodes(write_ir, run_cli, tmp_path):
    b = IRBuilder()
    x = b.parameter("x", (4,), "f32")
    for i in range(5):
        w = b.layer("Convert", "opset1", [b.const(np.full((4,), i, np.float16))], {"destination_type": "f32"},
                    outputs=[((4,), "f32")])
        x = b.layer("Add", "opset1", [x, w], outputs=[((4,), "f32")])
    b.result(x)
    path = write_ir(b)
    r = run_cli("inspect", path, "--dot", tmp_path / "g.dot")
    nodes = re.findall(r"^\s+n\d+ \[label", (tmp_path / "g.dot").read_text(), re.MULTILINE)
    assert len(nodes) == 7  # Parameter, 5 Adds, Result
    assert "const 1: f32[4]" in (tmp_path / "g.dot").read_text()
    assert "10 constants folded into their readers, --all-nodes draws them" in r.output
    run_cli("inspect", path, "--dot", tmp_path / "all.dot", "--all-nodes")
    assert len(re.findall(r"^\s+n\d+ \[label", (tmp_path / "all.dot").read_text(), re.MULTILINE)) == 17


def test_an_npz_or_npy_given_as_an_argument_or_a_npy_as_inputs_gets_a_hint(write_ir, run_cli, save_npz, tmp_path):
    path = write_ir(clean())
    npz = save_npz(x=np.zeros(SHAPE, np.float32))
    r = run_cli("run", path, npz)
    assert r.exit_code == 2 and f"hint: inputs come with --inputs {npz}" in r.output
    np.save(tmp_path / "x.npy", np.zeros(SHAPE, np.float32))
    npy = str(tmp_path / "x.npy")
    r = run_cli("run", path, npy)
    assert r.exit_code == 2 and "hint: inputs come with --inputs IN.npz" in r.output and "np.savez('in.npz'" in r.output
    r = run_cli("run", path, "--inputs", npy)
    assert r.exit_code == 1 and "error[bad-input-file]" in r.output
    assert f"np.savez('in.npz', NAME=np.load('{npy}'))" in r.output


def test_inspect_json_without_shapes(write_ir, run_cli):
    r = run_cli("inspect", write_ir(clean()), "--format", "json")
    doc = json.loads(r.stdout)
    assert doc["layers"] == 3 and doc["ops"] == {"Convert-1": 1, "Parameter-1": 1, "Result-1": 1}
    assert doc["inputs"] == [{"name": "x", "tensor_names": ["x"], "type": "f32", "shape": "[2,6]", "inferred_type": "f32",
                              "inferred_shape": "[2,6]", "declared_matches_inferred": True}]
    assert doc["outputs"][0]["type"] == "f16" and doc["errors"] == 0


def test_an_input_shape_out_of_range_is_one_code_and_message_in_every_command(write_ir, run_cli):
    path = write_ir(_interval_model())
    for pin, why in (("x:8,6", "dim 0 is 8, outside the interval 1..4"), ("x:2,7", "dim 1 is 7, not 6"),
                     ("x:2", "rank 1 instead of 2")):
        lines = []
        for command in ("check", "run", "inspect"):
            r = run_cli(command, path, "--input-shape", pin)
            assert r.exit_code == 1
            (line,) = [line for line in r.output.splitlines() if "error[" in line]
            lines.append(line)
        assert lines[0] == lines[1] == lines[2], lines
        assert f"error[input-shape-mismatch] layer 0 \"x\" (Parameter-1): --input-shape {pin} does not fit" in lines[0]
        assert lines[0].endswith(f"declared [1..4,6]: {why}")


def _interval_model() -> IRBuilder:
    b = IRBuilder()
    b.result(b.layer("Convert", "opset1", [b.parameter("x", "1..4,6", "f32")], {"destination_type": "f32"},
                     outputs=[((-1, 6), "f32")]))
    return b


def test_findings_past_the_cap_are_counted_and_selected_with_their_code(write_ir, run_cli):
    b = IRBuilder()
    x = b.parameter("x", SHAPE, "f32")
    for _ in range(150):  # 150 independent layers that declare the wrong dims
        b.result(b.layer("Convert", "opset1", [x], {"destination_type": "f32"}, outputs=[((2, 7), "f32")]))
    path = write_ir(b)
    r = run_cli("check", path)
    assert r.exit_code == 1 and r.output.count("error[shape-mismatch]") == 100
    assert "error[more-findings] 200 more shape-mismatch findings not shown" in r.output
    stats = run_cli("check", path, "--statistics").output
    assert re.search(r"^300\s+shape-mismatch\s+error", stats, re.MULTILINE), stats  # the hidden ones count too
    r = run_cli("check", path, "--ignore", "shape-mismatch")
    assert r.exit_code == 0 and "more-findings" not in r.output


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_skip_non_ir_never_opens_a_fifo_or_follows_a_link_out_of_its_folder(tmp_path, run_cli):
    os.mkfifo(tmp_path / "pipe.xml")
    (tmp_path / "pom.xml").write_text(POM)
    (tmp_path / "sub").mkdir()
    os.symlink(tmp_path / "pom.xml", tmp_path / "sub" / "out.xml")
    proc = run_cli.subprocess("check", "--skip-non-ir", "pipe.xml", "sub/out.xml", cwd=str(tmp_path))
    assert proc.returncode == 1
    assert "error[not-regular-file]" in proc.stdout and "error[symlink-escape]" in proc.stdout


def test_what_a_missing_bin_stops_is_one_note(tmp_path, run_cli):
    xml, bin_path = _weighty().write(tmp_path / "m.xml")
    os.remove(bin_path)
    r = run_cli("check", xml, "-v")
    (note,) = [line for line in r.output.splitlines() if "note[skipped]" in line]
    assert "7 layers not checked: they depend on the layers of the missing-weights error (layer 1" in note


@pytest.mark.parametrize("root", ["Net", "NET", "nEt"])
def test_skip_non_ir_reads_the_root_as_the_reader_does(root, run_cli, tmp_path):
    """OpenVINO and irexec's reader take <Net> for IR: a broken one is a finding, not skipped."""
    (tmp_path / "model.xml").write_text(f"<{root} version='11'><layers><layer id='0'/></layers></{root}>")
    (tmp_path / "ns.xml").write_text("<x:net xmlns:x='urn:x' version='11'/>")  # in a namespace: no IR for either
    plain = run_cli("check", tmp_path / "model.xml")
    r = run_cli("check", tmp_path, "--skip-non-ir", "-v")
    assert plain.exit_code == 1 and r.exit_code == 1, r.output
    assert "skipped " + str(tmp_path / "model.xml") not in r.output and "model.xml" in r.output
    assert "skipped " + str(tmp_path / "ns.xml") + ": root element <net> is not <net> (namespace urn:x" in r.output
    assert "error[not-ir]" in run_cli("check", tmp_path / "ns.xml").output
