"""NumPy references of the quantization ops, written from the op specifications (each
takes a case's inputs and attributes and returns its outputs), and the helpers they share."""

from __future__ import annotations

from typing import Any

import numpy as np


def ref_fq(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, *ranges = x
    levels = int(attrs["levels"])
    if attrs.get("auto_broadcast") == "pdpd":
        ranges = [r.reshape(r.shape + (1,) * (data.ndim - r.ndim)) for r in ranges]
    il, ih, ol, oh = (np.broadcast_to(r, data.shape).reshape(-1) for r in ranges)
    dt = data.dtype
    out = np.empty(data.size, dt)
    small = dt.itemsize < 4
    for i, v in enumerate(data.reshape(-1)):
        if v <= min(il[i], ih[i]):
            out[i] = ol[i]
        elif v > max(il[i], ih[i]):
            out[i] = oh[i]
        else:
            with np.errstate(all="ignore"):
                q = np.rint((v - il[i]) / (ih[i] - il[i]) * dt.type(levels - 1))
                if small:
                    f = np.float32
                    out[i] = dt.type(f(q) / f(levels - 1) * f(dt.type(f(oh[i]) - f(ol[i]))) + f(ol[i]))
                else:
                    out[i] = q / dt.type(levels - 1) * (oh[i] - ol[i]) + ol[i]
    return [out.reshape(data.shape)]
