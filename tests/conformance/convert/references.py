"""NumPy references of the convert ops, written from the op specifications (each
takes a case's inputs and attributes and returns its outputs), and the helpers they share."""

from __future__ import annotations

from typing import Any

import numpy as np


def ref_convert_like(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, like = x
    if data.dtype.kind == "f" and like.dtype.kind in "iu":
        bits = like.dtype.itemsize * 8
        t = np.nan_to_num(np.trunc(data.astype(np.float64)), nan=0.0, posinf=0.0, neginf=0.0)
        return [np.array([int(v) % (1 << bits) for v in t.reshape(-1)], np.uint64).astype(like.dtype).reshape(data.shape)]
    return [data.astype(like.dtype)]
