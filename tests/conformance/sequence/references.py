"""NumPy references of the sequence ops, written from the op specifications (each
takes a case's inputs and attributes and returns its outputs), and the helpers they share."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np


def _first_max(row: np.ndarray) -> int:
    best = 0
    for i in range(1, len(row)):
        if row[best] < row[i]:
            best = i
    return best


def _decode(steps: list[np.ndarray], blank: int, merge: bool) -> list[int]:
    out, prev = [], -1
    for scores in steps:
        c = _first_max(scores)
        if c != blank and not (merge and c == prev):
            out.append(c)
        prev = c
    return out


def ref_ctc_greedy(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, mask = x[0], x[1]
    time, batch, classes = data.shape
    out = np.full((batch, time, 1, 1), -1, np.float64)
    for b in range(batch):
        steps = []
        for t in range(time):
            if mask[t, b] == 0:
                break
            steps.append(data[t, b])
        decoded = _decode(steps, classes - 1, attrs.get("ctc_merge_repeated", True))
        out[b, : len(decoded), 0, 0] = decoded
    return [out.astype(data.dtype)]


def ref_ctc_greedy_seq_len(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, lengths = x[0], x[1]
    batch, time, classes = data.shape
    blank = int(x[2].reshape(-1)[0]) if len(x) > 2 else classes - 1
    out = np.full((batch, time), -1, np.int64)
    counts = []
    for b in range(batch):
        decoded = _decode([data[b, t] for t in range(int(lengths[b]))], blank, attrs.get("merge_repeated", True))
        out[b, : len(decoded)] = decoded
        counts.append(len(decoded))
    return [out.astype(attrs.get("classes_index_type", "i32").replace("i", "int")),
            np.array(counts, attrs.get("sequence_length_type", "i32").replace("i", "int"))]


def mask(time: int, lengths: list[int], dtype: Any = np.float32) -> np.ndarray:
    return (np.arange(time)[:, None] < np.array(lengths)[None, :]).astype(dtype)


def _reads(path: tuple[int, ...], blank: int, merge: bool) -> list[int]:
    out = []
    for i, c in enumerate(path):
        if merge and i and path[i - 1] == c:
            continue
        if c != blank:
            out.append(c)
    return out


def ref_gather_tree(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    step_ids, parents, max_seq_len, end_token = x
    time, batch, beams = step_ids.shape
    out = np.full(step_ids.shape, end_token, step_ids.dtype)
    for b in range(batch):
        n = min(time, int(max_seq_len[b]))
        for k in range(beams):
            parent = k
            for t in range(n - 1, -1, -1):
                out[t, b, k] = step_ids[t, b, parent]
                parent = int(parents[t, b, parent])
            finished = False
            for t in range(n):
                if finished:
                    out[t, b, k] = end_token
                elif int(out[t, b, k]) == int(end_token):
                    finished = True
    return [out]


def beams(rng: np.random.Generator, time: int, batch: int, width: int, dtype: Any = np.int32) -> tuple[np.ndarray, np.ndarray]:
    """step_ids in [0, 10) and valid parents in [0, width)."""
    return (rng.integers(0, 10, (time, batch, width)).astype(dtype),
            rng.integers(0, width, (time, batch, width)).astype(dtype))


def ref_ctc_loss(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    logits, logit_length, labels, label_length = x[:4]
    batch, time, classes = logits.shape
    blank = int(x[4]) if len(x) > 4 else classes - 1
    merge = attrs.get("ctc_merge_repeated", True)
    out = np.empty(batch, np.float64)
    for b in range(batch):
        n, target = int(logit_length[b]), [int(v) for v in labels[b, : int(label_length[b])]]
        if attrs.get("unique", False):
            target = list(dict.fromkeys(target))
        elif attrs.get("preprocess_collapse_repeated", False):
            target = [v for i, v in enumerate(target) if i == 0 or v != target[i - 1]]
        z = logits[b, :n].astype(np.float64)
        p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
        total = sum(np.prod([p[t, c] for t, c in enumerate(path)])
                    for path in itertools.product(range(classes), repeat=n) if _reads(path, blank, merge) == target)
        out[b] = -np.log(total) if total > 0 else np.inf
    return [out.astype(logits.dtype)]
