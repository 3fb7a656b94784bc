"""NumPy references of the models with bodies the control tables build: each takes
the feeds and returns the Results' values, from the specs of If, Loop and TensorIterator."""

from __future__ import annotations

import numpy as np


def if_reference(feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    x = feeds["x"]
    return [x * np.float32(2) if feeds["cond"] else x - np.float32(1)]


def loop_reference(feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    acc, seen = feeds["acc0"], []
    for i in range(3):
        acc = (acc + feeds["x"]) + np.float32(i)
        seen.append(acc[None])
    return [acc, np.concatenate(seen)]


def ti_reference(feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    h, steps = feeds["h0"], []
    for t in range(4):
        h = h * feeds["w"] + feeds["seq"][:, t:t + 1]
        steps.append(h)
    return [h, np.concatenate(steps, axis=1)]
