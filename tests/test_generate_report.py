"""`irexec generate` reports as GenAI's benchmark does, writes --report JSON
valid against its schema, says on its FAILED line when the lengths differ, and
`run` names --state-in when a decode step's inputs come without a state."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
LLM = ROOT / "examples" / "tiny-llm"
SCHEMA = json.loads((ROOT / "schemas" / "generate-report.schema.json").read_text())


def test_generate_prints_the_measurements_and_writes_a_valid_report(run_cli, tmp_path):
    out = tmp_path / "gen.json"
    r = run_cli.subprocess("generate", LLM / "model.xml", "-i", LLM / "prompt.npz", "-n", "8",
                           "--compare", LLM / "greedy_tokens.npy", "--report", out)
    assert r.returncode == 0, r.stdout + r.stderr
    for label in ("Time to first token:", "Decode:", "Overall:", "Peak memory:"):
        assert any(line.startswith(label) for line in r.stdout.splitlines()), r.stdout
    doc = json.loads(out.read_text())
    jsonschema.Draft202012Validator(SCHEMA).validate(doc)
    m = doc["metrics"]
    assert doc["ok"] and doc["new_tokens"] == 8 and len(m["decode_seconds"]) == 7
    assert m["decode_tokens_per_second"] == 7 / sum(m["decode_seconds"])
    assert m["overall_tokens_per_second"] == 8 / (m["ttft_seconds"] + sum(m["decode_seconds"]))
    assert m["peak_memory_bytes"] > 1 << 20
    assert doc["tokens"] == np.load(LLM / "greedy_tokens.npy").tolist()



def test_an_export_folder_writes_the_same_report(run_cli, tmp_path):
    pytest.importorskip("pcre2")
    folder, out = ROOT / "examples" / "tiny-export", tmp_path / "gen.json"
    r = run_cli.subprocess("generate", folder, "--prompt", "The quick brown fox", "-n", "8",
                           "--compare", folder / "expected_text.txt", "--report", out)
    assert r.returncode == 0, r.stdout + r.stderr
    assert any(line.startswith("Time to first token:") for line in r.stderr.splitlines()), r.stderr
    doc = json.loads(out.read_text())
    jsonschema.Draft202012Validator(SCHEMA).validate(doc)
    assert doc["ok"] and doc["new_tokens"] == 8 and doc["prompt"] == "" and doc["comparison"]["passed"]
    bad = tmp_path / "other.txt"
    bad.write_text("something else")
    r = run_cli.subprocess("generate", folder, "--prompt", "The quick brown fox", "-n", "8", "--compare", bad,
                           "--report", out)
    doc = json.loads(out.read_text())
    assert r.returncode == 1 and not doc["ok"] and "differs" in doc["comparison"]["detail"]

def test_a_reference_of_another_length_says_so_first(run_cli):
    r = run_cli.subprocess("generate", LLM / "model.xml", "-i", LLM / "prompt.npz", "-n", "3",
                           "--compare", LLM / "greedy_tokens.npy")
    assert r.returncode == 1
    failed = next(line for line in r.stdout.splitlines() if line.startswith("FAILED"))
    want = np.load(LLM / "greedy_tokens.npy").shape[1]
    assert "tokens per row (prompt " in failed and f"where it has {want}" in failed, failed


def test_a_decode_step_without_its_state_names_state_in(run_cli, tmp_path):
    r = run_cli.subprocess("run", LLM / "model.xml", "--inputs", LLM / "inputs_step1.npz", "-q")
    # the mask holds 7 positions, the empty cache none: the run fails, and the note says why
    assert "note: position_ids start at" in r.stderr and "--state-in" in r.stderr
    state = tmp_path / "s.npz"
    assert run_cli.subprocess("run", LLM / "model.xml", "--inputs", LLM / "inputs_step0.npz", "--state-out", state,
                              "-q").returncode == 0
    chained = run_cli.subprocess("run", LLM / "model.xml", "--inputs", LLM / "inputs_step1.npz", "--state-in", state,
                                 "-q", "--compare", LLM / "expected_step1.npz")
    assert chained.returncode == 0 and "note:" not in chained.stderr
