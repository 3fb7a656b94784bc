"""NumPy references of movement ops, written from the op specifications
(each takes the case's inputs and attributes, returns the outputs)."""

from __future__ import annotations

from typing import Any

import numpy as np


def gather(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    """Gather-1/7/8 without negative or out-of-range indices: np.take per batch."""
    data, indices, axis = x[0], x[1], int(np.asarray(x[2]).reshape(-1)[0])
    b = int(attrs.get("batch_dims", 0))
    axis %= data.ndim
    if b == 0:
        return [np.take(data, indices.astype(np.int64), axis=axis)]
    out = [gather([d, i, np.array(axis - 1)], {"batch_dims": b - 1})[0] for d, i in zip(data, indices)]
    return [np.stack(out)]
