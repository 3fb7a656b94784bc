"""Inputs NumPy or the file system cannot take are coded errors, never an
internal error: ranks past 64, shapes NumPy refuses, a .bin that cannot be
opened or mapped, tensor names longer than a zip entry name, a dump directory
that cannot be written, absurd option values, and an infinite reference."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import irexec
from irexec.base.errors import IRExecError, ModelError, UsageError
from irexec.model.builder import IRBuilder

ROOT = Path(__file__).resolve().parents[2]


def _base(directory: Path, dims: list[int] | None = None) -> Path:
    b = IRBuilder()
    x = b.parameter("x", dims or [2, 3], "f32")
    c = b.const(np.arange(6, dtype=np.int32).reshape(2, 3))
    b.result(x, name="x_out")
    b.result(b.layer("Convert", "opset1", [c], {"destination_type": "f32"}), name="converted")
    directory.mkdir(parents=True, exist_ok=True)
    xml, _ = b.write(directory / "model.xml")
    return Path(xml)


def _no_internal_error(result) -> None:  # type: ignore[no-untyped-def]
    assert "internal error" not in result.output and "Traceback" not in result.output, result.output


def _const_shape(tmp_path: Path, shape: str) -> Path:
    xml = _base(tmp_path)
    xml.write_text(xml.read_text().replace('shape="2, 3"', f'shape="{shape}"', 1))
    return xml


@pytest.mark.parametrize("shape", [", ".join(["1"] * 65), "0, 9223372036854775807", "9223372036854775807, 0, 2"])
def test_a_const_numpy_cannot_hold_is_shape_too_large(shape: str, tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    xml = _const_shape(tmp_path, shape)
    for command in ("check", "run"):
        result = run_cli(command, xml)
        _no_internal_error(result)
        assert result.exit_code == 1 and "error[shape-too-large]" in result.output, result.output
    assert "shape-too-large" in [d.code for d in irexec.check(str(xml)).diagnostics]


def test_a_rank_65_parameter_is_shape_too_large(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    xml = _base(tmp_path, [1] * 65)
    for command in ("check", "run"):
        result = run_cli(command, xml)
        _no_internal_error(result)
        assert result.exit_code == 1 and "error[shape-too-large]" in result.output and "65 dims" in result.output
    assert "shape-too-large" in [d.code for d in irexec.check(str(xml)).diagnostics]
    with pytest.raises(ModelError):
        irexec.load(str(xml))


def _without_file_privileges(*args: object) -> subprocess.CompletedProcess[str]:
    """The CLI without the capabilities that let root read any file whatever its mode."""
    prefix: list[str] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("root without setpriv(1) cannot drop CAP_DAC_OVERRIDE")
        prefix = [setpriv, "--bounding-set", "-dac_override,-dac_read_search"]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([*prefix, sys.executable, "-m", "irexec", *map(str, args)], capture_output=True, text=True,
                          timeout=120, env=env)


def test_a_bin_that_cannot_be_opened_is_cannot_read_file(tmp_path: Path) -> None:
    xml = _base(tmp_path)
    os.chmod(xml.with_suffix(".bin"), 0o000)
    try:
        result = _without_file_privileges("run", xml)
        assert "internal error" not in result.stderr and "Traceback" not in result.stderr, result.stderr
        assert result.returncode == 1, result.stdout + result.stderr
        assert "error[cannot-read-file]" in result.stderr and "Permission denied" in result.stderr
    finally:
        os.chmod(xml.with_suffix(".bin"), 0o644)


SYSFS_FILE = "/sys/devices/system/cpu/online"  # a regular file no process can memory-map (ENODEV)


@pytest.mark.skipif(not os.path.isfile(SYSFS_FILE), reason="needs sysfs")
def test_a_bin_that_cannot_be_mapped_is_cannot_read_file(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    xml = _base(tmp_path)
    result = run_cli("run", xml, "--weights", SYSFS_FILE)  # check reads no Const bytes here
    _no_internal_error(result)
    assert result.exit_code == 1 and "error[cannot-read-file]" in result.output, result.output
    with pytest.raises(ModelError) as info:
        irexec.run(irexec.load(str(xml), SYSFS_FILE), {"x": np.ones((2, 3), np.float32)})
    assert info.value.code == "cannot-read-file"


def _long_names(tmp_path: Path) -> Path:
    b = IRBuilder()
    x = b.parameter("x", [2], "f32")
    b.result(b.layer("Convert", "opset1", [x], {"destination_type": "f16"}, names=["T" * 70_000]))
    xml, _ = b.write(tmp_path / "model.xml")
    return Path(xml)


def test_a_tensor_name_longer_than_a_zip_entry_name_is_coded(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    xml = _long_names(tmp_path)
    out = tmp_path / "out.npz"
    result = run_cli("run", xml, "--output", out)
    _no_internal_error(result)
    assert result.exit_code == 1 and "error[tensor-name-too-long]" in result.output
    assert len(result.output) < 5000 and not out.exists() and os.listdir(tmp_path) == sorted(os.listdir(tmp_path))
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".irexec-")] == []
    b = IRBuilder()
    b.result(b.parameter("P" * 70_000, [2], "f32"))
    xml2, _ = b.write(tmp_path / "p.xml")
    result = run_cli("run", xml2, "--save-inputs", tmp_path / "in.npz")
    _no_internal_error(result)
    assert result.exit_code == 1 and "error[tensor-name-too-long]" in result.output


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs procfs, a directory nobody can write")
def test_a_dump_directory_that_cannot_be_written_is_cannot_write_output(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    xml = _base(tmp_path)
    result = run_cli("run", xml, "--dump", "/proc")
    _no_internal_error(result)
    assert result.exit_code == 1 and "error[cannot-write-output]" in result.output, result.output


def test_a_negative_seed_and_a_huge_layer_id_are_usage_errors(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    xml = _base(tmp_path)
    result = run_cli("run", xml, "--seed", "-1")
    _no_internal_error(result)
    assert result.exit_code == 2 and "bad-seed" in result.output
    result = run_cli("run", xml, "--stop-at", "9" * 5000)
    _no_internal_error(result)
    assert result.exit_code == 2 and "error[unknown-name]" in result.output and len(result.output) < 5000
    with irexec.Session(str(xml)) as s, pytest.raises(UsageError) as info:
        s.run(seed=-1)
    assert info.value.code == "bad-seed"


def test_an_infinite_reference_fails_at_any_tolerance(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    xml = _base(tmp_path)
    x = np.ones((2, 3), np.float32)
    np.savez(tmp_path / "in.npz", x=x)
    for ref in (np.inf, -np.inf):
        np.savez(tmp_path / "ref.npz", x_out=np.full((2, 3), ref, np.float32), converted=np.arange(6, dtype=np.float32).reshape(2, 3))
        for rtol in ("0", "1e-3", "1", "1e30"):
            result = run_cli("run", xml, "--inputs", tmp_path / "in.npz", "--compare", tmp_path / "ref.npz", "--rtol", rtol)
            assert result.exit_code == 1 and "FAILED" in result.output, (ref, rtol, result.output)
        report = irexec.compare({"x_out": x}, {"x_out": np.full((2, 3), ref, np.float32)}, rtol=1.0)
        assert not report.ok and report["x_out"].mismatches == 6
    # the same infinity on both sides still matches
    assert irexec.compare({"y": np.array([np.inf])}, {"y": np.array([np.inf])}, rtol=1.0).ok


def test_errors_are_irexec_errors() -> None:
    assert issubclass(ModelError, IRExecError)
