"""Debugging a model from the command line: --compare, --dump, --stop-at,
random inputs, --profile, progress and `inspect --dot/--svg`."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
from pathlib import Path

import ml_dtypes
import networkx as nx
import numpy as np
import pytest

from irexec.model.builder import IRBuilder
from irexec.ops.framework.registry import resolve


def _two_output_model(write_ir, shape="2,3") -> str:
    """x f32 -> to_f16 -> back (f32) -> Result "y";  x -> to_i64 -> Result "z"."""
    b = IRBuilder()
    x = b.parameter("x", shape, "f32")
    h = b.layer("Convert", "opset1", [x], {"destination_type": "f16"}, name="to_f16", names=["h"])
    y = b.layer("Convert", "opset1", [h], {"destination_type": "f32"}, name="back", names=["y"])
    z = b.layer("Convert", "opset1", [x], {"destination_type": "i64"}, name="to_i64", names=["z"])
    b.result(y, name="out_y")
    b.result(z, name="out_z")
    return write_ir(b)


def _expected(x: np.ndarray) -> dict[str, np.ndarray]:
    return {"y": x.astype(np.float16).astype(np.float32), "z": np.trunc(x).astype(np.int64)}


X = np.array([[0.1, -2.7, 3.5], [1e-3, 65504.0, -0.0]], np.float32)


def _no_temporaries(directory: Path) -> bool:
    return not any(p.name.startswith(".irexec-") for p in directory.rglob("*"))


# ------------------------------------------------------------------ --compare


def test_matching_reference_passes(write_ir, save_npz, run_cli):
    model = _two_output_model(write_ir)
    r = run_cli("run", model, "--inputs", save_npz(x=X), "--compare", save_npz("ref", **_expected(X)))
    assert r.exit_code == 0, r.output
    assert "PASSED: 2 output(s) match" in r.output
    # y only goes through Converts: exact; z is exact by its type
    assert "y: exact (atol=0, rtol=0), the graph only moves data; z: exact (atol=0, rtol=0), the int64 default" \
        in r.output, r.output


def test_altered_reference_names_output_worst_element_and_passing_tolerance(write_ir, save_npz, run_cli):
    model = _two_output_model(write_ir)
    ref = _expected(X)
    ref["y"][1, 0] += np.float32(0.25)  # the worst element
    ref["y"][0, 2] += np.float32(0.125)
    exact = ("--atol", "0", "--rtol", "0")
    r = run_cli("run", model, "--inputs", save_npz(x=X), "--compare", save_npz("ref", **ref), *exact)
    assert r.exit_code == 1
    lines = [l for l in r.output.splitlines() if "error[compare-mismatch]" in l]
    assert len(lines) == 1, r.output
    msg = lines[0]
    run_value, ref_value = _expected(X)["y"][1, 0], ref["y"][1, 0]
    assert "output 'y' (float32[2,3]): 2 of 6 elements" in msg
    assert f"worst at [1,0]: run {run_value!s}, reference {ref_value!s}" in msg
    assert "max abs error 0.25" in msg
    hint = re.search(r"--atol y:(\S+) \(with rtol 0\) or --rtol y:(\S+) \(with atol 0\)", msg)
    assert hint, msg
    assert float(hint.group(1)) == 0.25
    assert "FAILED: 1 of 2 output(s) differ" in r.output
    # the suggested tolerances really pass, and the other output needs none
    for option in ("--atol", "--rtol"):
        value = hint.group(1) if option == "--atol" else hint.group(2)
        again = run_cli("run", model, "--inputs", save_npz(x=X), "--compare", save_npz("ref", **ref), *exact, option,
                        f"y:{value}")
        assert again.exit_code == 0, again.output
    tight = run_cli("run", model, "--inputs", save_npz(x=X), "--compare", save_npz("ref", **ref), *exact, "--atol", "y:0.24")
    assert tight.exit_code == 1


def test_global_and_per_output_tolerances(write_ir, save_npz, run_cli):
    model = _two_output_model(write_ir)
    ref = _expected(X)
    ref["y"] = ref["y"] + np.float32(0.5)
    ref["z"] = ref["z"] + 1
    args = ["run", model, "--inputs", save_npz(x=X), "--compare", save_npz("ref", **ref)]
    assert run_cli(*args, "--atol", "1").exit_code == 0
    r = run_cli(*args, "--atol", "0.5", "--atol", "z:0.9")
    assert r.exit_code == 1 and "output 'z'" in r.output and "output 'y'" not in r.output.split("FAILED")[1]
    unknown = run_cli(*args, "--atol", "nope:1")
    assert unknown.exit_code == 2 and "error[unknown-name]" in unknown.output and "'nope'" in unknown.output
    bad = run_cli(*args, "--atol", "y:lots")
    assert bad.exit_code == 2 and "bad-tolerance" in bad.output
    assert run_cli("run", model, "--atol", "1").exit_code == 2  # tolerances without --compare


def test_missing_extra_dtype_and_shape_differences(write_ir, save_npz, run_cli):
    model = _two_output_model(write_ir)
    exp = _expected(X)
    r = run_cli("run", model, "--inputs", save_npz(x=X), "--compare",
                save_npz("ref", y=exp["y"], w=exp["y"]))
    assert r.exit_code == 1
    assert "error[compare-missing-output] output 'z'" in r.output
    assert "error[compare-extra-output] output 'w'" in r.output
    r = run_cli("run", model, "--inputs", save_npz(x=X), "--compare",
                save_npz("ref", y=exp["y"].astype(np.float64), z=exp["z"].reshape(3, 2)))
    assert r.exit_code == 1
    assert "error[compare-dtype-mismatch] output 'y': dtype float32 from the run but float64 in the reference" in r.output
    assert "error[compare-shape-mismatch] output 'z': shape [2,3] from the run but [3,2] in the reference" in r.output


def test_bf16_outputs_compare_with_a_savez_reference(write_ir, save_npz, run_cli):
    b = IRBuilder()
    x = b.parameter("x", [3], "f32")
    b.result(b.layer("Convert", "opset1", [x], {"destination_type": "bf16"}, names=["y"]))
    model = write_ir(b)
    x = np.array([1.0, np.nan, 3.3], np.float32)
    y = x.astype(ml_dtypes.bfloat16)
    assert run_cli("run", model, "--inputs", save_npz(x=x), "--compare", save_npz("ref", y=y)).exit_code == 0
    y[2] = ml_dtypes.bfloat16(3.0)
    r = run_cli("run", model, "--inputs", save_npz(x=x), "--compare", save_npz("ref", y=y))
    assert r.exit_code == 1 and "worst at [2]" in r.output


def test_compare_mismatch_in_a_real_process(write_ir, save_npz, run_cli):
    model = _two_output_model(write_ir)
    ref = _expected(X)
    ref["z"][0, 1] = 7
    p = run_cli.subprocess("run", model, "--inputs", save_npz(x=X), "--compare", save_npz("ref", **ref))
    assert p.returncode == 1, p.stdout + p.stderr
    assert "error[compare-mismatch] output 'z'" in p.stderr and "worst at [0,1]: run -2, reference 7" in p.stderr
    assert "--atol z:9" in p.stderr and "Traceback" not in p.stderr


# ------------------------------------------------------------------ --dump and --stop-at


def test_dump_writes_every_layer_loadable_with_plain_numpy(write_ir, save_npz, run_cli, tmp_path):
    model = _two_output_model(write_ir)
    dump = tmp_path / "layers"
    r = run_cli("run", model, "--inputs", save_npz(x=X), "--dump", dump)
    assert r.exit_code == 0, r.output
    index = json.loads((dump / "index.json").read_text())
    assert index["format"] == 1 and index["model"] == os.path.abspath(model)
    by_name = {e["name"]: e for e in index["layers"]}
    assert set(by_name) == {"x", "to_f16", "back", "to_i64"}  # Results have no output ports
    assert [e["step"] for e in index["layers"]] == list(range(4))
    h = by_name["to_f16"]
    assert h["file"] == f"{h['step']:04d}_to_f16.npz" and h["type"] == "Convert-1" and h["layer_id"] == 1
    assert h["outputs"] == [{"key": "1", "port": 1, "names": ["h"], "shape": [2, 3], "dtype": "float16",
                             "element_type": "f16"}]
    with np.load(dump / h["file"]) as data:
        np.testing.assert_array_equal(data["1"], X.astype(np.float16))
    with np.load(dump / by_name["to_i64"]["file"]) as data:
        np.testing.assert_array_equal(data["1"], _expected(X)["z"])
    assert sorted(p.name for p in dump.iterdir()) == sorted([e["file"] for e in index["layers"]] + ["index.json"])
    assert _no_temporaries(tmp_path)
    # dumping again replaces the earlier dump's files, and only those
    (dump / "notes.txt").write_text("mine")
    r = run_cli("run", model, "--inputs", save_npz(x=X), "--dump", dump, "--stop-at", "to_f16")
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in dump.iterdir()) == ["0000_x.npz", "0001_to_f16.npz", "index.json", "notes.txt"]


def test_dump_that_cannot_be_written_is_a_coded_error(write_ir, save_npz, run_cli, tmp_path, monkeypatch):
    model = _two_output_model(write_ir)
    taken = tmp_path / "a-file"
    taken.write_text("")
    r = run_cli("run", model, "--inputs", save_npz(x=X), "--dump", taken / "sub")
    assert r.exit_code == 1 and "error[cannot-write-output]" in r.output and "cannot create the dump directory" in r.output
    assert "Traceback" not in r.output

    real = np.lib.format.write_array

    def disk_full_after_the_first_layer(fp, array, *a, **k):  # type: ignore[no-untyped-def]
        if list((tmp_path / "d").glob("*.npz")):
            raise OSError(28, "No space left on device")
        real(fp, array, *a, **k)

    monkeypatch.setattr(np.lib.format, "write_array", disk_full_after_the_first_layer)
    r = run_cli("run", model, "--inputs", save_npz(x=X), "--dump", tmp_path / "d")
    assert r.exit_code == 1 and "error[cannot-write-output]" in r.output and "No space left on device" in r.output
    assert "Traceback" not in r.output and _no_temporaries(tmp_path)
    assert [e["name"] for e in json.loads((tmp_path / "d" / "index.json").read_text())["layers"]] == ["x"]


def test_stop_at_by_name_and_id(write_ir, save_npz, run_cli, tmp_path):
    model = _two_output_model(write_ir)
    out = tmp_path / "o.npz"
    r = run_cli("run", model, "--inputs", save_npz(x=X), "--stop-at", "to_f16", "-o", out, "--dump", tmp_path / "d")
    assert r.exit_code == 0, r.output
    assert "stopped at layer 1 'to_f16' (Convert-1)" in r.output
    with np.load(out) as data:
        assert list(data.files) == ["h"]
        np.testing.assert_array_equal(data["h"], X.astype(np.float16))
    index = json.loads((tmp_path / "d" / "index.json").read_text())
    assert [e["name"] for e in index["layers"]] == ["x", "to_f16"]  # nothing after the stop
    r = run_cli("run", model, "--inputs", save_npz(x=X), "--stop-at", "3", "-o", out)
    assert r.exit_code == 0, r.output
    with np.load(out) as data:
        np.testing.assert_array_equal(data["z"], _expected(X)["z"])


def test_stop_at_unknown_layer(write_ir, save_npz, run_cli):
    model = _two_output_model(write_ir)
    r = run_cli("run", model, "--inputs", save_npz(x=X), "--stop-at", "to_f61")
    assert r.exit_code == 2
    assert "error[unknown-name] --stop-at 'to_f61' names no layer; did you mean 'to_f16'" in r.output
    r = run_cli("run", model, "--inputs", save_npz(x=X), "--stop-at", "99")
    assert r.exit_code == 2 and "error[unknown-name]" in r.output and "(give a layer id, name, or a unique part of a name)" in r.output


# ------------------------------------------------------------------ random inputs


def test_random_inputs_are_reproducible_and_saved(write_ir, run_cli, tmp_path):
    b = IRBuilder()
    for name, et in (("f", "f32"), ("h", "f16"), ("bf", "bf16"), ("i", "i32"), ("u", "u8"), ("m", "boolean")):
        b.result(b.parameter(name, [50], et))
    model = write_ir(b)

    def generate(seed: str, name: str) -> dict[str, np.ndarray]:
        path = tmp_path / name
        r = run_cli("run", model, "--seed", seed, "--save-inputs", path)
        assert r.exit_code == 0, r.output
        assert f"random inputs (seed {seed}):" in r.output
        rows: dict[str, list[str]] = {}
        for line in r.output.splitlines()[1:]:  # the inputs table comes first
            rows.setdefault(line.split()[0], line.split())
        assert rows["f"] == ["f", "-", "float32", "[50]", "[-1,", "1)", "default"]
        assert rows["i"] == ["i", "-", "int32", "[50]", "[0,", "9]", "default"]
        with np.load(path) as data:
            return {k: data[k] for k in data.files}

    first, again, other = generate("0", "a.npz"), generate("0", "b.npz"), generate("1", "c.npz")
    assert all(np.array_equal(first[k], again[k]) for k in first)
    assert not np.array_equal(first["f"], other["f"])
    assert first["f"].dtype == np.float32 and -1 <= first["f"].min() and first["f"].max() <= 1
    assert np.abs(first["bf"].view(ml_dtypes.bfloat16).astype(np.float32)).max() <= 1
    assert first["i"].dtype == np.int32 and 0 <= first["i"].min() and first["i"].max() <= 9 and len(set(first["i"])) > 3
    assert first["u"].dtype == np.uint8 and first["m"].dtype == np.bool_ and 0 < first["m"].sum() < 50


def test_dynamic_dims_default_to_their_lower_bound_or_1(write_ir, run_cli, tmp_path):
    model = _two_output_model(write_ir, shape="2,?,3..4")
    out = tmp_path / "o.npz"
    r = run_cli("run", model, "-o", out)
    assert r.exit_code == 0, r.output
    [row] = [line for line in r.output.splitlines() if line.startswith("x ")]
    assert "[2,1,3] (dim 1 ? -> 1, dim 2 3..4 -> 3)" in row
    with np.load(out) as data:
        assert data["y"].shape == (2, 1, 3)
    r = run_cli("run", model, "--input-shape", "x:2,5,9")
    assert r.exit_code == 1 and "error[input-shape-mismatch]" in r.output and "dim 2 is 9, outside the interval 3..4" in r.output
    r = run_cli("run", model, "--input-shape", "x:[2,5,4]", "-o", out)
    assert r.exit_code == 0, r.output
    assert "[2,5,4] (--input-shape)" in r.output
    with np.load(out) as data:
        assert data["y"].shape == (2, 5, 4)
    assert run_cli("run", model, "--input-shape", "x:2,five,4").exit_code == 2
    inputs = tmp_path / "in.npz"
    np.savez(inputs, x=np.zeros((2, 1, 3), np.float32))
    assert run_cli("run", model, "--inputs", inputs, "--input-shape", "x:2,1,3").exit_code == 2


def test_input_shape_needed_for_a_dynamic_rank_and_found_where_the_graph_rules_the_default_out(write_ir, run_cli):
    r = run_cli("run", _two_output_model(write_ir, shape="..."))
    assert r.exit_code == 1 and "error[input-shape-needed]" in r.output and "has a dynamic rank" in r.output
    b = IRBuilder()
    x = b.parameter("x", "1,?", "f32")
    b.result(b.layer("Convert", "opset1", [x], {"destination_type": "f32"}, outputs=[((1, 5), "f32")], names=["y"]))
    r = run_cli("run", write_ir(b, name="pinned"))  # the default [1,1] does not fit; the declared 5 does
    assert r.exit_code == 0, r.output
    assert "[1,5] (dim 1 ? -> 5 (sizes that fit the graph))" in r.output


def test_random_gather_indices_out_of_range_do_not_crash(write_ir, run_cli):
    if resolve("Gather", "opset8") is None:
        pytest.skip("Gather-8 is not registered")
    b = IRBuilder()
    data = b.parameter("data", [3, 4], "f32")
    idx = b.parameter("indices", [20], "i64")
    b.result(b.layer("Gather", "opset8", [data, idx, b.const(np.array(0, np.int64))], {"batch_dims": 0}, names=["g"]))
    r = run_cli("run", write_ir(b), "--val-range", "indices:0,9")  # mostly beyond dim 0 (size 3)
    assert r.exit_code == 0, r.output
    assert "g       float32  [20,4]" in r.output


# ------------------------------------------------------------------ --profile, progress


def test_profile_table_sorted_by_time_with_medians(write_ir, save_npz, run_cli):
    model = _two_output_model(write_ir)
    r = run_cli("run", model, "--inputs", save_npz(x=X), "--profile", "--repeat", "3")
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    head = next(i for i, l in enumerate(lines) if l.split() == ["id", "name", "op", "output", "shape", "ms", "%"])
    rows = [l.split() for l in lines[head + 2: head + 8]]
    assert {row[1] for row in rows} == {"x", "to_f16", "back", "to_i64", "out_y", "out_z"}
    ms = [float(row[-2]) for row in rows]
    assert ms == sorted(ms, reverse=True)
    own = next(l.split() for l in lines if l.startswith("(irexec itself)"))  # the executor's share is a row too
    assert sum(float(row[-1]) for row in rows) + float(own[-1]) == pytest.approx(100, abs=0.5)
    assert ["1", "to_f16", "Convert-1", "[2,3]"] in [row[:4] for row in rows]
    m = re.search(r"^6 layers, ([0-9.]+) ms in layers \+ ([0-9.]+) ms irexec itself \(scheduling, freeing tensors\) "
                  r"= ([0-9.]+) ms a run \(median of 3 runs, after the first\)$", r.output, re.MULTILINE)
    assert m and float(m[1]) + float(m[2]) == pytest.approx(float(m[3]), abs=2e-3)
    assert re.search(r"^one-time work, first run only and not in the rows: [0-9.]+ ms", r.output, re.MULTILINE)
    assert run_cli("run", model, "--repeat", "0").exit_code == 2


def test_no_progress_bar_in_captured_output(write_ir, save_npz, run_cli, monkeypatch):
    import irexec.api.progress

    monkeypatch.setattr(irexec.api.progress, "MANY_LAYERS", 1)
    r = run_cli("run", _two_output_model(write_ir), "--inputs", save_npz(x=X))
    assert r.exit_code == 0 and "running" not in r.output and "\r" not in r.output


# ------------------------------------------------------------------ inspect --dot / --svg

_QUOTED = r'"((?:[^"\\]|\\.)*)"'


def _unquote(s: str) -> str:
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), s)


def parse_dot(text: str) -> tuple[nx.MultiDiGraph, dict[int, dict[str, str]]]:
    """Just enough of DOT to check what irexec writes: node and edge statements."""
    g = nx.MultiDiGraph()
    attrs: dict[int, dict[str, str]] = {}
    lines = text.splitlines()
    assert lines[0].startswith("digraph ") and lines[0].endswith("{") and lines[-1] == "}"
    for line in lines[1:-1]:
        if m := re.fullmatch(r"  n(\d+) -> n(\d+) \[(.*)\];", line):
            g.add_edge(int(m.group(1)), int(m.group(2)))
        elif m := re.fullmatch(r"  n(\d+) \[(.*)\];", line):
            nid = int(m.group(1))
            g.add_node(nid)
            attrs[nid] = {k: _unquote(v) for k, v in re.findall(r"(\w+)=" + _QUOTED, m.group(2))}
    return g, attrs


def _model_with_unknown_op(write_ir) -> str:
    b = IRBuilder()
    x = b.parameter("x", [2, 3], "f32")
    c = b.layer("Convert", "opset1", [x], {"destination_type": "f16"}, name='odd "name" \\ here')
    s = b.layer("Frobnicate", "opset1", [c, x], name="mystery", outputs=[([2, 3], "f16")])
    b.result(s)
    return write_ir(b)


def test_dot_output_structure(write_ir, run_cli, tmp_path):
    model = _model_with_unknown_op(write_ir)
    out = tmp_path / "g.dot"
    r = run_cli("inspect", model, "--dot", out)
    assert r.exit_code == 0, r.output
    g, attrs = parse_dot(out.read_text())
    assert sorted(g.nodes) == [0, 1, 2, 3]
    assert sorted(g.edges()) == [(0, 1), (0, 2), (1, 2), (2, 3)]
    assert attrs[1]["label"] == 'odd "name" \\ here\nConvert-1\nf16[2,3]'
    assert attrs[0]["label"] == "x\nParameter-1\nf32[2,3]"
    assert attrs[1]["fillcolor"] != attrs[0]["fillcolor"]  # io and convert families differ
    assert attrs[3]["fillcolor"] == attrs[0]["fillcolor"]
    mystery = attrs[2]
    assert mystery["label"].startswith("mystery\nFrobnicate/opset1\nf16[2,3]") and "not executable" in mystery["label"]
    assert "dashed" in mystery["style"] and mystery["color"] == "#ff4d4d"
    assert _no_temporaries(tmp_path)
    stdout = run_cli("inspect", model, "--dot", "-")
    assert stdout.exit_code == 0 and stdout.output == out.read_text()


def _fake_dot(bindir: Path, script: str) -> None:
    bindir.mkdir(exist_ok=True)
    exe = bindir / "dot"
    exe.write_text("#!/bin/sh\n" + script)
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)


def test_svg_through_graphviz_on_path(write_ir, run_cli, tmp_path):
    model = _model_with_unknown_op(write_ir)
    bindir = tmp_path / "bin"
    # a stand-in for Graphviz: keeps the DOT it was given, answers with a tiny SVG
    _fake_dot(bindir, 'while IFS= read -r line; do printf "%s\\n" "$line"; done > "${0%/*}/given.dot"\n'
                      "echo '<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>'\n")
    svg = tmp_path / "g.svg"
    r = run_cli("inspect", model, "--svg", svg, "--dot", tmp_path / "g.dot", env={"PATH": str(bindir)})
    assert r.exit_code == 0, r.output
    assert svg.read_text().startswith("<svg")
    assert (bindir / "given.dot").read_text() == (tmp_path / "g.dot").read_text()


def test_svg_without_graphviz_or_with_a_failing_one(write_ir, run_cli, tmp_path):
    model = _model_with_unknown_op(write_ir)
    empty = tmp_path / "empty"
    empty.mkdir()
    svg = tmp_path / "g.svg"
    r = run_cli("inspect", model, "--svg", svg, env={"PATH": str(empty)})
    assert r.exit_code == 1 and "error[graphviz-not-found]" in r.output and "not on PATH" in r.output
    assert not svg.exists()
    broken = tmp_path / "broken"
    _fake_dot(broken, 'echo "Error: syntax error in line 3" >&2\nexit 1\n')
    r = run_cli("inspect", model, "--svg", svg, env={"PATH": str(broken)})
    assert r.exit_code == 1 and "error[graphviz-failed]" in r.output and "syntax error in line 3" in r.output
    assert not svg.exists() and _no_temporaries(tmp_path)


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed")
def test_svg_with_real_graphviz(write_ir, run_cli, tmp_path):
    svg = tmp_path / "g.svg"
    r = run_cli("inspect", _model_with_unknown_op(write_ir), "--svg", svg)
    assert r.exit_code == 0, r.output
    assert "<svg" in svg.read_text() and "mystery" in svg.read_text()


def test_roll_against_numpy_with_dump_and_random_inputs(write_ir, run_cli, tmp_path):
    if resolve("Roll", "opset7") is None:
        pytest.skip("Roll-7 is not registered")
    b = IRBuilder()
    x = b.parameter("x", [4, 5], "i64")
    rolled = b.layer("Roll", "opset7", [x, b.const(np.array([1, -2], np.int64)), b.const(np.array([0, 1], np.int64))],
                     name="roll", names=["r"])
    b.result(rolled)
    model = write_ir(b)
    inputs, dump = tmp_path / "in.npz", tmp_path / "d"
    r = run_cli("run", model, "--seed", "5", "--save-inputs", inputs, "--dump", dump)
    assert r.exit_code == 0, r.output
    with np.load(inputs) as data:
        expected = np.roll(data["x"], (1, -2), axis=(0, 1))
    np.savez(tmp_path / "ref.npz", r=expected)
    assert run_cli("run", model, "--inputs", inputs, "--compare", tmp_path / "ref.npz").exit_code == 0
    index = json.loads((dump / "index.json").read_text())
    entry = next(e for e in index["layers"] if e["name"] == "roll")
    assert entry["type"] == "Roll-7"
    with np.load(dump / entry["file"]) as data:
        np.testing.assert_array_equal(data[entry["outputs"][0]["key"]], expected)


def test_profile_per_op_type(write_ir, save_npz, run_cli):
    r = run_cli("run", _two_output_model(write_ir), "--inputs", save_npz(x=X), "--profile")
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    head = next(i for i, l in enumerate(lines) if l.split() == ["op", "layers", "ms", "ms/layer", "%"])
    rows = [l.split() for l in lines[head + 2:] if l.strip() and " | Runtime: " not in l]  # the closing line
    own = [row for row in rows if row[0] == "(irexec"]  # the executor's own time: a row of its own
    rows = [row for row in rows if row[0] != "(irexec"]
    assert len(own) == 1
    ops = {row[0]: int(row[1]) for row in rows}
    assert ops["Convert-1"] == 3 and ops["Result-1"] == 2 and ops["Parameter-1"] == 1
    assert sum(float(row[-1]) for row in rows) + float(own[0][-1]) == pytest.approx(100, abs=0.5)
    ms = [float(row[2]) for row in rows]
    assert ms == sorted(ms, reverse=True)


def _run_on_a_terminal(args: list[str]) -> tuple[int, str]:
    """``python -m irexec`` with stderr on a pseudo-terminal; what it drew there."""
    import pty
    import subprocess
    import sys

    master, slave = pty.openpty()
    env = dict(os.environ,
               PYTHONPATH=os.pathsep.join(filter(None, [str(Path(__file__).resolve().parents[1]),
                                                        os.environ.get("PYTHONPATH")])))
    code = ("import sys, irexec.api.progress as p; p.MANY_LAYERS = 1; from irexec.cli import main; main(sys.argv[1:])")
    proc = subprocess.run([sys.executable, "-c", code, *args], stderr=slave, stdout=subprocess.DEVNULL, env=env,
                          timeout=120)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return proc.returncode, b"".join(chunks).decode(errors="replace")


def test_progress_on_a_terminal_names_the_layer_and_time(write_ir, save_npz):
    """With stderr on a terminal the status line counts layers, shows the elapsed
    time and the layer just run; -q turns it off."""
    model, inputs = _two_output_model(write_ir), save_npz(x=X)
    code, text = _run_on_a_terminal(["run", model, "--inputs", inputs])
    assert code == 0, text
    assert re.search(r"running \[#+\] 6/6 layers +[0-9.]+s", text) and "\r" in text, text
    assert re.search(r"(Parameter|Convert|Result)-1 ", text), text
    code, text = _run_on_a_terminal(["run", model, "--inputs", inputs, "-q"])
    assert code == 0 and "running" not in text, text
