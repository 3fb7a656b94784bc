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


# Products of fewer multiply-adds than this stay on the calling thread.
MIN_PARALLEL_MACS = 1 << 22


def _parts(macs: int, limit: int) -> int:
    """How many independent pieces to cut a product of ``macs`` multiply-adds into."""
    from .. import parallel

    if macs < MIN_PARALLEL_MACS or limit <= 1:
        return 1
    return max(1, min(parallel.num_threads() * 2, limit, macs // MIN_PARALLEL_MACS))


def _run(tasks: list, parts: int) -> None:
    from .. import parallel

    # the output size is what parallel.run weighs; these tasks are compute bound
    parallel.run(tasks, parallel.MIN_PARALLEL_BYTES if parts > 1 else 0)


def conv_nd(x: np.ndarray, w: np.ndarray, groups: int, strides: Sequence[int], dilations: Sequence[int],
            out_spatial: Sequence[int], out_dtype: np.dtype) -> np.ndarray:
    """Grouped convolution of an already padded ``x`` [N, G*Cg, *sp] with
    ``w`` [G, Og, Cg, *k].  Returns [N, G*Og, *out_spatial].  Three ways,
    chosen by shape: a 1x1 kernel is one matmul on the (strided) input; few
    input channels per group (depthwise) is a multiply-accumulate per kernel
    offset over strided views; anything else is im2col tiles through BLAS."""
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
    if k == 1:
        _conv_1x1(x, w, strides, out, acc)
    elif cg * og <= 4 and k <= 64:
        _conv_depthwise(x, w, strides, dilations, out, acc)
    else:
        _conv_im2col(x, w, strides, dilations, out, acc)
    return out


def _conv_1x1(x: np.ndarray, w: np.ndarray, strides: Sequence[int], out: np.ndarray, acc: np.dtype) -> None:
    n = x.shape[0]
    g, og, cg = w.shape[:3]
    out_spatial = out.shape[2:]
    xs = x[(slice(None), slice(None)) + tuple(slice(0, (o - 1) * s + 1, s) for o, s in zip(out_spatial, strides))]
    p = math.prod(out_spatial)
    cols = np.ascontiguousarray(xs, dtype=acc).reshape(n, g, cg, p)
    wm = w.reshape(g, og, cg).astype(acc, copy=False)
    res = out.reshape(n, g, og, p) if out.dtype == acc else np.empty((n, g, og, p), acc)
    parts = _parts(n * g * og * cg * p, p)
    if parts == 1:
        np.matmul(wm, cols, out=res)
    else:
        _run([lambda a=a, b=b: np.matmul(wm, cols[..., a:b], out=res[..., a:b])
              for a, b in _spans(p, parts)], parts)
    if res.base is not out and res is not out:
        out[...] = res.reshape(out.shape)


def _spans(n: int, parts: int) -> list[tuple[int, int]]:
    return [(n * i // parts, n * (i + 1) // parts) for i in range(parts) if n * i // parts < n * (i + 1) // parts]


def _conv_depthwise(x: np.ndarray, w: np.ndarray, strides: Sequence[int], dilations: Sequence[int],
                    out: np.ndarray, acc: np.dtype) -> None:
    """Few input channels per group: for each kernel offset and input channel
    of a group, the strided view of the input times one weight per output
    channel, accumulated in place (no im2col, no batched tiny matmuls).
    Channels last, so that the innermost loop of every pass runs over
    contiguous channels with a contiguous row of weights."""
    n = x.shape[0]
    g, og, cg = w.shape[:3]
    kernel = w.shape[3:]
    out_spatial = out.shape[2:]
    sp = len(kernel)
    last = (0, *range(2, 2 + sp), 1)
    xt = np.ascontiguousarray(x.transpose(last), dtype=acc)  # [N, *sp, C]
    xt = xt.reshape(*xt.shape[:-1], g, cg)
    wa = np.ascontiguousarray(w.transpose(*range(3, 3 + sp), 0, 2, 1), dtype=acc)  # [*k, G, Cg, Og]
    total = np.zeros((n, *out_spatial, g, og), acc)
    tmp = np.empty_like(total)
    for offs in np.ndindex(*kernel):
        view = xt[(slice(None),) + tuple(slice(o * d, o * d + (m - 1) * s + 1, s)
                                          for o, d, m, s in zip(offs, dilations, out_spatial, strides))]
        wk = wa[offs]  # [G, Cg, Og]
        for ci in range(cg):
            np.multiply(view[..., ci:ci + 1], wk[:, ci], out=tmp)
            total += tmp
    out[...] = total.reshape(n, *out_spatial, g * og).transpose(0, sp + 1, *range(1, sp + 1))


def _conv_im2col(x: np.ndarray, w: np.ndarray, strides: Sequence[int], dilations: Sequence[int],
                 out: np.ndarray, acc: np.dtype) -> None:
    """im2col tiles along the first output axis, each one batched matmul over
    the groups; the tiles are independent and run on the thread pool."""
    n, c = x.shape[:2]
    g, og, cg = w.shape[:3]
    kernel = w.shape[3:]
    out_spatial = out.shape[2:]
    k = math.prod(kernel)
    spatial = len(kernel)
    wm = w.reshape(g, og, cg * k).astype(acc, copy=False)  # [G, Og, Cg*K]
    dk = [d * (kk - 1) + 1 for d, kk in zip(dilations, kernel)]
    win = sliding_window_view(x, dk, axis=tuple(range(2, 2 + spatial)))  # [N, C, *sp', *dk]
    win = win[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in strides)
              + tuple(slice(None, None, d) for d in dilations)]
    rest = math.prod(out_spatial[1:])
    per_row = n * c * rest * k * acc.itemsize
    rows = max(1, TILE_BYTES // max(per_row, 1))
    parts = _parts(n * g * og * cg * k * math.prod(out_spatial), out_spatial[0])
    rows = min(rows, -(-out_spatial[0] // parts))
    xg = win.reshape(n, g, cg, *win.shape[2:]) if win.shape[1] == c else win
    # [G, Cg, *k, N, rows, *rest]: the contraction axes (Cg, k) contiguous per group
    order = (1, 2, *range(3 + spatial, 3 + 2 * spatial), 0, *range(3, 3 + spatial))

    def tile(r0: int, r1: int) -> None:
        t = xg[:, :, :, r0:r1, ...]  # [N, G, Cg, rows, *rest, *k]
        p = (r1 - r0) * rest
        cols = np.ascontiguousarray(t.transpose(order), dtype=acc).reshape(g, cg * k, n * p)
        res = np.matmul(wm, cols)  # [G, Og, N*P]
        out[:, :, r0:r1, ...] = res.reshape(g * og, n, r1 - r0, *out_spatial[1:]).swapaxes(0, 1)

    tasks = [lambda r0=r0: tile(r0, min(out_spatial[0], r0 + rows)) for r0 in range(0, out_spatial[0], rows)]
    _run(tasks, len(tasks))
