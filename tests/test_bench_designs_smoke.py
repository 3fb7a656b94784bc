"""bench_designs.py keeps working: each section runs and prints its contenders with
their ratios.  Never how fast anything is."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_designs.py"


@pytest.mark.parametrize("section, lines", [
    ("decode", ["== decode: the output projection", "f16 weight widened", "compressed product",
                "== decode: the 28 layer products", "cut in two over 2 threads"]),
    ("depthwise", ["== depthwise: MobileNet-v3-small's 11 layers", "two channel halves on two threads",
                   "a Numba kernel channels last"]),
    ("check", ["== check: reading a 26667-layer IR", "OpenVINO read_model", "bulk: parse + XSLT"]),
])
def test_a_section_runs_and_names_its_contenders(section: str, lines: list[str]) -> None:
    pytest.importorskip("numba")
    pytest.importorskip("openvino")
    proc = subprocess.run([sys.executable, str(BENCH), "--only", section, "--repeat", "1"], capture_output=True,
                          text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.startswith("host: ")
    for line in lines:
        assert line in proc.stdout, f"{line!r} missing from the output:\n{proc.stdout}"
    assert "/ floor" in proc.stdout and "/ irexec" in proc.stdout
