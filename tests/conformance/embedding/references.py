"""NumPy references of the embedding ops, written from the op specifications (each
takes a case's inputs and attributes and returns its outputs), and the helpers they share."""

from __future__ import annotations

from typing import Any

import numpy as np


def _reduce(table: np.ndarray, bags: list[list[int]], weights: list[list[float]] | None, default: int | None,
            mean: bool) -> np.ndarray:
    out = np.zeros((len(bags), *table.shape[1:]), np.float64 if table.dtype.kind == "f" else np.int64)
    for b, bag in enumerate(bags):
        if not bag:
            if default is not None and default >= 0:
                out[b] = table[default]
            continue
        terms = [table[i].astype(out.dtype) * (weights[b][k] if weights is not None else 1) for k, i in enumerate(bag)]
        total = np.sum(terms, axis=0)
        out[b] = (total / len(bag) if out.dtype.kind == "f" else np.trunc(total / len(bag))) if mean else total
    return out.astype(table.dtype)


def ref_offsets(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    table, indices, offsets = x[0], x[1].tolist(), x[2].tolist()
    ends = offsets[1:] + [len(indices)]
    bags = [indices[a:b] for a, b in zip(offsets, ends)]
    weights = [x[4][a:b].astype(np.float64).tolist() for a, b in zip(offsets, ends)] if len(x) > 4 else None
    default = int(x[3]) if len(x) > 3 else None
    return [_reduce(table, bags, weights, default, attrs.get("reduction") == "mean")]


def ref_packed(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    weights = x[2].astype(np.float64).tolist() if len(x) > 2 else None
    return [_reduce(x[0], x[1].tolist(), weights, None, attrs.get("reduction") == "mean")]


def ref_segments(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    table, indices, segment_ids, count = x[0], x[1].tolist(), x[2].tolist(), int(x[3])
    bags: list[list[int]] = [[] for _ in range(count)]
    weights: list[list[float]] = [[] for _ in range(count)]
    for k, (i, s) in enumerate(zip(indices, segment_ids)):
        bags[s].append(i)
        if len(x) > 5:
            weights[s].append(float(x[5][k]))
    default = int(x[4]) if len(x) > 4 else None
    return [_reduce(table, bags, weights if len(x) > 5 else None, default, False)]
