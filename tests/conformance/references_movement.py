"""NumPy references of movement ops, written from the op specifications
(each takes the case's inputs and attributes, returns the outputs)."""

from __future__ import annotations

from typing import Any

import numpy as np


def depth_to_space(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, bs = x[0], int(attrs.get("block_size", 1))
    n, c, *sp = data.shape
    k = len(sp)
    cc = c // bs**k
    if attrs["mode"] == "blocks_first":
        t = data.reshape(n, *[bs] * k, cc, *sp)
        order = [0, k + 1] + [i for j in range(k) for i in (k + 2 + j, 1 + j)]
    else:
        t = data.reshape(n, cc, *[bs] * k, *sp)
        order = [0, 1] + [i for j in range(k) for i in (k + 2 + j, 2 + j)]
    return [np.ascontiguousarray(t.transpose(order)).reshape(n, cc, *[d * bs for d in sp])]


def space_to_depth(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, bs = x[0], int(attrs.get("block_size", 1))
    n, c, *sp = data.shape
    k = len(sp)
    t = data.reshape(n, c, *[v for d in sp for v in (d // bs, bs)])
    blocks = [3 + 2 * j for j in range(k)]
    spatial = [2 + 2 * j for j in range(k)]
    order = [0, *blocks, 1, *spatial] if attrs["mode"] == "blocks_first" else [0, 1, *blocks, *spatial]
    return [np.ascontiguousarray(t.transpose(order)).reshape(n, c * bs**k, *[d // bs for d in sp])]


def shuffle_channels(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, group = x[0], int(attrs.get("group", 1))
    axis = int(attrs.get("axis", 1)) % data.ndim
    shape = data.shape
    t = data.reshape(*shape[:axis], group, shape[axis] // group, *shape[axis + 1:])
    return [np.ascontiguousarray(np.swapaxes(t, axis, axis + 1)).reshape(shape)]


def reverse(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, axes = x
    if attrs["mode"] == "mask":
        axes = np.flatnonzero(axes)
    return [np.flip(data, axis=tuple(int(a) % max(data.ndim, 1) for a in np.asarray(axes).reshape(-1))).copy()]


def identity(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    return [x[0].copy()]


def gather(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    """Gather-1/7/8 without negative or out-of-range indices: np.take per batch."""
    data, indices, axis = x[0], x[1], int(np.asarray(x[2]).reshape(-1)[0])
    b = int(attrs.get("batch_dims", 0))
    axis %= data.ndim
    if b == 0:
        return [np.take(data, indices.astype(np.int64), axis=axis)]
    out = [gather([d, i, np.array(axis - 1)], {"batch_dims": b - 1})[0] for d, i in zip(data, indices)]
    return [np.stack(out)]
