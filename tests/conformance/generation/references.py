"""NumPy references of the generation ops, written from the op specifications (each
takes a case's inputs and attributes and returns its outputs), and the helpers they share."""

from __future__ import annotations

from typing import Any

import numpy as np


def ref_eye(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    r, c, k = (int(np.asarray(v).reshape(-1)[0]) for v in x[:3])
    batch = [int(v) for v in x[3]] if len(x) > 3 else []
    dt = {"f32": np.float32, "i8": np.int8, "i64": np.int64, "f16": np.float16, "boolean": np.bool_}[attrs["output_type"]]
    m = np.zeros((r, c), dt)
    for i in range(r):
        if 0 <= i + k < c:
            m[i, i + k] = 1
    return [np.broadcast_to(m, (*batch, r, c)).copy()]
