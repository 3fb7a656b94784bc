"""The benchmark script keeps working: its quick mode completes and reports
every case.  Only that it runs is checked here, never how fast anything is."""

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
    proc = subprocess.run([sys.executable, str(BENCH), "--quick"], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for name in CASES + SECTIONS:
        assert name in proc.stdout, f"{name!r} missing from the benchmark output:\n{proc.stdout}"
    assert "irexec --help" in proc.stdout
    assert "Traceback" not in proc.stderr
