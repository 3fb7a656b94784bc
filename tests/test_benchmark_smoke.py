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
