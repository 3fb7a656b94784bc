"""Sliding windows over the spatial axes of ``[N, C, *spatial]`` tensors:
padding, strided window views, and convolution as im2col + BLAS matmul in
bounded-size tiles.  Shared by Convolution, GroupConvolution and the pooling
ops; no op-specific validation here (the callers' ``infer`` did it)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..base import limits
from ..base.dtypes import is_bf16
from ..system import parallel
from . import depthwise_compiled
from .conv_direct import compiled_first_layer, im2col_by_channels, relu_in_place

# The column matrix of one im2col tile stays below this many bytes.
TILE_BYTES = 32 << 20


def accumulator(dtype: np.dtype) -> np.dtype:
    """The type a float sum is carried in: f32 for 16-bit floats (and f32),
    f64 for f64; integers in their own type (wrap-around, as C++ does)."""
    if dtype.kind == "f" and dtype.itemsize >= 8:
        return np.dtype(np.float64)
    if dtype.kind in "fV" or is_bf16(dtype):
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
    # the borders filled, the data copied in: np.pad costs ~0.1 ms of Python per call
    shape = x.shape[:lead] + tuple(n + b + e for n, b, e in zip(x.shape[lead:], begin, end))
    limits.require(math.prod(shape) * x.dtype.itemsize, f"the input padded to {list(shape[lead:])}")  # pads are attributes
    out = np.empty(shape, x.dtype)
    for i, (b, e) in enumerate(zip(begin, end)):
        axis = (slice(None),) * (lead + i)
        if b:
            out[axis + (slice(0, b),)] = value
        if e:
            out[axis + (slice(out.shape[lead + i] - e, None),)] = value
    out[(slice(None),) * lead + tuple(slice(b, b + n) for b, n in zip(begin, x.shape[lead:]))] = x
    return out


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


def product_parts(macs: int, limit: int) -> int:
    """How many independent pieces to cut a product of ``macs`` multiply-adds into."""
    if macs < MIN_PARALLEL_MACS or limit <= 1:
        return 1
    return max(1, min(parallel.num_threads() * 2, limit, macs // MIN_PARALLEL_MACS))


def run_tasks(tasks: list, parts: int) -> None:
    # the output size is what parallel.run weighs; these tasks are compute bound
    parallel.run(tasks, parallel.MIN_PARALLEL_BYTES if parts > 1 else 0)


def conv_nd(x: np.ndarray, w: np.ndarray, groups: int, strides: Sequence[int], dilations: Sequence[int],
            out_spatial: Sequence[int], out_dtype: np.dtype,
            pads: tuple[Sequence[int], Sequence[int]] | None = None, *,
            into: np.ndarray | None = None, relu: bool = False) -> np.ndarray:
    """Grouped convolution of ``x`` [N, G*Cg, *sp], padded with zeros by
    ``pads`` (begin, end; None: already padded), with ``w`` [G, Og, Cg, *k].
    Returns [N, G*Og, *out_spatial], written into ``into`` when given (a
    C-contiguous array of that shape and type: a part of a Concat's output);
    ``relu`` (float outputs): followed by a ReLU, applied to each tile while
    it is in the cache (a Convolution whose only reader is a ReLU).  Three ways,
    chosen by shape: a 1x1 kernel is one matmul on the (strided) input (a
    small unpadded one straight on the input's view); few
    input channels per group (depthwise) is a multiply-accumulate per kernel
    offset over strided views; anything else is im2col tiles through BLAS."""
    n, c = x.shape[:2]
    g, og, cg = w.shape[:3]
    kernel = w.shape[3:]
    k = math.prod(kernel)
    acc = accumulator(x.dtype)
    if k == 1 and g == 1 and x.dtype == acc == out_dtype and og * x.size < MIN_PARALLEL_MACS \
            and x.shape[2:] == tuple(out_spatial) and (pads is None or not any(pads[0]) and not any(pads[1])):
        # a pointwise layer too small for threads (a squeeze-excitation block's): one matmul, without
        # the general path's slicing and copies, which cost as much as the product on a 1x1 image
        if into is not None:
            small = np.matmul(w.reshape(og, cg), x.reshape(n, c, -1), out=into.reshape(n, og, -1))
        else:
            small = np.matmul(w.reshape(og, cg), x.reshape(n, c, -1))
        if relu:
            relu_in_place(small)
        return small.reshape(n, og, *out_spatial)
    out = np.empty((n, g * og, *out_spatial), out_dtype) if into is None else into
    if out.size == 0:
        return out
    if cg * k == 0:
        out[...] = 0
        return out
    begin = tuple(pads[0]) if pads is not None else (0,) * len(kernel)
    # (the depthwise kernel splits the input into prod(strides) phases: huge strides go to im2col)
    if cg * og <= 4 and k <= 64 and k > 1 and min(begin) >= 0 and math.prod(strides) <= 256:
        _conv_depthwise(x, w, strides, dilations, begin, out, acc)  # pads as it splits the phases
        if relu:
            relu_in_place(out)
        return out
    if k > 1 and n == 1 and g == 1 and len(kernel) == 2 and out.dtype == acc and out.flags.c_contiguous \
            and cg * k * math.prod(out_spatial) * acc.itemsize <= TILE_BYTES \
            and compiled_first_layer(x, w.reshape(og, cg * k).astype(acc, copy=False), kernel, strides, dilations,
                                     begin, out, relu, product_parts(og * cg * k * math.prod(out_spatial), og),
                                     run_tasks):
        return out  # (an RGB image's columns, built from the unpadded input once Numba is loaded)
    if pads is not None:
        x = pad_spatial(x, pads[0], pads[1], 0)
    if k == 1:
        _conv_1x1(x, w, strides, out, acc, relu)
    else:
        _conv_im2col(x, w, strides, dilations, out, acc, relu)
    return out


def _product(wm: np.ndarray, cols: np.ndarray, res: np.ndarray) -> None:
    """``res = wm @ cols`` ([.., G, Og, K] by [.., G, K, P]), split over the
    threads along its longer side when big: a few positions by many filters
    (a classifier on a 13x13 map) cut into column pieces would leave each
    BLAS call too narrow."""
    og, k, p = wm.shape[-2], wm.shape[-1], cols.shape[-1]
    by_rows = og > p
    parts = product_parts(math.prod(cols.shape[:-2]) * og * k * p, og if by_rows else p)
    if parts == 1:
        np.matmul(wm, cols, out=res)
    elif by_rows:
        run_tasks([lambda a=a, b=b: np.matmul(wm[..., a:b, :], cols, out=res[..., a:b, :])
              for a, b in parallel.spans(og, parts)], parts)
    else:
        run_tasks([lambda a=a, b=b: np.matmul(wm, cols[..., a:b], out=res[..., a:b])
              for a, b in parallel.spans(p, parts)], parts)


def _conv_1x1(x: np.ndarray, w: np.ndarray, strides: Sequence[int], out: np.ndarray, acc: np.dtype,
              relu: bool = False) -> None:
    n = x.shape[0]
    g, og, cg = w.shape[:3]
    out_spatial = out.shape[2:]
    xs = x[(slice(None), slice(None)) + tuple(slice(0, (o - 1) * s + 1, s) for o, s in zip(out_spatial, strides))]
    p = math.prod(out_spatial)
    cols = np.ascontiguousarray(xs, dtype=acc).reshape(n, g, cg, p)
    wm = w.reshape(g, og, cg).astype(acc, copy=False)
    direct = out.dtype == acc  # out is C-contiguous: a view of it
    res = out.reshape(n, g, og, p) if direct else np.empty((n, g, og, p), acc)
    _product(wm, cols, res)
    if relu:
        relu_in_place(res)
    if not direct:
        out[...] = res.reshape(out.shape)


# Output channels from which a depthwise convolution is computed channels
# last, by one einsum (measured on MobileNet's layers: below, the channels-
# first runs are faster; from 72 channels the einsum, by up to 4x strided).
CHANNELS_LAST_FROM = 72


def _conv_depthwise(x: np.ndarray, w: np.ndarray, strides: Sequence[int], dilations: Sequence[int],
                    begin: Sequence[int], out: np.ndarray, acc: np.dtype) -> None:
    """Few input channels per group (depthwise): one weight per channel and
    kernel offset ("tap"), no im2col.  NumPy's cost is per innermost run, so
    the layout is chosen for long runs: with many channels, channels last
    (``_depthwise_channels_last``); with few, channels first: the input is
    split once into its stride phases (``x[..., r::s]`` per residue ``r``,
    with ``begin`` zeros before the data on each axis and as many after as the
    windows reach), so the taps of a phase read it at unit stride, and each
    tap is a multiply-accumulate over one shifted run per channel of the phase
    flattened (the output covers whole phase rows; the columns past the output
    width are scratch, dropped at the end).  With the ``jit`` extra, a 2-D layer
    of one channel per group and a wide enough output runs compiled instead
    (kernels/depthwise_compiled.py)."""
    n, g, og, cg, kernel, out_spatial = _depthwise_geometry(x, w, out)
    r, c = len(kernel), g * og
    if cg == og == 1 and r == 2 and x.dtype == acc == out.dtype and acc.kind == "f" \
            and depthwise_compiled.run(x, w, strides, dilations, begin, out):
        return
    if c >= CHANNELS_LAST_FROM or _row_runs(c, strides, out_spatial) and out.nbytes < parallel.MIN_PARALLEL_BYTES:
        _depthwise_channels_last(x, w, strides, dilations, begin, out, acc)
        return
    # the windows reach (o-1)*s + (k-1)*d + 1 positions of the padded axis
    reach = _reach(out_spatial, strides, kernel, dilations)
    phase_dims = [-(-m // s) for m, s in zip(reach, strides)]
    # per phase: the kernel indices of its taps on each axis, and their offsets in the phase (regular grids)
    per_axis = [{q: [k for k in range(kk) if k * d % s == q] for q in range(s)} for kk, d, s in zip(kernel, dilations, strides)]
    grids = [(res, [per_axis[a][q] for a, q in enumerate(res)])
             for res in np.ndindex(*strides) if all(per_axis[a][q] for a, q in enumerate(res))]
    flat = [math.prod(phase_dims[a + 1:]) for a in range(r)]  # flat stride of each phase axis
    run = out_spatial[0] * flat[0]
    size = math.prod(phase_dims)
    # the farthest tap's shift plus a run may pass the phase's end: zeros there
    tail = max(0, sum((kk - 1) * d // s * f for kk, d, s, f in zip(kernel, dilations, strides, flat)) + run - size)
    wc = w.reshape(c, cg, *kernel).astype(acc, copy=False)  # weight of output channel (group, o), input ci, tap
    limits.require((n * c * run + n * cg * g * (size + tail)) * acc.itemsize, f"the padded phases of {list(reach)} positions")
    total = np.empty((n, c, run), acc)

    def phase(xs: np.ndarray, res: tuple[int, ...]) -> np.ndarray:
        """Padded positions r, r+s, r+2s... of every spatial axis."""
        ph = np.zeros((n, xs.shape[1], size + tail), acc)
        grid = ph[:, :, :size].reshape(n, xs.shape[1], *phase_dims)
        src, dst = [slice(None), slice(None)], []
        for q, s, b, length, p in zip(res, strides, begin, xs.shape[2:], phase_dims):
            t0 = max(0, -(-(b - q) // s))  # first phase index on data
            i0 = q + s * t0 - b
            m = min(p - t0, len(range(i0, length, s)))
            if m <= 0:
                return ph  # this phase sees only padding
            src.append(slice(i0, i0 + (m - 1) * s + 1, s))
            dst.append(slice(t0, t0 + m))
        grid[tuple([slice(None), slice(None), *dst])] = xs[tuple(src)]
        return ph

    def channels(c0: int, c1: int) -> None:
        dest = total[:, c0:c1]
        first = True
        tmp = None
        for ci in range(cg):
            xs = x[:, ci::cg] if cg > 1 else x  # input channel ci of every group
            if og > 1:
                xs = np.repeat(xs, og, axis=1)  # once per output channel of its group
            xs = xs[:, c0:c1]
            wci = wc[c0:c1, ci]  # [C, *kernel]
            for res, ks in grids:
                ph = phase(xs, res)
                offs = [[k * d // s for k in kl] for kl, d, s in zip(ks, dilations, strides)]
                wt = wci[tuple([slice(None), *(_progression(kl) for kl in ks)])]  # [C, *taps]
                for idx in np.ndindex(*wt.shape[1:]):
                    shift = sum(o[i] * f for o, i, f in zip(offs, idx, flat))
                    np.multiply(ph[:, :, shift:shift + run], wt[tuple([slice(None), *idx])][:, None], out=dest if first else tmp)
                    if first:
                        tmp = np.empty_like(dest)
                    else:
                        dest += tmp
                    first = False

    # by output size only: weighing by the passes (to thread mid-size layers) made MobileNet's 3x slower
    parts = parallel_parts(out.nbytes, c)
    run_tasks([lambda a=a, b=b: channels(a, b) for a, b in parallel.spans(c, parts)], parts)
    full = total.reshape(n, c, out_spatial[0], *phase_dims[1:])
    out[...] = full[(slice(None), slice(None), slice(None)) + tuple(slice(0, o) for o in out_spatial[1:])]


def _depthwise_geometry(x: np.ndarray, w: np.ndarray, out: np.ndarray) -> tuple[int, int, int, int, tuple[int, ...], tuple[int, ...]]:
    """Batch, groups, outputs and inputs per group, kernel, output spatial dims."""
    g, og, cg = w.shape[:3]
    return x.shape[0], g, og, cg, tuple(w.shape[3:]), tuple(out.shape[2:])


def _reach(out_spatial: Sequence[int], strides: Sequence[int], kernel: Sequence[int],
           dilations: Sequence[int]) -> list[int]:
    """Positions of each padded axis the windows reach: (o-1)*s + (k-1)*d + 1."""
    return [(o - 1) * s + (kk - 1) * d + 1 for o, s, kk, d in zip(out_spatial, strides, kernel, dilations)]


def _progression(values: list[int]) -> slice:
    """The slice picking an arithmetic progression (the taps of one phase)."""
    step = values[1] - values[0] if len(values) > 1 else 1
    return slice(values[0], values[-1] + 1, step)


# Output width from which a channels-last depthwise convolution of stride 1
# along the width sums runs of the whole output row (measured on MobileNet's
# shapes: 0.56x the time at 56 x 56, 0.7-0.9x at 28 and 14, 1.2x at 7).
ROW_RUNS_FROM = 14


def _row_runs(c: int, strides: Sequence[int], out_spatial: Sequence[int]) -> bool:
    """Whether channels last sums runs of whole output rows: stride 1 along a
    wide enough last axis.  Then it is also faster than channels first from
    ``ROW_RUNS_CHANNELS_FROM`` channels (0.74-0.84x the time on 6-48 channel
    layers of 28-112 wide maps; 1.2-1.7x with 2-4 channels).  (Its one
    thread: only where channels first would not be cut over threads either.)"""
    return strides[-1] == 1 and out_spatial[-1] >= ROW_RUNS_FROM and c >= ROW_RUNS_CHANNELS_FROM


ROW_RUNS_CHANNELS_FROM = 8


def _depthwise_channels_last(x: np.ndarray, w: np.ndarray, strides: Sequence[int], dilations: Sequence[int],
                             begin: Sequence[int], out: np.ndarray, acc: np.dtype) -> None:
    """The input copied once channels last with its padding, then per input
    channel of a group one ``einsum`` over a strided view [N, *taps, *out, C]
    of it (every tap and stride is a stride of the view, so no phases),
    summing the taps in one pass each.  NumPy's cost is per innermost run:
    with stride 1 along a wide enough last axis, that axis and the channels
    are one contiguous run [out[-1] * C] of the view, the weights repeated
    along it to match.  One thread: einsum releases the GIL, but cutting
    MobileNet's layers over two threads measured 1.1-1.4x slower on a loaded
    2-CPU host, and a multiply-add per tap (two passes over the output each)
    1.4-3x slower (benchmarks/README.md)."""
    n, g, og, cg, kernel, out_spatial = _depthwise_geometry(x, w, out)
    r, c = len(kernel), g * og
    reach = _reach(out_spatial, strides, kernel, dilations)
    limits.require(n * math.prod(reach) * x.shape[1] * acc.itemsize, f"the input padded to {list(reach)}")
    xc = np.zeros((n, *reach, x.shape[1]), acc)
    src, dst = [slice(None), slice(None)], [slice(None)]
    for b, length, m in zip(begin, x.shape[2:], xc.shape[1:-1]):
        take = max(0, min(length, m - b))  # data past the last window is not read
        src.append(slice(0, take))
        dst.append(slice(b, b + take))
    xc[tuple(dst)] = np.moveaxis(x[tuple(src)], 1, -1)
    wc = np.ascontiguousarray(np.moveaxis(w.reshape(c, cg, *kernel), 0, -1), dtype=acc)  # [Cg, *kernel, C]
    rows = _row_runs(c, strides, out_spatial)
    if rows:  # the weights [Cg, *kernel, out[-1] * C]
        limits.require(wc.size * out_spatial[-1] * acc.itemsize, "the depthwise weights repeated along a row")
        wc = np.ascontiguousarray(np.broadcast_to(wc[..., None, :], (*wc.shape[:-1], out_spatial[-1], c)))
        wc = wc.reshape(*wc.shape[:-2], -1)
    run = out_spatial[-1] * c if rows else c
    outs = out_spatial[:-1] if rows else out_spatial
    taps, letters = "abcdef"[:r], "uvwxyz"[:len(outs)]
    total = None
    for ci in range(cg):
        # output channel (group, o) reads input channel group * cg + ci
        xs = xc if cg == 1 and og == 1 else np.take(xc, np.arange(c) // og * cg + ci, axis=-1)
        st = xs.strides
        view = np.lib.stride_tricks.as_strided(
            xs, (n, *kernel, *outs, run),
            (st[0], *[st[1 + a] * dilations[a] for a in range(r)], *[st[1 + a] * strides[a] for a in range(len(outs))], st[-1]),
            writeable=False)
        part = np.einsum(f"n{taps}{letters}q,{taps}q->n{letters}q", view, wc[ci])
        if total is None:
            total = part
        else:
            total += part
    assert total is not None  # every input channel added its part
    out[...] = np.moveaxis(total.reshape(n, *out_spatial, c), -1, 1)


def parallel_parts(nbytes: int, limit: int) -> int:
    """Pieces for a compute-bound kernel writing ``nbytes``, at most ``limit``."""
    return max(1, min(parallel.pieces(nbytes), limit))


def _conv_im2col(x: np.ndarray, w: np.ndarray, strides: Sequence[int], dilations: Sequence[int],
                 out: np.ndarray, acc: np.dtype, relu: bool = False) -> None:
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
    if n == 1 and g == 1 and out.dtype == acc and out.flags.c_contiguous \
            and c * k * out_spatial[0] * rest * acc.itemsize <= TILE_BYTES:
        parts = product_parts(og * cg * k * math.prod(out_spatial), og)
        im2col_by_channels(win, wm[0], out, relu, parts, run_tasks)
        return
    per_row = n * c * rest * k * acc.itemsize
    rows = max(1, TILE_BYTES // max(per_row, 1))
    parts = product_parts(n * g * og * cg * k * math.prod(out_spatial), out_spatial[0])
    rows = min(rows, -(-out_spatial[0] // parts))
    xg = win.reshape(n, g, cg, *win.shape[2:]) if win.shape[1] == c else win
    # [G, Cg, *k, N, rows, *rest]: the contraction axes (Cg, k) contiguous per group
    order = (1, 2, *range(3 + spatial, 3 + 2 * spatial), 0, *range(3, 3 + spatial))

    def tile(r0: int, r1: int) -> None:
        t = xg[:, :, :, r0:r1, ...]  # [N, G, Cg, rows, *rest, *k]
        p = (r1 - r0) * rest
        cols = np.ascontiguousarray(t.transpose(order), dtype=acc).reshape(g, cg * k, n * p)
        res = np.matmul(wm, cols)  # [G, Og, N*P]
        if relu:
            relu_in_place(res)
        out[:, :, r0:r1, ...] = res.reshape(g * og, n, r1 - r0, *out_spatial[1:]).swapaxes(0, 1)

    tasks = [lambda r0=r0: tile(r0, min(out_spatial[0], r0 + rows)) for r0 in range(0, out_spatial[0], rows)]
    run_tasks(tasks, len(tasks))
