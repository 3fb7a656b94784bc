"""Block copies: moving same-shape views with NumPy's inner loop running as
long as the strides allow, big ones cut over the thread pool, and transposed
views copied tile by tile through a scratch buffer that stays in cache."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np

from .. import parallel

# Below this size the merging of axes costs more than it saves.
_SMALL_BYTES = 1 << 16
# A transposed tile is staged in a scratch buffer of about this size, which
# stays in L1/L2 while it is read across its rows.
_TILE_BYTES = 32 << 10
# Tiles go this many bytes of scratch at a time (a few tiles, in L2) per NumPy call.
_GROUP_BYTES = 256 << 10
_LINE_BYTES = 64
# Tiles up to this many elements along the output's contiguous axis; a
# longer span leaves too few source rows per tile to amortise a call.
_TILE_COLS = 64
# Smaller transposed blocks are copied whole: a tile's two NumPy calls and
# its indexing (a few microseconds) would cost more than the cache saves.
_MIN_TILE_ELEMS = 2048


def merge_trailing(dst: np.ndarray, src: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Views of two same-shape arrays with their trailing axes merged as far
    as the strides of both allow (a merged axis is walked at one stride)."""
    shape, d_str, s_str = list(dst.shape), list(dst.strides), list(src.strides)
    while len(shape) > 1 and d_str[-2] == shape[-1] * d_str[-1] and s_str[-2] == shape[-1] * s_str[-1]:
        shape[-2:] = [shape[-2] * shape[-1]]
        d_str[-2:], s_str[-2:] = [d_str[-1]], [s_str[-1]]
    if len(shape) == dst.ndim:
        return dst, src
    return _view(dst, shape), _view(src, shape)


def copy_runs(dst: np.ndarray, src: np.ndarray) -> None:
    """``dst[...] = src`` for same-shape, same-dtype views (any strides, also
    negative), with trailing axes merged so NumPy's inner loop runs long.
    (Copying runs as opaque void elements was tried: NumPy holds the GIL for
    those, so threads stopped scaling, and it was no faster on one thread.)"""
    if dst.ndim > 1 and dst.size and dst.nbytes > _SMALL_BYTES:  # small: overhead dominates
        dst, src = merge_trailing(dst, src)
    np.copyto(dst, src)


def _view(a: np.ndarray, shape: list[int]) -> np.ndarray:
    """``a`` reshaped to ``shape``, which the caller checked needs no copy."""
    try:
        return a.reshape(shape, copy=False)
    except TypeError:  # NumPy < 2.1 has no copy=; the strides check makes it a view anyway
        return a.reshape(shape)


