"""The shipped real models (torchvision CNNs, tiny transformers converted by
OpenVINO's PyTorch frontend) checked and run end to end through the CLI,
compared with OpenVINO CPU's outputs at the README's tolerance.

A model that needs an op irexec does not implement yet is skipped, naming
the missing ops."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from irexec.ops.framework.registry import resolve

# beside the repository; IREXEC_REAL_MODELS points elsewhere (a checkout in another directory)
MODELS_DIR = Path(os.environ.get("IREXEC_REAL_MODELS") or Path(__file__).resolve().parents[1].parent / "shared" / "models")
MODELS = ("squeezenet1_1", "mobilenet_v3_small", "bert_tiny", "gpt2_tiny")
# The README's tolerance for whole models against OpenVINO CPU (f32).
RTOL, ATOL = "1e-4", "1e-5"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "irexec", *args], capture_output=True, text=True, timeout=600)


def _missing_ops(meta: dict) -> list[str]:
    missing = []
    for key in meta.get("ops", {}):
        op_type, _, opset = key.rpartition("-")
        if resolve(op_type, opset) is None:
            missing.append(f"{op_type} ({opset})")
    return missing


@pytest.mark.parametrize("name", MODELS)
def test_real_model(name: str, tmp_path: Path) -> None:
    d = MODELS_DIR / name
    if not (d / "model.xml").is_file():
        pytest.skip(f"{d} is absent (the real models are not shipped with this checkout)")
    meta = json.loads((d / "meta.json").read_text())
    missing = _missing_ops(meta)
    if missing:
        pytest.skip(f"{name} needs ops not implemented yet: {', '.join(missing)}")

    check = _cli("check", "--format", "json", str(d / "model.xml"))
    assert check.returncode == 0, check.stdout + check.stderr
    report = json.loads(check.stdout)
    text = json.dumps(report)
    for code in ("unsupported-op", "trusted"):
        assert code not in text, f"irexec check reports {code}: {text[:2000]}"

    out = tmp_path / "out.npz"
    run = _cli("run", str(d / "model.xml"), "--inputs", str(d / "inputs.npz"), "--output", str(out))
    assert run.returncode == 0, run.stdout + run.stderr
    # expected.npz names a nameless output "output_<k>", irexec after its Result layer: paired by position
    ours, expected = dict(np.load(out)), dict(np.load(d / "expected.npz"))
    cmp = _cli("run", str(d / "model.xml"), "--inputs", str(d / "inputs.npz"), "--compare", str(d / "expected.npz"),
               "--rtol", RTOL, "--atol", ATOL)
    assert cmp.returncode == 0, cmp.stdout + cmp.stderr
    assert ("paired by position" in cmp.stdout) == (not set(ours) & set(expected)), cmp.stdout


@pytest.mark.parametrize("name", MODELS)
def test_compare_defaults_fit_the_float_models(name: str, tmp_path: Path) -> None:
    """With no --atol or --rtol, each float model matches OpenVINO CPU's
    expected.npz under the f32 default, and one element moved by 2e-4 of the
    largest |value| is a mismatch that names the tolerance applied."""
    d = MODELS_DIR / name
    if not (d / "model.xml").is_file():
        pytest.skip(f"{d} is absent (the real models are not shipped with this checkout)")
    if _missing_ops(json.loads((d / "meta.json").read_text())):
        pytest.skip(f"{name} needs ops not implemented yet")
    args = ["run", str(d / "model.xml"), "--inputs", str(d / "inputs.npz"), "-q", "--compare"]
    ok = _cli(*args, str(d / "expected.npz"))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert re.search(r"atol=\S+ \(0.0001 x max\|ref\| \S+\), rtol=1e-05, the float32 default", ok.stdout), ok.stdout
    expected = dict(np.load(d / "expected.npz"))
    key = next(k for k, v in expected.items() if v.dtype == np.float32)
    moved = expected[key].copy()
    flat = moved.reshape(-1)
    flat[flat.size // 2] += np.float32(2e-4 * float(np.abs(flat).max()))
    np.savez(tmp_path / "moved.npz", **{**expected, key: moved})
    bad = _cli(*args, str(tmp_path / "moved.npz"))
    assert bad.returncode == 1, bad.stdout + bad.stderr
    line = next(l for l in bad.stderr.splitlines() if "error[compare-mismatch]" in l)
    assert "1 of " in line and "x max|ref|" in line and "rtol=1e-05, the float32 default" in line, line
