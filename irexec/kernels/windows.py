"""Sliding windows over the spatial axes of ``[N, C, *spatial]`` tensors:
padding, strided window views, and convolution as im2col + BLAS matmul in
bounded-size tiles.  Shared by Convolution, GroupConvolution and the pooling
ops; no op-specific validation here (the callers' ``infer`` did it)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

# The column matrix of one im2col tile stays below this many bytes.
TILE_BYTES = 32 << 20


def accumulator(dtype: np.dtype) -> np.dtype:
    """The type a float sum is carried in: f32 for 16-bit floats (and f32),
    f64 for f64; integers in their own type (wrap-around, as C++ does)."""
    if dtype.kind == "f" and dtype.itemsize >= 8:
        return np.dtype(np.float64)
    if dtype.kind in "fV" or dtype.name == "bfloat16":
        return np.dtype(np.float32)
    return dtype


def pad_spatial(x: np.ndarray, begin: Sequence[int], end: Sequence[int], value: float | int) -> np.ndarray:
    """``x`` with its trailing ``len(begin)`` axes padded by ``value`` (a
    negative pad crops).  No copy when nothing is padded."""
    lead = x.ndim - len(begin)
    if any(b < 0 or e < 0 for b, e in zip(begin, end)):
        crop = (slice(None),) * lead + tuple(slice(max(-b, 0), x.shape[lead + i] - max(-e, 0))
                                              for i, (b, e) in enumerate(zip(begin, end)))
        x = x[crop]
        begin, end = [max(b, 0) for b in begin], [max(e, 0) for e in end]
    if not any(begin) and not any(end):
        return x
    widths = [(0, 0)] * lead + [(int(b), int(e)) for b, e in zip(begin, end)]
    return np.pad(x, widths, constant_values=value)


def window_offsets(x: np.ndarray, out: Sequence[int], strides: Sequence[int], dilations: Sequence[int],
                   kernel: Sequence[int]):
    """For each kernel offset (in C order), the strided view of the padded
    ``x`` holding that offset's element of every window: shape
    ``x.shape[:lead] + out``.  ``x`` must be long enough on every axis."""
    lead = x.ndim - len(out)
    for offs in np.ndindex(*kernel):
        idx = (slice(None),) * lead + tuple(
            slice(o * d, o * d + (n - 1) * s + 1, s) for o, d, n, s in zip(offs, dilations, out, strides))
        yield offs, x[idx]


def fit_length(x: np.ndarray, need: Sequence[int], value: float | int) -> np.ndarray:
    """``x`` cropped or padded at the end of its trailing axes to exactly ``need``."""
    lead = x.ndim - len(need)
    have = x.shape[lead:]
    if tuple(have) == tuple(need):
        return x
    extra = [max(n - h, 0) for n, h in zip(need, have)]
    x = x[(slice(None),) * lead + tuple(slice(0, n) for n in need)]
    return pad_spatial(x, [0] * len(need), extra, value) if any(extra) else x


def conv_nd(x: np.ndarray, w: np.ndarray, groups: int, strides: Sequence[int], dilations: Sequence[int],
            out_spatial: Sequence[int], out_dtype: np.dtype) -> np.ndarray:
    """Grouped convolution of an already padded ``x`` [N, G*Cg, *sp] with
    ``w`` [G, Og, Cg, *k]: im2col tiles along the first output axis, each one
    batched matmul over the groups.  Returns [N, G*Og, *out_spatial]."""
    n, c = x.shape[:2]
    g, og, cg = w.shape[:3]
    kernel = w.shape[3:]
    k = math.prod(kernel)
    acc = accumulator(x.dtype)
    out = np.empty((n, g * og, *out_spatial), out_dtype)
    if out.size == 0:
        return out
    if cg * k == 0:
        out[...] = 0
        return out
    spatial = len(kernel)
    wm = w.reshape(g, og, cg * k).astype(acc, copy=False)  # [G, Og, Cg*K]
    dk = [d * (kk - 1) + 1 for d, kk in zip(dilations, kernel)]
    win = sliding_window_view(x, dk, axis=tuple(range(2, 2 + spatial)))  # [N, C, *sp', *dk]
    win = win[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in strides)
              + tuple(slice(None, None, d) for d in dilations)]
    rest = math.prod(out_spatial[1:])
    per_row = n * c * rest * k * acc.itemsize
    rows = max(1, TILE_BYTES // max(per_row, 1))
    xg = win.reshape(n, g, cg, *win.shape[2:]) if win.shape[1] == c else win
    for r0 in range(0, out_spatial[0], rows):
        r1 = min(out_spatial[0], r0 + rows)
        tile = xg[:, :, :, r0:r1, ...]  # [N, G, Cg, rows, *rest, *k]
        p = (r1 - r0) * rest
        # [G, Cg, *k, N, rows, *rest]: the contraction axes (Cg, k) contiguous per group
        order = (1, 2, *range(3 + spatial, 3 + 2 * spatial), 0, *range(3, 3 + spatial))
        cols = np.ascontiguousarray(tile.transpose(order), dtype=acc).reshape(g, cg * k, n * p)
        res = np.matmul(wm, cols)  # [G, Og, N*P]
        res = res.reshape(g * og, n, r1 - r0, *out_spatial[1:]).swapaxes(0, 1)
        out[:, :, r0:r1, ...] = res
    return out
