"""NumPy references of the pooling ops, written from the op specifications (each
takes a case's inputs and attributes and returns its outputs), and the helpers they share."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from conformance.convolution.references import _pads
from conformance.harness import attr_ints


def _pool_geometry(data: np.ndarray, attrs: dict[str, Any]):
    kernel = attr_ints(attrs, "kernel", data.ndim - 2, 1)
    n = len(kernel)
    strides, dil = attr_ints(attrs, "strides", n, 1), attr_ints(attrs, "dilations", n, 1)
    dims = list(data.shape[2:])
    pb, pe = _pads(attrs, dims, kernel, strides, dil)
    mode = attrs.get("rounding_type", "floor")
    out = []
    for d, b, e, k, s, dl in zip(dims, pb, pe, kernel, strides, dil):
        span = d + b + e - (dl * (k - 1) + 1)
        if mode == "floor":
            out.append(span // s + 1)
        else:
            o = -(-span // s) + 1
            if mode == "ceil_torch" and (o - 1) * s >= d + b:  # the last window may not start in the end padding
                o -= 1
            out.append(o)
    return kernel, strides, dil, pb, out


def ref_max_pool(x: list[np.ndarray], attrs: dict[str, Any], with_index: bool = True) -> list[np.ndarray]:
    data = x[0]
    kernel, strides, dil, pb, out = _pool_geometry(data, attrs)
    dims = data.shape[2:]
    nb, c = data.shape[:2]
    vals = np.zeros((nb, c, *out), data.dtype)
    idx = np.zeros((nb, c, *out), np.int64)
    axis = int(attrs.get("axis", 0)) % data.ndim
    for b, ch in itertools.product(range(nb), range(c)):
        for pos in itertools.product(*(range(o) for o in out)):
            # from the lowest value, strictly greater wins: NaN never does, a window wholly in the padding gives the lowest
            lowest = np.iinfo(data.dtype).min if data.dtype.kind in "iu" else np.finfo(data.dtype).min
            best, where = lowest, 0
            for offs in itertools.product(*(range(k) for k in kernel)):
                coord = tuple(p * s - q + o * dl for p, s, q, o, dl in zip(pos, strides, pb, offs, dil))
                if all(0 <= cc < d for cc, d in zip(coord, dims)):
                    v = data[(b, ch, *coord)]
                    if v > best:
                        best, where = v, int(np.ravel_multi_index(coord, dims))
            vals[(b, ch, *pos)] = best
            lead = (b * c + ch) if axis == 0 else (ch if axis == 1 else 0)
            idx[(b, ch, *pos)] = where + lead * math.prod(dims)
    itype = np.int32 if attrs.get("index_element_type") == "i32" else np.int64
    return [vals, idx.astype(itype)] if with_index else [vals]


def ref_avg_pool(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data = x[0]
    kernel, strides, dil, pb, out = _pool_geometry(data, attrs)
    _, pe = _pads(attrs, list(data.shape[2:]), kernel, strides, dil)
    dims = data.shape[2:]
    exclude = attrs.get("exclude-pad") in (True, "true")
    res = np.zeros(data.shape[:2] + tuple(out))
    for pos in itertools.product(*(range(o) for o in out)):
        total, count = 0.0, 0
        for offs in itertools.product(*(range(k) for k in kernel)):
            coord = tuple(p * s - q + o * d for p, s, q, o, d in zip(pos, strides, pb, offs, dil))
            inside = all(0 <= cc < d for cc, d in zip(coord, dims))
            if inside:
                total = total + data[(slice(None), slice(None), *coord)].astype(np.float64)
            if exclude:
                count += inside
            elif all(d == 1 for d in dil):  # include-pad, undilated: the whole kernel, even past pads_end
                count += 1
            else:  # include-pad, dilated (AvgPool-16): the taps inside the padded input
                count += all(-q <= cc < n + e for cc, q, n, e in zip(coord, pb, dims, pe))
        res[(slice(None), slice(None), *pos)] = total / count if count else 0.0
    return [res.astype(data.dtype)]


def _boxes(data: np.ndarray, out: list[int]):
    ins = data.shape[2:]
    for pos in itertools.product(*(range(o) for o in out)):
        box = tuple(slice(p * n // o, -(-(p + 1) * n // o)) for p, n, o in zip(pos, ins, out))
        yield pos, box


def ref_adaptive_avg(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, out = x[0], [int(v) for v in x[1]]
    res = np.zeros(data.shape[:2] + tuple(out))
    for pos, box in _boxes(data, out):
        res[(slice(None), slice(None), *pos)] = data[(slice(None), slice(None), *box)].astype(np.float64).mean(
            axis=tuple(range(2, data.ndim)))
    return [res.astype(data.dtype)]


def ref_adaptive_max(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, out = x[0], [int(v) for v in x[1]]
    ins = data.shape[2:]
    vals = np.zeros(data.shape[:2] + tuple(out), data.dtype)
    idx = np.zeros(data.shape[:2] + tuple(out), np.int64)
    for n, c in itertools.product(range(data.shape[0]), range(data.shape[1])):
        for pos, box in _boxes(data, out):
            best, at = None, 0
            for q in itertools.product(*(range(b.start, b.stop) for b in box)):
                v = data[(n, c, *q)]
                if best is None or v > best:
                    best, at = v, int(np.ravel_multi_index(q, ins))
            vals[(n, c, *pos)], idx[(n, c, *pos)] = best, at
    itype = np.int32 if attrs.get("index_element_type") == "i32" else np.int64
    return [vals, idx.astype(itype)]


def shape_of(*v: int, dtype: Any = np.int64) -> np.ndarray:
    return np.array(v, dtype)
