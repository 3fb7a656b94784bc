"""The inputs of one diff, whatever the sides: an .npz keyed by Parameter or tensor name, or
inputs generated from a seed for the IR's Parameters."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np


def by_parameter(session: Any, feeds: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Feeds keyed by Parameter name (an npz may key them by tensor name)."""
    out = {}
    for p in session.model.parameters:
        for name in (p.name, *(n for port in p.outputs for n in port.names)):
            if name in feeds:
                out[p.name] = feeds[name]
                break
    return out


def prepared_feeds(session: Any, inputs_path: str | None, seed: int, shapes: Mapping[str, tuple[int, ...]],
                   max_memory: int | None) -> tuple[dict[str, np.ndarray], str]:
    """(feeds by Parameter name, where they came from)."""
    from ...system.tensorfile import load_npz
    from ..inputs import plan_inputs, random_inputs

    if inputs_path:
        return by_parameter(session, load_npz(inputs_path, max_memory)), inputs_path
    feeds = random_inputs(session.model, seed, max_memory=max_memory, plans=plan_inputs(session.model, dict(shapes), {}))
    return feeds, f"random (seed {seed})"


__all__ = ["by_parameter", "prepared_feeds"]
