"""The benchmark script keeps working: its quick mode completes and reports
every case; and the commands that need no model start without the heavy
imports.  Only that is checked here, never how fast anything is."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_ops.py"

CASES = [
    "roll-1-axis",
    "roll-2-axes",
    "gather-axis1-perm",
    "gather-last-axis",
    "gather-batch_dims1",
    "revseq-b0-s1",
    "revseq-s0-b1",
]
SECTIONS = ["== ops", "== overhead", "== memory", "== coldstart"]


def test_quick_benchmark_completes_and_names_every_case() -> None:
    proc = subprocess.run([sys.executable, str(BENCH), "--quick"], capture_output=True, text=True, timeout=900,
                          check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for name in CASES + SECTIONS:
        assert name in proc.stdout, f"{name!r} missing from the benchmark output:\n{proc.stdout}"
    assert "irexec --help" in proc.stdout
    assert "Traceback" not in proc.stderr


def _imported_modules(*args: str) -> set[str]:
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "irexec", *args], capture_output=True, text=True, check=False,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return {line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}


def test_help_and_ops_start_without_the_heavy_imports() -> None:
    """What the cold-start section reports: `--help` loads none of networkx,
    lxml, ml_dtypes, numpy; `ops` needs numpy but not the graph or the XML."""
    help_mods = _imported_modules("--help")
    assert not help_mods & {"networkx", "lxml", "ml_dtypes", "numpy"}
    ops_mods = _imported_modules("ops")
    assert not ops_mods & {"networkx", "lxml"}


def test_model_benchmark_splits_a_run_into_its_shares(tmp_path: Path) -> None:
    """bench_models' split of a run: a MatMul counts as a BLAS product, a
    depthwise GroupConvolution as depthwise, the rest as other layers, and
    the four shares make up the whole run."""
    import importlib.util

    import numpy as np

    from irexec.api.load import load
    from irexec.model.builder import IRBuilder

    spec = importlib.util.spec_from_file_location("bench_models", BENCH.parent / "bench_models.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    b = IRBuilder()
    x = b.parameter("x", "1,8,6,6")
    conv = b.layer("GroupConvolution", "opset1", [x, b.const(np.ones((8, 1, 1, 3, 3), np.float32))],
                   {"strides": "1,1", "dilations": "1,1", "pads_begin": "1,1", "pads_end": "1,1"}, outputs=[((1, 8, 6, 6), "f32")])
    y = b.layer("MatMul", "opset1", [conv, b.const(np.ones((6, 6), np.float32))], {"transpose_a": "false", "transpose_b": "false"},
                outputs=[((1, 8, 6, 6), "f32")])
    b.result(b.layer("ReLU", "opset1", [y], outputs=[((1, 8, 6, 6), "f32")]))
    b.write(tmp_path / "m.xml")
    model = load(str(tmp_path / "m.xml"))
    assert [bench._category(model, lid) for lid in (conv.layer, y.layer)] == ["depthwise conv", "BLAS products"]
    shares = bench._shares(model, {"x": np.ones((1, 8, 6, 6), np.float32)}, 3)
    assert set(shares) == set(bench.SHARES) and all(v > 0 for v in shares.values())
    assert abs(sum(shares.values()) - 1) < 1e-9


def test_startup_benchmark_names_every_command() -> None:
    proc = subprocess.run([sys.executable, str(BENCH.parent / "bench_startup.py"), "--repeat", "1"], capture_output=True,
                          text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for name in ("import numpy", "irexec --help", "irexec ops", "irexec inspect", "irexec check", "irexec run"):
        assert any(line.startswith(name) for line in proc.stdout.splitlines()), proc.stdout
