"""The shipped stateful INT4 LLM (shared/models/smollm_int4_stateful): checked
with no finding, its two recorded steps through the CLI (--state-out then
--state-in) and the Session API against OpenVINO's outputs, greedy generation
reproducing OpenVINO's tokens exactly, and a run under a memory limit below
the f32 size of its weights.  Skipped when the model is not beside the
repository."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

MODELS_DIR = Path(os.environ.get("IREXEC_REAL_MODELS") or Path(__file__).resolve().parents[1].parent / "shared" / "models")
D = MODELS_DIR / "smollm_int4_stateful"
# OpenVINO CPU against an exact f32 evaluation: about 1e-4 of the largest |logit| (12.7)
RTOL, ATOL = 1e-4, 2e-4

pytestmark = pytest.mark.skipif(not (D / "model.xml").is_file(), reason=f"{D} is absent")


def _cli(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "irexec", *map(str, args)], capture_output=True, text=True, timeout=600)


def test_checks_with_no_finding():
    r = _cli("check", "--format", "json", D / "model.xml")
    assert r.returncode == 0, r.stdout + r.stderr
    (found,) = json.loads(r.stdout)["files"]
    assert found["diagnostics"] == [] and found["layers"] == 873


def test_two_cli_invocations_reproduce_the_recorded_steps(tmp_path):
    state = tmp_path / "state.npz"
    for k, extra in ((0, ("--state-out", state)), (1, ("--state-in", state, "--state-out", tmp_path / "state2.npz"))):
        r = _cli("run", D / "model.xml", "--inputs", D / f"inputs_step{k}.npz", *extra,
                 "--compare", D / f"expected_step{k}.npz")  # the default tolerances fit OpenVINO's logits
        assert r.returncode == 0, r.stdout + r.stderr
        assert "PASSED" in r.stdout
    meta = json.loads((D / "meta.json").read_text())
    with np.load(tmp_path / "state2.npz") as s:
        assert sorted(s.files) == sorted(meta["variables"])
        assert all(s[v].shape == (1, 3, 33, 64) for v in s.files)


def test_session_reproduces_the_recorded_steps_and_a_limit_below_the_weights_still_runs():
    import irexec

    steps = [(dict(np.load(D / f"inputs_step{k}.npz")), np.load(D / f"expected_step{k}.npz")["logits"]) for k in (0, 1)]
    # default limit (decompressed weights kept), then 150 MB: below the 170 MB of f32 weights
    for limit in (None, 150 * 10**6):
        with irexec.Session(str(D / "model.xml"), max_memory=limit) as s:
            for feeds, expected in steps:
                np.testing.assert_allclose(s.run(feeds)["logits"], expected, rtol=RTOL, atol=ATOL)
            s.reset_state()
            np.testing.assert_allclose(s.run(steps[0][0])["logits"], steps[0][1], rtol=RTOL, atol=ATOL)


def test_generate_reproduces_openvinos_greedy_tokens(tmp_path):
    out = tmp_path / "tokens.npy"
    reference = np.load(D / "greedy_tokens.npy")
    r = _cli("generate", D / "model.xml", "--inputs", D / "inputs_step0.npz", "--max-new-tokens", 16, "--output", out,
             "--compare", D / "greedy_tokens.npy")
    assert r.returncode == 0, r.stdout + r.stderr
    np.testing.assert_array_equal(np.load(out), reference)
    assert " ".join(map(str, reference[0, 32:])) in r.stdout
