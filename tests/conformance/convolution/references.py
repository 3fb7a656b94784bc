"""NumPy references of the convolution ops, written from the op specifications (each
takes a case's inputs and attributes and returns its outputs), and the helpers they share."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from conformance.harness import attr_ints


def _pads(attrs: dict[str, Any], dims: list[int], kernel: list[int], strides: list[int], dil: list[int]):
    n = len(dims)
    mode = attrs.get("auto_pad", "explicit")
    if mode == "valid":
        return [0] * n, [0] * n
    if mode in ("same_upper", "same_lower"):
        pb, pe = [], []
        for d, k, s, dl in zip(dims, kernel, strides, dil):
            total = max(0, (math.ceil(d / s) - 1) * s + dl * (k - 1) + 1 - d)
            lo, hi = total // 2, total - total // 2
            pb.append(lo if mode == "same_upper" else hi)
            pe.append(hi if mode == "same_upper" else lo)
        return pb, pe
    return attr_ints(attrs, "pads_begin", n, 0), attr_ints(attrs, "pads_end", n, 0)


def ref_conv(x: list[np.ndarray], attrs: dict[str, Any], grouped: bool = False) -> list[np.ndarray]:
    data, w = x
    if not grouped:
        w = w[None]
    g, og, cg = w.shape[:3]
    kernel = list(w.shape[3:])
    n = len(kernel)
    strides, dil = attr_ints(attrs, "strides", n, 1), attr_ints(attrs, "dilations", n, 1)
    dims = list(data.shape[2:])
    pb, pe = _pads(attrs, dims, kernel, strides, dil)
    if attrs.get("auto_pad") in ("same_upper", "same_lower"):
        out = [math.ceil(d / s) for d, s in zip(dims, strides)]
    else:
        out = [(d + b + e - (dl * (k - 1) + 1)) // s + 1 for d, b, e, k, s, dl in zip(dims, pb, pe, kernel, strides, dil)]
    xd = data.astype(np.float64)
    wd = w.astype(np.float64)
    res = np.zeros((data.shape[0], g * og, *out))
    for pos in itertools.product(*(range(o) for o in out)):
        for offs in itertools.product(*(range(k) for k in kernel)):
            coord = [p * s - b + o * dl for p, s, b, o, dl in zip(pos, strides, pb, offs, dil)]
            if all(0 <= c < d for c, d in zip(coord, dims)):
                vals = xd[(slice(None), slice(None), *coord)].reshape(data.shape[0], g, cg)
                res[(slice(None), slice(None), *pos)] += np.einsum("ngc,goc->ngo", vals, wd[(..., *offs)]).reshape(
                    data.shape[0], g * og)
    return [res.astype(data.dtype)]


def ref_deconv(x: list[np.ndarray], attrs: dict[str, Any], grouped: bool = False) -> list[np.ndarray]:
    data, w = x[0], x[1]
    if not grouped:
        w = w[None]
    g, cg, og = w.shape[:3]
    kernel = list(w.shape[3:])
    n = len(kernel)
    s, d = attr_ints(attrs, "strides", n, 1), attr_ints(attrs, "dilations", n, 1)
    op = attr_ints(attrs, "output_padding", n, 0)
    ins = list(data.shape[2:])
    full_len = [(i - 1) * st + dl * (k - 1) + 1 for i, st, dl, k in zip(ins, s, d, kernel)]
    mode = attrs.get("auto_pad", "explicit")
    if len(x) > 2:
        out = [int(v) for v in x[2]]
        if mode in ("same_upper", "same_lower"):
            tot = [max(f - o + p, 0) for f, o, p in zip(full_len, out, op)]
            pb = [t - t // 2 if mode == "same_upper" else t // 2 for t in tot]
        else:
            pb = [0] * n if mode == "valid" else attr_ints(attrs, "pads_begin", n, 0)
    else:
        pb, pe = ([0] * n, [0] * n) if mode != "explicit" else (attr_ints(attrs, "pads_begin", n, 0),
                                                                attr_ints(attrs, "pads_end", n, 0))
        out = [f - b - e + p for f, b, e, p in zip(full_len, pb, pe, op)]
    full = np.zeros((data.shape[0], g * og, *[max(f, o + b) for f, o, b in zip(full_len, out, pb)]))
    xd, wd = data.astype(np.float64), w.astype(np.float64)
    for pos in itertools.product(*(range(i) for i in ins)):
        vals = xd[(slice(None), slice(None), *pos)].reshape(data.shape[0], g, cg)
        for offs in itertools.product(*(range(k) for k in kernel)):
            at = tuple(p * st + o * dl for p, st, o, dl in zip(pos, s, offs, d))
            full[(slice(None), slice(None), *at)] += np.einsum("ngc,gco->ngo", vals, wd[(..., *offs)]).reshape(
                data.shape[0], g * og)
    res = full[(slice(None), slice(None), *[slice(b, b + o) for b, o in zip(pb, out)])]
    return [res.astype(data.dtype)]


def attrs(strides: str, dilations: str, pb: str, pe: str, auto_pad: str = "explicit", op: str | None = None):
    a = {"strides": strides, "dilations": dilations, "pads_begin": pb, "pads_end": pe, "auto_pad": auto_pad}
    if op is not None:
        a["output_padding"] = op
    return a
