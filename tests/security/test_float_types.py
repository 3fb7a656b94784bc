"""Every float type is a float to the NaN and infinity counters, ``--check-finite``,
the output table and the run report: the 8-bit floats too, whose NumPy dtypes
(ml_dtypes) are no NumPy floats."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from irexec.model.builder import IRBuilder

# destination type, an f32 input value, and what Convert makes of it
NON_FINITE = [
    ("f8e4m3", 1000.0, "nan"),  # past 448: NaN (the type has no infinity)
    ("f8e8m0", float("nan"), "nan"),
    ("f8e5m2", 1e6, "posinf"),
    ("bf16", float("-inf"), "neginf"),
    ("f16", 1e6, "posinf"),
    ("f32", float("nan"), "nan"),
]


def _convert(directory: Path, etype: str) -> str:
    b = IRBuilder()
    x = b.parameter("x", [3], "f32")
    b.result(b.layer("Convert", "opset1", [x], {"destination_type": etype}), name="y")
    xml, _ = b.write(directory / "model.xml")
    return str(xml)


@pytest.mark.parametrize(("etype", "value", "field"), NON_FINITE, ids=[c[0] for c in NON_FINITE])
def test_non_finite_values_are_seen_in_every_float_type(etype: str, value: float, field: str, tmp_path: Path,
                                                         run_cli) -> None:  # type: ignore[no-untyped-def]
    xml = _convert(tmp_path, etype)
    feeds = tmp_path / "in.npz"
    np.savez(feeds, x=np.array([value, 1.0, 2.0], np.float32))
    report = tmp_path / "report.json"
    result = run_cli("run", xml, "-i", feeds, "--report", report)
    assert result.exit_code == 0, result.output
    row = next(line.split() for line in result.output.splitlines() if line.startswith("y "))
    assert row[-2:] == (["1", "0"] if field == "nan" else ["0", "1"]), result.output
    (out,) = json.loads(report.read_text())["outputs"]
    assert out[field] == 1 and out["min"] == 1.0 and out["max"] == 2.0, out
    checked = run_cli("run", xml, "-i", feeds, "--check-finite")
    assert checked.exit_code == 1 and "error[non-finite]" in checked.output, checked.output
    assert "Traceback" not in checked.output


def test_a_float_without_nan_has_counters_and_a_range(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    xml = _convert(tmp_path, "f4e2m1")
    feeds = tmp_path / "in.npz"
    np.savez(feeds, x=np.array([1000.0, -0.5, 2.0], np.float32))  # 1000 saturates to 6
    result = run_cli("run", xml, "-i", feeds, "--check-finite")
    assert result.exit_code == 0, result.output
    row = next(line.split() for line in result.output.splitlines() if line.startswith("y "))
    assert row[-4:] == ["-0.5", "6", "0", "0"], result.output
