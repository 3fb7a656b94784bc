"""The real command line in a child process whose address space is capped (RLIMIT_AS)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_capped(cap: int, *args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m irexec ARGS`` with this tree's irexec, one BLAS thread, the fold cache released,
    and at most ``cap`` bytes of address space; skips where RLIMIT_AS is not Linux's."""
    if sys.platform != "linux":
        pytest.skip("caps the child's address space with RLIMIT_AS")
    import resource

    def capped() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    full = dict(os.environ, PYTHONPATH=str(ROOT), IREXEC_RETAIN_MEMORY="0", OPENBLAS_NUM_THREADS="1",
                OMP_NUM_THREADS="1", IREXEC_THREADS="1", **(env or {}))
    return subprocess.run([sys.executable, "-m", "irexec", *map(str, args)], capture_output=True, text=True,
                          timeout=600, env=full, preexec_fn=capped)
