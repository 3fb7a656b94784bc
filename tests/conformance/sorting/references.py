"""NumPy references of the sorting ops, written from the op specifications (each
takes a case's inputs and attributes and returns its outputs), and the helpers they share."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np


def ref_bucketize(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, buckets = x
    right = attrs.get("with_right_bound", True)
    out_t = {"i32": np.int32, "i64": np.int64}[attrs.get("output_type", "i64")]
    b = [float(v) for v in buckets]
    out = []
    for v in data.reshape(-1).tolist():
        v = float(v)
        out.append(sum(1 for t in b if (t < v if right else t <= v)))
    return [np.array(out, out_t).reshape(data.shape)]


def ref_unique(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data = x[0]
    axis = None if len(x) == 1 else int(np.asarray(x[1]).reshape(-1)[0])
    if axis is None:
        slices = [(v,) for v in data.reshape(-1).tolist()]
    else:
        moved = np.moveaxis(data, axis, 0)
        slices = [tuple(s.reshape(-1).tolist()) for s in moved]
    distinct: list[tuple] = []
    first: list[int] = []
    counts: list[int] = []
    for i, s in enumerate(slices):
        for j, d in enumerate(distinct):
            if d == s:
                counts[j] += 1
                break
        else:
            distinct.append(s)
            first.append(i)
            counts.append(1)
    order = list(range(len(distinct)))
    if attrs.get("sorted", True):
        order.sort(key=lambda j: distinct[j])
    pos = {j: p for p, j in enumerate(order)}
    inverse = []
    for s in slices:
        inverse.append(pos[next(j for j, d in enumerate(distinct) if d == s)])
    idx_t = {"i32": np.int32, "i64": np.int64}[attrs.get("index_element_type", "i64")]
    cnt_t = {"i32": np.int32, "i64": np.int64}[attrs.get("count_element_type", "i64")]
    picked = [first[j] for j in order]
    values = data.reshape(-1)[picked] if axis is None else np.take(data, picked, axis=axis)
    return [values, np.array(picked, idx_t), np.array(inverse, idx_t), np.array([counts[j] for j in order], cnt_t)]


def axis(a: int) -> np.ndarray:
    return np.array(a, np.int64)


BF16 = ml_dtypes.bfloat16


def i64(v: Any) -> np.ndarray:
    return np.array(v, np.int64)


def ref_topk(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    """Per slice: pairs (value, index) ordered as the spec says, ties by index."""
    data, k = x[0], int(x[1])
    axis = attrs["axis"] % data.ndim
    moved = np.moveaxis(data, axis, -1)
    vals = np.empty(moved.shape[:-1] + (k,), data.dtype)
    idxs = np.empty(moved.shape[:-1] + (k,), np.int64)
    for pos in np.ndindex(*moved.shape[:-1]):
        row = [(v, j) for j, v in enumerate(moved[pos].tolist())]
        if attrs["mode"] == "max":  # NaN is larger than every number
            chosen = sorted(row, key=lambda p: (p[0] == p[0], -p[0] if p[0] == p[0] else 0, p[1]))[:k]
        else:
            chosen = sorted(row, key=lambda p: (p[0] != p[0], p[0] if p[0] == p[0] else 0, p[1]))[:k]
        if attrs["sort"] == "index":
            chosen.sort(key=lambda p: p[1])
        idxs[pos] = [j for _, j in chosen]
        vals[pos] = moved[pos][[j for _, j in chosen]]
    itype = np.int64 if attrs.get("index_element_type") == "i64" else np.int32
    return [np.moveaxis(vals, -1, axis), np.moveaxis(idxs, -1, axis).astype(itype)]