def _reduced(dst: np.ndarray, src: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Views of two same-shape arrays without their length-1 axes and with
    every pair of neighbouring axes merged that both walk at one stride."""
    keep = [a for a in range(dst.ndim) if dst.shape[a] != 1]
    shape = [dst.shape[a] for a in keep]
    d_str = [dst.strides[a] for a in keep]
    s_str = [src.strides[a] for a in keep]
    a = len(shape) - 1
    while a > 0:
        if d_str[a - 1] == shape[a] * d_str[a] and s_str[a - 1] == shape[a] * s_str[a]:
            shape[a - 1:a + 1] = [shape[a - 1] * shape[a]]
            d_str[a - 1:a + 1], s_str[a - 1:a + 1] = [d_str[a]], [s_str[a]]
        a -= 1
    if not shape:
        shape, d_str, s_str = [1], [dst.itemsize], [src.itemsize]
    return (np.lib.stride_tricks.as_strided(dst, shape, d_str),
            np.lib.stride_tricks.as_strided(src, shape, s_str, writeable=False))


def copy_parallel(dst: np.ndarray, src: np.ndarray) -> None:
    """``np.copyto(dst, src)`` for same-shape, same-dtype arrays of any
    strides (transposed, reversed, windowed views), the big ones cut into
    disjoint parts filled from the thread pool. When the source's contiguous
    axis is not the destination's (a transpose that moves the last axis),
    the copy goes tile by tile through a small scratch buffer: NumPy walks the
    destination's contiguous axis innermost, so copying the view directly
    reads one element from each of many distant source rows per step."""
    if dst.nbytes <= _SMALL_BYTES or dst.size == 0:
        np.copyto(dst, src)
        return
    dst, src = _reduced(dst, src)
    item = dst.itemsize
    last = dst.ndim - 1
    inner = min(range(dst.ndim), key=lambda a: abs(src.strides[a]))
    if (inner != last and abs(src.strides[inner]) == item and abs(dst.strides[last]) == item
            and _transpose_tiles(dst, src, inner)):
        return
    parts = parallel.pieces(dst.nbytes)
    if parts <= 1:
        np.copyto(dst, src)
        return
    # the first axis long enough for every part (else the longest): pieces stay big and few
    axis = next((a for a in range(dst.ndim) if dst.shape[a] >= parts), None)
    if axis is None:
        axis = max(range(dst.ndim), key=lambda a: dst.shape[a])
    lead = (slice(None),) * axis
    tasks = [functools.partial(np.copyto, dst[lead + (slice(lo, hi),)], src[lead + (slice(lo, hi),)])
             for lo, hi in parallel.spans(dst.shape[axis], parts)]
    parallel.run(tasks, dst.nbytes)


def _transpose_tiles(dst: np.ndarray, src: np.ndarray, k: int) -> bool:
    """Copy ``src`` into ``dst`` (reduced views; ``src`` contiguous along axis
    ``k``, ``dst`` along its last axis) as 2-D tiles [rows of axis k, columns
    of the last axis]: each tile's source rows are copied contiguously into a
    scratch buffer, and the scratch, read across while in L1, into ``dst``.
    A few tiles along axis k go in one NumPy call each way, to spread the
    cost of the calls. Returns False (nothing copied) when the blocks are too
    small to tile."""
    last = dst.ndim - 1
    rows, cols = dst.shape[k], dst.shape[last]
    item = dst.itemsize
    tc = min(cols, _TILE_COLS)
    tr = min(rows, max(16, _TILE_BYTES // item // tc))
    if tr * tc < _MIN_TILE_ELEMS:
        return False
    group = max(1, min(_GROUP_BYTES // (tr * tc * item), rows // tr))
    span = group * tr
    outer = [a for a in range(dst.ndim) if a not in (k, last)]
    outer_shape = [dst.shape[a] for a in outer]
    n_r, n_c = -(-rows // span), -(-cols // tc)
    n_units = math.prod(outer_shape) * n_r * n_c
    # rows one cache line longer than a tile: reading a column then touches
    # every L1 set, not the few that rows a power of two apart share
    pad = max(1, _LINE_BYTES // item)

    def units(lo: int, hi: int) -> None:
        scratch = np.empty((group, tc, tr + pad), dst.dtype)
        index: list[int | slice] = [0] * dst.ndim
        for u in range(lo, hi):
            u, c = divmod(u, n_c)
            u, r = divmod(u, n_r)
            for a, n in zip(reversed(outer), reversed(outer_shape)):
                u, index[a] = divmod(u, n)
            r0, c0 = r * span, c * tc
            index[k], index[last] = slice(r0, r0 + span), slice(c0, c0 + tc)
            window = tuple(index)
            d, s = dst[window], src[window]  # [rows, cols] in this order: k < last
            n_rows, n_cols = d.shape
            full = n_rows // tr * tr
            if full:  # whole tiles: [tiles, tr, cols] through scratch [tiles, cols, tr]
                buf = scratch[:full // tr, :n_cols, :tr]
                np.copyto(buf, s[:full].reshape(-1, tr, n_cols).transpose(0, 2, 1))
                np.copyto(_view(d[:full], [-1, tr, n_cols]), buf.transpose(0, 2, 1))  # splitting an axis: a view
            if full < n_rows:  # the last rows of axis k: one short tile
                buf = scratch[0, :n_cols, :n_rows - full]
                np.copyto(buf, s[full:].T)
                np.copyto(d[full:], buf.T)

    parts = parallel.pieces(dst.nbytes)
    tasks: list[Callable[[], None]] = [functools.partial(units, lo, hi)
                                       for lo, hi in parallel.spans(n_units, parts)]
    parallel.run(tasks, dst.nbytes)
    return True
