"""``irexec generate`` on hostile prompts and models: every problem a coded error,
never an internal one."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from irexec.model.builder import IRBuilder


def _lm(directory: Path, vocab: int) -> str:
    """logits[b, t, v] = input_ids + attention_mask + state: a stateful causal LM in shape."""
    b = IRBuilder()
    ids = b.parameter("input_ids", [-1, -1], "i64")
    mask = b.parameter("attention_mask", [-1, -1], "i64")
    state = b.layer("ReadValue", "opset6", [], {"variable_id": "past", "variable_type": "f32", "variable_shape": "1"})
    b.layer("Assign", "opset6", [state], {"variable_id": "past"})
    x = b.layer("Add", "opset1", [b.layer("Convert", "opset1", [ids], {"destination_type": "f32"}),
                                  b.layer("Convert", "opset1", [mask], {"destination_type": "f32"})])
    x = b.layer("Unsqueeze", "opset1", [b.layer("Add", "opset1", [x, state]), b.const(np.array([2], np.int64))])
    b.result(b.layer("Multiply", "opset1", [x, b.const(np.ones((1, 1, vocab), np.float32))], names=["logits"]),
             name="logits")
    xml, _ = b.write(directory / f"lm{vocab}.xml")
    return str(xml)


def _prompt(tmp_path: Path, **arrays: np.ndarray) -> Path:
    path = tmp_path / "prompt.npz"
    np.savez(path, **arrays)
    return path


def test_a_clean_model_generates(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    xml = _lm(tmp_path, 5)
    assert run_cli("check", xml).exit_code == 0
    r = run_cli("generate", xml, "-i", _prompt(tmp_path, input_ids=np.array([[1, 2]])), "-n", 3)
    assert r.exit_code == 0 and r.output.startswith("0 0 0\n"), r.output


def test_logits_with_an_empty_vocabulary(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    xml = _lm(tmp_path, 0)
    assert run_cli("check", xml).exit_code == 0  # an empty axis is a valid shape
    r = run_cli("generate", xml, "-i", _prompt(tmp_path, input_ids=np.array([[1, 2]])), "-n", 2)
    assert r.exit_code == 1 and "error[not-causal-lm]" in r.output and "no vocabulary" in r.output, r.output


@pytest.mark.parametrize(("ids", "mask"), [
    ([[1, 2]], np.ones((2, 2), np.int64)),  # a batch of 2 masks for 1 row
    ([[1, 2], [3, 4]], np.ones((1, 2), np.int64)),
    ([[1, 2]], np.int64(1)),  # a scalar
    ([[1, 2]], np.ones(2, np.int64)),
    ([[1, 2]], np.array([["a", "b"]])),  # not integers
], ids=["batch-2-for-1", "batch-1-for-2", "scalar", "1-d", "strings"])
def test_an_attention_mask_that_does_not_fit_input_ids(ids: list, mask: np.ndarray, tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    r = run_cli("generate", _lm(tmp_path, 5), "-i", _prompt(tmp_path, input_ids=np.array(ids), attention_mask=mask), "-n", 3)
    assert r.exit_code == 1 and "error[input-mismatch]" in r.output and "attention_mask" in r.output, r.output


@pytest.mark.parametrize("eos", [2**63, -(2**63) - 1, 10**30])
def test_an_eos_token_id_past_int64(eos: int, tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    r = run_cli("generate", _lm(tmp_path, 5), "-i", _prompt(tmp_path, input_ids=np.array([[1, 2]])), "-n", 3,
                "--eos-token-id", eos)
    assert r.exit_code == 2 and "error[bad-token-id]" in r.output, r.output


def test_an_eos_token_id_at_the_int64_limits_is_used(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    prompt = _prompt(tmp_path, input_ids=np.array([[1, 2]]))
    for eos in (2**63 - 1, -(2**63)):  # never produced: every token is generated
        r = run_cli("generate", _lm(tmp_path, 5), "-i", prompt, "-n", 3, "--eos-token-id", eos)
        assert r.exit_code == 0 and "3 new token(s)" in r.output, r.output
