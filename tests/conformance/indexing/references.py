"""NumPy references of the indexing ops, written from the op specifications (each
takes a case's inputs and attributes and returns its outputs), and the helpers they share."""

from __future__ import annotations

from typing import Any

import numpy as np


def ref_nonzero(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data = x[0]
    shaped = data.reshape(1) if data.ndim == 0 else data
    found = [pos for pos in np.ndindex(*shaped.shape) if float(shaped[pos]) != 0.0]
    out = np.array(found, np.int64).reshape(len(found), shaped.ndim).T
    return [out.astype(np.int32 if attrs.get("output_type") == "i32" else np.int64)]


def ref_onehot(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    indices, depth, on, off = x[0], int(np.reshape(x[1], -1)[0]), x[2], x[3]
    axis = attrs["axis"] % (indices.ndim + 1)
    out = np.empty(indices.shape + (depth,), on.dtype)
    for pos in np.ndindex(*indices.shape):
        for j in range(depth):
            out[pos + (j,)] = on if int(indices[pos]) == j else off
    return [np.moveaxis(out, -1, axis)]
