"""bench_targets.py keeps working: its quick mode completes and names the host,
every section and every target.  Never how fast anything is."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "benchmarks" / "bench_targets.py"
MODELS = next((p / "shared" / "models" for p in REPO.parents if (p / "shared" / "models").is_dir()), None)
LLM = MODELS / "smollm_int4_stateful" if MODELS is not None and (MODELS / "smollm_int4_stateful").is_dir() else None
CNN = MODELS / "squeezenet1_1" if MODELS is not None and (MODELS / "squeezenet1_1" / "inputs.npz").is_file() else None


def test_quick_targets_run_names_every_target() -> None:
    pytest.importorskip("openvino")
    only = "roll-example-1" + (",smollm" if LLM is not None else "") + (",squeezenet1_1" if CNN is not None else "")
    proc = subprocess.run([sys.executable, str(BENCH), "--quick", "--only", only], capture_output=True, text=True,
                          timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    assert out.startswith("host: ") and "load average" in out and "\nversions: Python " in out
    for line in ["roll-example-1", "== check of a", "fresh process", "== targets", "examples apart (1, not a target)",
                 "  examples (1): median", "  examples: worst", "check <= 1x read_model", "the same file unchanged",
                 "tiny `irexec run` in a fresh process <= 0.5 s"]:
        assert line in out, f"{line!r} missing from the output:\n{out}"
    if CNN is not None:  # the targets are over the real models alone, the example apart
        for line in ["whole-model median <= 2x OpenVINO (1 real model)", "whole-model worst <= 3x OpenVINO"]:
            assert line in out, f"{line!r} missing from the output:\n{out}"
        assert "(roll-example-1)" not in out.split("whole-model worst", 1)[1].splitlines()[0]
    if LLM is not None:
        for line in ["prefill <= 1.5x", "decode <= 2x", "peak RSS <= 1.5x", "generate tokens/s"]:
            assert line in out, f"{line!r} missing from the output:\n{out}"
        if importlib.util.find_spec("openvino_genai") is not None:  # called in turn: the median ratio and its spread
            line = next(v for v in out.split("== targets", 1)[1].splitlines() if "GenAI LLMPipeline" in v)
            assert re.search(r"GenAI LLMPipeline\s+\d+\.\d\dx \(\d+\.\d\d-\d+\.\d\dx; greedy loop: \d+\.\d\dx\)", line), line
            assert "irexec / GenAI per round: median" in out
    verdicts = [line for line in out.split("== targets", 1)[1].splitlines()[1:] if line.strip()]
    assert verdicts and all(v.rstrip().endswith(("met", "NOT MET", "n/a")) for v in verdicts)
    assert "Traceback" not in proc.stderr
