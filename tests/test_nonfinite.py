"""NaN and infinity are visible: the run table counts them per output, and
``--check-finite`` ends the run at the first layer that makes one, naming the
layer and what its inputs held."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import irexec
from irexec.api.finite import NonFiniteError
from irexec.model.builder import IRBuilder

X = np.array([[1, -2, 3, 0], [5, 6, 7, 8]], np.float32)
Y = np.array([[1, 1, 1, 0], [2, 0, 2, 2]], np.float32)  # 0/0 is NaN at [0,3], 6/0 is +inf at [1,1]


def _ratio_model(write_ir) -> str:  # type: ignore[no-untyped-def]
    """x / y -> Result "ratio";  log(x / y) -> ReLU -> Result "clean" (ReLU turns NaN into 0)."""
    b = IRBuilder()
    x = b.parameter("x", [2, 4], "f32")
    y = b.parameter("y", [2, 4], "f32")
    d = b.layer("Divide", "opset1", [x, y], {}, name="ratio", names=["ratio"])
    log = b.layer("Log", "opset1", [d], {}, name="log_of_ratio", names=["log"])
    b.result(d, name="out_ratio")
    b.result(b.layer("ReLU", "opset1", [log], {}, name="relu", names=["clean"]), name="out_clean")
    return write_ir(b)


def _rows(output: str) -> dict[str, list[str]]:
    lines = output.splitlines()
    head = next(i for i, l in enumerate(lines) if l.split()[:1] == ["output"])
    assert lines[head].split() == ["output", "dtype", "shape", "min", "max", "nan", "inf"]
    rows = {}
    for line in lines[head + 2:]:
        if not line.strip():
            break
        cells = line.split()
        rows[cells[0]] = cells
    return rows


def test_the_run_table_counts_nan_and_inf_per_output(write_ir, save_npz, run_cli) -> None:  # type: ignore[no-untyped-def]
    model = _ratio_model(write_ir)
    r = run_cli("run", model, "--inputs", save_npz(x=X, y=Y))
    assert r.exit_code == 0, r.output
    rows = _rows(r.output)
    # min and max skip NaN (and -2 is the smallest value); the counts stand beside them
    assert rows["ratio"] == ["ratio", "float32", "[2,4]", "-2", "inf", "1", "1"]
    assert rows["clean"][-2:] == ["0", "1"]  # ReLU(log(NaN)) is 0, ReLU(log(inf)) stays inf


def test_integer_outputs_have_no_nan_column(write_ir, save_npz, run_cli) -> None:  # type: ignore[no-untyped-def]
    b = IRBuilder()
    x = b.parameter("x", [3], "i32")
    b.result(b.layer("Negative", "opset1", [x], {}, name="neg", names=["neg"]))
    r = run_cli("run", write_ir(b), "--inputs", save_npz(x=np.array([1, 2, 3], np.int32)))
    assert _rows(r.output)["neg"][-2:] == ["-", "-"]


def test_check_finite_fails_at_the_first_layer_naming_it_and_its_inputs(write_ir, save_npz, run_cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    model = _ratio_model(write_ir)
    out = tmp_path / "out.npz"
    r = run_cli.subprocess("run", model, "--inputs", save_npz(x=X, y=Y), "--check-finite", "--output", out)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "Traceback" not in r.stderr
    (line,) = [l for l in r.stderr.splitlines() if "error[" in l]
    xml_line = next(i for i, l in enumerate(Path(model).read_text().splitlines(), 1) if 'name="ratio"' in l)
    assert line.startswith(f"{model}:{xml_line}: error[non-finite] layer 2 \"ratio\" (Divide-1) output port 2: "), line
    assert "float32[2,4] in [-2, 4] holds 1 NaN, 1 +inf of 8 values" in line
    assert "port 0 <- layer 0 'x' (Parameter-1): float32[2,4] in [-2, 8]" in line
    assert "port 1 <- layer 1 'y' (Parameter-1): float32[2,4] in [0, 2]" in line
    assert not out.exists()  # nothing written for a failed run
    # without the flag the same run passes: the final "clean" output hides the NaN
    assert run_cli("run", model, "--inputs", save_npz(x=X, y=Y)).exit_code == 0


def test_check_finite_on_a_finite_run_changes_nothing(write_ir, save_npz, run_cli) -> None:  # type: ignore[no-untyped-def]
    model = _ratio_model(write_ir)
    feeds = save_npz(x=np.abs(X) + 1, y=np.abs(Y) + 1)
    plain, checked = run_cli("run", model, "--inputs", feeds), run_cli("run", model, "--inputs", feeds, "--check-finite")
    def body(output: str) -> list[str]:  # all but the closing line, whose runtime and command differ
        return output.splitlines()[:-1]

    assert checked.exit_code == 0 and body(checked.output) == body(plain.output)
    assert checked.output.splitlines()[-1].startswith("PASSED | Runtime: ")


def test_a_nan_in_an_input_is_found_at_its_parameter(write_ir, save_npz, run_cli) -> None:  # type: ignore[no-untyped-def]
    model = _ratio_model(write_ir)
    x = X.copy()
    x[1, 2] = -np.inf
    r = run_cli("run", model, "--inputs", save_npz(x=x, y=np.ones_like(Y)), "--check-finite")
    assert r.exit_code == 1
    assert re.search(r'error\[non-finite\] layer 0 "x" \(Parameter-1\) output port 0: .* holds 1 -inf of 8 values.*'
                     r"inputs: none \(a model input or a constant\)", r.output), r.output


def test_the_api_raises_a_coded_error_with_the_numbers(write_ir) -> None:  # type: ignore[no-untyped-def]
    with irexec.Session(_ratio_model(write_ir)) as s:
        assert s.run({"x": X, "y": Y}).outputs["clean"].min() == 0
        with pytest.raises(NonFiniteError) as info:
            s.run({"x": X, "y": Y}, check_finite=True)
    (d,) = info.value.diagnostics
    assert (d.code, d.layer_name, d.op, d.port, d.port_kind) == ("non-finite", "ratio", "Divide-1", 2, "output")
    assert d.values["output"]["nan"] == 1 and d.values["output"]["posinf"] == 1
    assert [(i["from_layer_name"], i["min"], i["max"]) for i in d.values["inputs"]] == [("x", -2.0, 8.0), ("y", 0.0, 2.0)]
