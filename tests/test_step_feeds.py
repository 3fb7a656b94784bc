"""The decode steps' built inputs, made once per generation (api/generate/step_feeds.py), equal
step by step, value and type, what ``decode_value`` builds from the step before, for every
family and the input types a model may declare; and `irexec generate` gives OpenVINO's greedy
tokens through them on a batch with left padding."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from irexec.api.generate.decode_inputs import Family, decode_value, prefill_value
from irexec.api.generate.step_feeds import StepFeeds

FAMILIES = [Family("kv-cache"), Family("ssm", 4), Family("hybrid", 4), Family("seq2seq", None, "whisper")]


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.name)
@pytest.mark.parametrize("dtype", [np.int64, np.int32])
@pytest.mark.parametrize("batch", [1, 3])
def test_every_step_equals_decode_value(family: Family, dtype: type, batch: int) -> None:
    prompt, steps = 5, 9
    ids = np.arange(batch * prompt).reshape(batch, prompt)
    mask = np.ones((batch, prompt), np.int64)
    mask[-1, :2] = 0  # the last row left-padded
    roles = ["attention_mask", "position_ids", "beam_idx"] + (["cache_position"] if family.name != "kv-cache" else [])
    if family.name == "seq2seq":
        roles.append("encoder_hidden_states")
    given = {"attention_mask": mask, "encoder_hidden_states": np.zeros((batch, 3, 2), np.float32)}
    prefill = {r: (given[r] if r in given else prefill_value(r, family, ids, given)).astype(
        dtype if r != "encoder_hidden_states" else np.float32) for r in roles}

    def typed(role: str, value: np.ndarray) -> np.ndarray:
        return value if role == "encoder_hidden_states" else value.astype(dtype)

    made = StepFeeds(roles, family, batch, prompt, steps, typed)
    last, expected_last = dict(prefill), dict(prefill)
    for step in range(1, steps + 1):
        got = made.feeds(step, last)
        expected = {r: typed(r, decode_value(r, family, expected_last[r], batch, prompt + step)) for r in roles}
        for r in roles:
            assert got[r].dtype == expected[r].dtype and got[r].shape == expected[r].shape, (step, r)
            np.testing.assert_array_equal(got[r], expected[r], err_msg=f"step {step}, {r}")
        last, expected_last = got, expected


def test_positions_of_three_rows_per_token_count_on() -> None:
    """Position ids of rank 3 (a VLM's rotary sections: [3, batch, tokens]) grow on their last axis."""
    family = Family("kv-cache")
    positions = np.broadcast_to(np.arange(6, dtype=np.int64), (3, 2, 6)).copy()
    made = StepFeeds(["position_ids"], family, 2, 6, 4, lambda role, value: value)
    last = {"position_ids": positions}
    for step in range(1, 5):
        got = made.feeds(step, last)["position_ids"]
        np.testing.assert_array_equal(got, decode_value("position_ids", family, last["position_ids"], 2, 6 + step))
        last = {"position_ids": got}


def _ov_greedy_padded(path: str, ids: np.ndarray, mask: np.ndarray, new_tokens: int) -> np.ndarray:
    """OpenVINO's greedy loop on a left-padded prompt, as optimum-intel feeds it: positions
    count the tokens attended, the mask gains a column of ones per step."""
    import openvino as ov

    request = ov.Core().compile_model(path, "CPU", {"INFERENCE_PRECISION_HINT": "f32"}).create_infer_request()
    batch = ids.shape[0]
    positions = np.where(mask == 0, 1, np.cumsum(mask, -1) - 1)
    feeds = {"input_ids": ids, "attention_mask": mask, "position_ids": positions, "beam_idx": np.arange(batch, dtype=np.int32)}
    tokens = ids
    for _ in range(new_tokens):
        nxt = request.infer(feeds)["logits"][:, -1].argmax(-1).astype(np.int64)[:, None]
        tokens = np.concatenate([tokens, nxt], 1)
        mask = np.concatenate([mask, np.ones((batch, 1), np.int64)], 1)
        positions = positions[:, -1:] + 1
        feeds = {"input_ids": nxt, "attention_mask": mask, "position_ids": positions,
                 "beam_idx": np.arange(batch, dtype=np.int32)}
    return tokens


def test_generate_of_a_left_padded_batch_matches_openvino(tmp_path: Path, save_npz, run_cli) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("openvino")
    from stateful_models import save, tiny_lm

    path = save(tiny_lm(), tmp_path)
    ids = np.array([[5, 7, 9, 11, 13], [0, 0, 3, 4, 8]], np.int64)
    mask = np.array([[1, 1, 1, 1, 1], [0, 0, 1, 1, 1]], np.int64)
    want = _ov_greedy_padded(path, ids, mask, 12)
    out = tmp_path / "tokens.npy"
    r = run_cli("generate", path, "--inputs", save_npz("prompt", input_ids=ids, attention_mask=mask),
                "--max-new-tokens", 12, "--output", out)
    assert r.exit_code == 0, r.output
    np.testing.assert_array_equal(np.load(out), want)
