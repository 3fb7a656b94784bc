"""NumPy reference of the stateful model the state tables build (x -> ReadValue ->
Add(x) -> Assign, on a fresh state), from the specs of ReadValue and Assign."""

from __future__ import annotations

import numpy as np


def state_reference(init: bool = True):
    def ref(f: dict[str, np.ndarray]) -> list[np.ndarray]:
        x = f["x"]
        read = x * np.float32(2) if init else np.zeros_like(x)
        return [read, read + x]
    return ref
