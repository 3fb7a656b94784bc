"""The steps of a diff: one call for a stateless model; for a stateful causal LM
(``--steps N``) the prefill then N decode steps, each fed the reference's greedy
token, so both sides always see the same inputs and only their arithmetic differs."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ...ir.records import Layer
from ..generate import causal_lm
from ..session import Session


def greedy_steps(session: Session, prefill: Mapping[str, np.ndarray], decode_steps: int
                 ) -> tuple[list[dict[str, np.ndarray]], list[dict[str, np.ndarray]], list[np.ndarray], str]:
    """Run the prefill and ``decode_steps`` decode steps on the reference from a reset
    state: (each step's feeds, each step's outputs, each step's greedy token [batch], the
    logits' output key).  Decode inputs are built as ``irexec generate`` builds them."""
    lm = causal_lm(session)
    session.reset_state()
    feeds = {k: np.asarray(v) for k, v in prefill.items()}
    all_feeds, all_outputs, tokens = [], [], []
    ids = np.asarray(feeds["input_ids"])
    batch = ids.shape[0]
    for _ in range(decode_steps + 1):
        all_feeds.append(feeds)
        outputs = session.run(feeds).outputs
        all_outputs.append(outputs)
        token = np.asarray(outputs[lm.logits])[:, -1].argmax(-1).astype(np.int64)
        tokens.append(token)
        nxt = {"input_ids": _as_input(session, lm.inputs["input_ids"], token[:, None])}
        if "attention_mask" in lm.inputs:
            mask = np.asarray(feeds["attention_mask"])
            nxt["attention_mask"] = np.concatenate([mask, np.ones((batch, 1), mask.dtype)], 1)
        if "position_ids" in lm.inputs:
            nxt["position_ids"] = np.asarray(feeds["position_ids"])[..., -1:] + 1
        if "beam_idx" in lm.inputs:
            nxt["beam_idx"] = _as_input(session, lm.inputs["beam_idx"], np.arange(batch))
        feeds = nxt
    return all_feeds, all_outputs, tokens, lm.logits


def _as_input(session: Session, layer: Layer, value: np.ndarray) -> np.ndarray:
    """A built token id, mask or position in the Parameter's integer type."""
    dtype = getattr(getattr(session.model.ops[layer.id], "element_type", None), "dtype", None)
    arr = np.asarray(value)
    return arr if dtype is None or arr.dtype == dtype else arr.astype(dtype)


__all__ = ["greedy_steps"]
