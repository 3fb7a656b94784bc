"""The outputs' error of A with some of its weights replaced by B's, over a data set.

A task names the compressed weights of the data set (layer, input port, B's layer) and which
of them to replace; it writes B's decompressed values over A's Consts in a copy of A's .bin
(in A's element type, as ``ablation.py`` does for one input), loads that copy, and runs it
and A on every sample: each sample's outputs' relative L2 error against A's comes back, in
sample order.  With one weight replaced this is that weight's effect alone; with every weight
but the top K replaced it is a point of the keep-K curve: what keeping those K weights as in
A (an NNCF ``ignored_scope`` of them) leaves of the outputs' error.  B's decompressed values
come from one run of B, kept per process with the models (they do not depend on the sample).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import Any

import numpy as np

from .ablation import outputs_rel_l2, patch_of

WeightId = tuple[str, int, str]  # A's layer, its input port, B's layer
_patches: dict[tuple[str, tuple[WeightId, ...]], list[tuple[int, bytes] | None]] = {}  # per process, the last few
_KEEP = 2


def _patch_table(key: Any, weights: list[WeightId], feeds: dict[str, np.ndarray], max_memory: int | None
                 ) -> list[tuple[int, bytes] | None]:
    """Per weight: where A's .bin holds it and B's value in A's element type (None: not measurable)."""
    from .ir_side import IRSide
    from .matching import match
    from .memory import DiffMemory
    from .reference import ReferenceSide
    from .sample_models import sessions
    from .weights import WeightResult

    found = _patches.get((key[4], tuple(weights)))
    if found is not None:
        return found
    a, b = sessions(key)
    memory = DiffMemory(max_memory)
    ref, other = ReferenceSide(a, memory), ReferenceSide(b, memory)
    sources = {}
    for layer, port, b_layer in weights:
        src = other.producers(other.by_name[b_layer])[port]
        if src is not None:
            sources[(layer, port)] = src
    side = IRSide(ref, other, match(ref, other), key[2])
    _, kept = other.run([side.feeds(feeds)], capture=[src[0].id for src in sources.values()])
    table: list[tuple[int, bytes] | None] = []
    for layer, port, b_layer in weights:
        src = sources.get((layer, port))
        value = None if src is None or src[0].id not in kept else kept[src[0].id][src[1]]
        w = WeightResult(layer, b_layer, port, "", "", [], None, "", 0.0, 0.0, 0.0, None)
        table.append(patch_of(ref, w, value, []))
    while len(_patches) >= _KEEP:
        _patches.pop(next(iter(_patches)))
    _patches[(key[4], tuple(weights))] = table
    return table


def replaced_errors(key: Any, weights: list[WeightId], replaced: list[int], paths: list[str],
                    max_memory: int | None = None, steps: int = 0) -> list[float]:
    """Each sample's outputs' rel L2 error of A with the weights at ``replaced`` taken from B (with
    ``steps``: over the prefill and that many decode steps fed A's greedy tokens)."""
    from ..session import Session
    from .memory import DiffMemory
    from .reference import ReferenceSide
    from .sample_models import sample_feeds, sample_steps, sessions

    a, _ = sessions(key)
    weights = [tuple(w) for w in weights]  # type: ignore[misc]  # a list after a trip through a pickle
    memory = DiffMemory(max_memory)
    ref = ReferenceSide(a, memory)
    bin_path = a.model.weights.path
    if not paths or bin_path is None or not os.path.isfile(bin_path):
        return [float("nan")] * len(paths)
    table = _patch_table(key, weights, sample_feeds(a, paths[0], max_memory), max_memory)
    errors = []
    with tempfile.TemporaryDirectory(prefix="irexec-keep-") as tmp:
        copy = os.path.join(tmp, "a.bin")
        shutil.copyfile(bin_path, copy)
        with open(copy, "r+b") as f:
            for i in replaced:
                patch = table[i]
                if patch is not None:
                    f.seek(patch[0])
                    f.write(patch[1])
        patched = Session(a.model.path, copy, max_memory=memory.run_limit("loading A"))
        try:
            mine_side = ReferenceSide(patched, memory)
            for path in paths:
                all_feeds, _, want = sample_steps(a, path, max_memory, steps)
                if want is None:  # with steps, A's outputs come from the greedy run that made the feeds
                    want, _ = ref.run(all_feeds)
                got, _ = mine_side.run(all_feeds)
                errors.append(outputs_rel_l2(got, want))
        finally:
            patched.close()
    return errors


__all__ = ["replaced_errors"]
