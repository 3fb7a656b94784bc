"""A fresh process pays only for what the model needs: `irexec run` and `check` of
a plain f32 model import neither ml_dtypes (0.1 to 0.6 s to import, for bf16 and
the low-bit types) nor any optional dependency; a bf16 model still imports it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from irexec.model.builder import IRBuilder

OPTIONAL = ("ml_dtypes", "openvino", "openvino_tokenizers", "plotly", "dask", "numba", "re2", "pcre2", "sentencepiece",
            "scipy", "onnx", "torch")

# Runs the CLI's main and prints, at exit, which of OPTIONAL the process imported.
_PROBE = """
import atexit, json, sys
optional = json.loads(sys.argv[1])
atexit.register(lambda: print("LOADED " + json.dumps([m for m in optional if m in sys.modules]), file=sys.__stderr__))
sys.argv = ["irexec", *sys.argv[2:]]
from irexec.cli import main
main()
"""


def _loaded(*args: str) -> tuple[list[str], subprocess.CompletedProcess]:
    proc = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(OPTIONAL), *args], capture_output=True,
                          text=True, env=dict(os.environ), timeout=300)
    line = [x for x in proc.stderr.splitlines() if x.startswith("LOADED ")][-1]
    return json.loads(line[len("LOADED "):]), proc


def _f32_model(tmp_path: Path) -> tuple[str, str]:
    """MatMul, Add, ReLU, MaxPool, ReduceMax, Convert: ops whose kernels once asked
    ml_dtypes about their dtype."""
    b = IRBuilder()
    x = b.parameter("x", "1,2,4,4", "f32")
    w = b.const(np.linspace(-1, 1, 16, dtype=np.float32).reshape(4, 4))
    y = b.layer("MatMul", "opset1", [x, w], {"transpose_a": "false", "transpose_b": "false"})
    y = b.layer("Add", "opset1", [y, b.const(np.float32(0.25))], {"auto_broadcast": "numpy"})
    y = b.layer("Relu", "opset1", [y], {})
    y = b.layer("MaxPool", "opset1", [y], {"strides": "2,2", "pads_begin": "0,0", "pads_end": "0,0",
                                          "kernel": "2,2", "rounding_type": "floor", "auto_pad": "explicit"})
    y = b.layer("ReduceMax", "opset1", [y, b.const(np.array([1], np.int64))], {"keep_dims": "false"})
    b.result(b.layer("Convert", "opset1", [y], {"destination_type": "i32"}), name="out")
    xml = str(tmp_path / "model.xml")
    b.write(xml)
    inputs = str(tmp_path / "inputs.npz")
    np.savez(inputs, x=np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4) - 10)
    return xml, inputs


def test_run_and_check_of_an_f32_model_import_no_optional_dependency(tmp_path: Path) -> None:
    xml, inputs = _f32_model(tmp_path)
    out = str(tmp_path / "out.npz")
    loaded, proc = _loaded("run", xml, "--inputs", inputs, "--output", out)
    assert proc.returncode == 0, proc.stderr
    assert loaded == [], f"`irexec run` of an f32 model imported {loaded}"
    assert np.load(out)["out"].dtype == np.int32
    loaded, proc = _loaded("check", xml)
    assert proc.returncode == 0, proc.stderr
    assert loaded == [], f"`irexec check` of an f32 model imported {loaded}"


def test_listing_every_op_imports_no_optional_dependency() -> None:
    loaded, proc = _loaded("ops")
    assert proc.returncode == 0, proc.stderr
    assert loaded == [], f"`irexec ops` imported {loaded}"


def test_a_bf16_model_still_reads_and_writes_bf16(tmp_path: Path) -> None:
    """The probe sees the import when a bf16 tensor appears (the test above is not
    blind), and bf16 inputs as npz files hold them (|V2) still work."""
    b = IRBuilder()
    x = b.parameter("x", "2,3", "bf16")
    b.result(b.layer("Relu", "opset1", [x], {}), name="y")
    xml = str(tmp_path / "model.xml")
    b.write(xml)
    bits = np.array([[0x3F80, 0xBF80, 0x4000], [0x0000, 0xC040, 0x3F00]], np.uint16)  # 1, -1, 2, 0, -3, 0.5
    inputs = str(tmp_path / "inputs.npz")
    np.savez(inputs, x=bits.view("V2"))
    out = str(tmp_path / "out.npz")
    loaded, proc = _loaded("run", xml, "--inputs", inputs, "--output", out)
    assert proc.returncode == 0, proc.stderr
    assert "ml_dtypes" in loaded
    got = np.load(out)["y"]
    assert got.dtype == np.dtype("V2")
    assert got.view(np.uint16).tolist() == [[0x3F80, 0x0000, 0x4000], [0x0000, 0x0000, 0x3F00]]
