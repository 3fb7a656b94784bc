"""The two models of a data-set diff, loaded once per process (or Dask worker) and kept by
the content of their files, never by path; and a sample's arrays keyed for A."""

from __future__ import annotations

import os
from typing import Any

Key = tuple[str, str | None, str, str | None, str]  # A, A's weights, B, B's weights, a hash of the four files
_models: dict[str, Any] = {}  # per process: the loaded models, by the hash of their files (the last few)
_KEEP_MODELS = 2


def _weights_path(xml: str, weights: str | None) -> str:
    return weights if weights else os.path.splitext(xml)[0] + ".bin"


def content_hash(a: str, a_weights: str | None, b: str, b_weights: str | None) -> str:
    """A hash of both models' files (XML and weights), read in blocks; an absent weights file counts as empty."""
    import hashlib

    digest = hashlib.blake2b(digest_size=20)
    for path in (a, _weights_path(a, a_weights), b, _weights_path(b, b_weights)):
        digest.update(b"\0" + os.fsencode(os.path.basename(path)) + b"\0")
        try:
            with open(path, "rb") as f:
                while block := f.read(1 << 20):
                    digest.update(block)
        except FileNotFoundError:
            continue
    return digest.hexdigest()


def sessions(key: Key) -> Any:
    found = _models.get(key[4])
    if found is None:
        from ...base.errors import IRExecError
        from ..session import Session

        found = (Session(key[0], key[1]), Session(key[2], key[3]))
        if content_hash(*key[:4]) != key[4]:  # the files changed since the client hashed them
            raise IRExecError(f"{key[0]} or {key[2]} holds other content here than where the diff started (changed "
                              "since, or another file at the same path on this worker)", code="scheduler-error",
                              file=key[2])
        while len(_models) >= _KEEP_MODELS:
            _models.pop(next(iter(_models)))
        _models[key[4]] = found
    return found


def sample_feeds(a: Any, path: str, max_memory: int | None) -> dict[str, Any]:
    """A sample's arrays keyed as A's Parameters (all of them when none is named so)."""
    from ...system.tensorfile import load_npz

    feeds = dict(load_npz(path, max_memory))
    names = {p.name for p in a.model.parameters}
    return {k: v for k, v in feeds.items() if k in names} or feeds


def sample_steps(a: Any, path: str, max_memory: int | None, steps: int
                 ) -> tuple[list[dict[str, Any]], str | None, list[dict[str, Any]] | None]:
    """A sample's feeds of every step: its prefill alone, or with ``steps`` decode steps fed A's greedy
    token (the same inputs for A and B); with steps, A's logits output and A's outputs of every step."""
    feeds = sample_feeds(a, path, max_memory)
    if not steps:
        return [feeds], None, None
    from .steps import greedy_steps

    all_feeds, outputs, _, logits = greedy_steps(a, feeds, steps)
    return all_feeds, logits, outputs


__all__ = ["Key", "content_hash", "sample_feeds", "sample_steps", "sessions"]
