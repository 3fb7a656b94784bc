"""NumPy references of the attention ops, written from the op specifications (each
takes a case's inputs and attributes and returns its outputs), and the helpers they share."""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def ref_sdpa(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    q, k, v = (a.astype(np.float64) for a in x[:3])
    scale = float(np.asarray(x[4]).reshape(())) if len(x) > 4 else 1.0 / math.sqrt(q.shape[-1])
    w = q @ np.swapaxes(k, -1, -2) * scale
    L, S = w.shape[-2:]
    if attrs.get("causal") in (True, "true"):
        w = w + np.triu(np.full((L, S), -np.inf), 1)
    elif len(x) > 3:
        m = x[3]
        w = np.where(m, w, -np.inf) if m.dtype == bool else w + m.astype(np.float64)
    with np.errstate(invalid="ignore"):
        w = np.exp(w - w.max(-1, keepdims=True))
        w = w / w.sum(-1, keepdims=True)
    return [(w @ v).astype(x[0].dtype)]


def ref_sdpa_sinks(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    q, k, v = (a.astype(np.float64) for a in x[:3])
    scale = float(np.asarray(x[4]).reshape(())) if len(x) > 4 else 1.0 / math.sqrt(q.shape[-1])
    w = q @ np.swapaxes(k, -1, -2) * scale
    L, S = w.shape[-2:]
    if attrs.get("causal") in (True, "true"):
        w = w + np.triu(np.full((L, S), -np.inf), 1)
    else:
        m = x[3]
        w = np.where(m, w, -np.inf) if m.dtype == bool else w + m.astype(np.float64)
    sink = np.broadcast_to(x[5].astype(np.float64), w.shape[:-1] + (1,))
    w = np.concatenate([w, sink], axis=-1)
    with np.errstate(invalid="ignore"):
        w = np.exp(w - w.max(-1, keepdims=True))
        w = w / w.sum(-1, keepdims=True)
    return [(w[..., :-1] @ v).astype(x[0].dtype)]
