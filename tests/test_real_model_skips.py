"""A run without the real models says, at its end, how many tests that skipped
and which variable brings them in."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_summary_counts_the_real_model_skips(tmp_path):
    env = {**os.environ, "IREXEC_REAL_MODELS": str(tmp_path / "none")}
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_smollm_stateful.py"],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    line = next(l for l in r.stdout.splitlines() if "real-model test" in l)
    skipped = int(r.stdout.strip().splitlines()[-1].split()[0])
    assert line.startswith(f"{skipped} real-model tests skipped: ") and "set IREXEC_REAL_MODELS" in line
