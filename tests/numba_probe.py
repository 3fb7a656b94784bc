"""``irexec run`` in a fresh process that reports whether Numba was imported:
the compiled kernels must load only when a layer takes them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

_PROBE = """
import atexit, sys
atexit.register(lambda: print("NUMBA " + str("numba" in sys.modules), file=sys.__stderr__))
sys.argv = ["irexec", *sys.argv[1:]]
from irexec.cli import main
main()
"""


def run_reporting_numba(xml: str | Path, inputs: str | Path, out: str | Path, jit: str) -> str:
    """``irexec run XML --inputs INPUTS --output OUT`` with IREXEC_JIT=jit; "NUMBA True" or "NUMBA False"."""
    proc = subprocess.run([sys.executable, "-c", _PROBE, "run", str(xml), "--inputs", str(inputs), "--output", str(out)],
                          capture_output=True, text=True, env={**os.environ, "IREXEC_JIT": jit}, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return [x for x in proc.stderr.splitlines() if x.startswith("NUMBA ")][-1]
