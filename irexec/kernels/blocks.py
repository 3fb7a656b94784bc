"""Block copies: moving same-shape views with NumPy's inner loop running as
long as the strides allow, big ones cut over the thread pool, and transposed
views copied tile by tile through a scratch buffer that stays in cache."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..system import parallel

# Below this size the merging of axes costs more than it saves.
_SMALL_BYTES = 1 << 16
# copy_parallel copies at most this many bytes with one np.copyto, on the calling thread
SMALL_COPY_BYTES = _SMALL_BYTES
# A transposed tile is staged in a scratch buffer of about this size, which
# stays in L1/L2 while it is read across its rows.
_TILE_BYTES = 32 << 10
# Tiles go this many bytes of scratch at a time (a few tiles, in L2) per NumPy call.
_GROUP_BYTES = 512 << 10
_LINE_BYTES = 64
# Tiles up to this many elements along the output's contiguous axis; a
# longer span leaves too few source rows per tile to amortise a call.
_TILE_COLS = 64
# A transposed block with a side shorter than this is copied whole: either
# NumPy's inner loop reads few source rows at a time, or reads them densely.
_MIN_TILE_SIDE = 32
# ... and so is a transpose of fewer bytes than this with a side up to _CACHED_SIDE: it stays
# in the L2 cache, where NumPy's plain copy reads its few source rows densely enough (ConvNeXt's
# [3136, 32] and [32, 3136] blocks: 0.4-0.5x the tiles' time; a side of 256 needs the tiles)
_CACHED_BYTES = 2 << 20
_CACHED_SIDE = 128


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
    shape, d_str, s_str = _reduced_layout(dst, src)
    return (np.lib.stride_tricks.as_strided(dst, shape, d_str),
            np.lib.stride_tricks.as_strided(src, shape, s_str, writeable=False))


def _reduced_layout(dst: np.ndarray, src: np.ndarray) -> tuple[list[int], list[int], list[int]]:
    """The shape and the two arrays' strides of ``_reduced``'s views (making the
    views costs 20 us, as much as copying 100 KB: only where they are used)."""
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
    return shape, d_str, s_str


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
    shape, d_str, s_str = _reduced_layout(dst, src)
    item = dst.itemsize
    last = len(shape) - 1
    inner = min(range(len(shape)), key=lambda a: abs(s_str[a]))
    tiles = (inner != last and abs(s_str[inner]) == item and abs(d_str[last]) == item
             and _tiles_pay(shape[inner], shape[last], dst.nbytes))
    parts = parallel.pieces(dst.nbytes)
    if not tiles and parts <= 1:
        np.copyto(dst, src)  # NumPy merges the axes itself
        return
    dst, src = _reduced(dst, src)
    if tiles and _transpose_tiles(dst, src, inner):
        return
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


def broadcast_into(dst: np.ndarray, src: np.ndarray) -> None:
    """``np.copyto(dst, src)`` with ``src`` broadcast to ``dst``'s shape, the
    big ones over the threads (np.broadcast_to costs more than a small copy)."""
    if dst.nbytes < parallel.MIN_PARALLEL_BYTES:
        np.copyto(dst, src)
    else:
        copy_parallel(dst, np.broadcast_to(src, dst.shape))


def _tiles_pay(rows: int, cols: int, nbytes: int) -> bool:
    """Whether a transposed block of ``rows`` by ``cols`` (of a copy of ``nbytes``) is
    copied faster tile by tile than by NumPy's plain copy."""
    short = min(rows, cols)
    return short >= _MIN_TILE_SIDE and not (nbytes < _CACHED_BYTES and short <= _CACHED_SIDE)


def _transpose_tiles(dst: np.ndarray, src: np.ndarray, k: int) -> bool:
    """Copy ``src`` into ``dst`` (reduced views; ``src`` contiguous along axis
    ``k``, ``dst`` along its last axis) as 2-D tiles [rows of axis k, columns
    of the last axis]: each tile's source rows are copied contiguously into a
    scratch buffer, and the scratch, read across while in L1, into ``dst``.
    A group of tiles (along those two axes, then along another axis when one
    2-D block is small) goes in one NumPy call each way, to spread the cost
    of the calls. Returns False (nothing copied) when a side is too short to
    tile: the plain copy then reads few source rows, or reads them densely."""
    last = dst.ndim - 1
    rows, cols = dst.shape[k], dst.shape[last]
    if not _tiles_pay(rows, cols, dst.nbytes):
        return False
    item = dst.itemsize
    per_tile = max(1, _TILE_BYTES // item)
    tc = min(cols, _TILE_COLS)
    tr = min(rows, max(1, per_tile // tc))
    tc = min(cols, max(tc, per_tile // tr))  # few rows: wider tiles
    groups = max(1, _GROUP_BYTES // (tr * tc * item))
    gr = min(groups, rows // tr)
    gc = max(1, min(groups // gr, cols // tc))
    span_r, span_c = gr * tr, gc * tc
    outer = [a for a in range(dst.ndim) if a not in (k, last)]
    batch, gb = None, 1
    if outer and span_r == rows and span_c == cols:  # whole blocks fit a group: take several
        batch = min(outer, key=lambda a: abs(dst.strides[a]))
        gb = max(1, min(groups // (gr * gc), dst.shape[batch]))
    outer_shape = [-(-dst.shape[a] // gb) if a == batch else dst.shape[a] for a in outer]
    # the window's axes (batch, k, last) in the order that indexing keeps them
    kept = sorted([k, last] if batch is None else [batch, k, last])
    order = [kept.index(a) for a in ([k, last] if batch is None else [batch, k, last])]
    n_r, n_c = -(-rows // span_r), -(-cols // span_c)
    n_units = math.prod(outer_shape) * n_r * n_c
    # rows one cache line longer than a tile: reading a column then touches
    # every L1 set, not the few that rows a power of two apart share
    pad = max(1, _LINE_BYTES // item)

    def units(lo: int, hi: int) -> None:
        scratch = np.empty((gb, gr, gc, tc, tr + pad), dst.dtype)
        index: list[Any] = [0] * dst.ndim  # ints, then the batch axis a slice
        for u in range(lo, hi):
            u, c = divmod(u, n_c)
            u, r = divmod(u, n_r)
            for a, n in zip(reversed(outer), reversed(outer_shape)):
                u, index[a] = divmod(u, n)
            if batch is not None:
                b0 = int(index[batch]) * gb
                index[batch] = slice(b0, b0 + gb)
            r0, c0 = r * span_r, c * span_c
            index[k], index[last] = slice(r0, r0 + span_r), slice(c0, c0 + span_c)
            window = tuple(index)
            d, s = dst[window].transpose(order), src[window].transpose(order)
            if batch is None:
                d, s = d[None], s[None]
            n_rows, n_cols = d.shape[1:]
            cut_r, cut_c = n_rows - n_rows % tr, n_cols - n_cols % tc
            for rs, th in ((slice(0, cut_r), tr), (slice(cut_r, n_rows), n_rows - cut_r)):
                for cs, tw in ((slice(0, cut_c), tc), (slice(cut_c, n_cols), n_cols - cut_c)):
                    if th and tw:
                        _tile_block(d[:, rs, cs], s[:, rs, cs], th, tw, scratch)

    parts = parallel.pieces(dst.nbytes)
    tasks: list[Callable[[], None]] = [functools.partial(units, lo, hi)
                                       for lo, hi in parallel.spans(n_units, parts)]
    parallel.run(tasks, dst.nbytes)
    return True


def _tile_block(d: np.ndarray, s: np.ndarray, th: int, tw: int, scratch: np.ndarray) -> None:
    """``d[...] = s`` for 3-D views [batch, rows, cols] whose rows and cols are
    multiples of the tile [th, tw]: seen as [batch, row tiles, th, col tiles,
    tw] (splitting an axis is always a view), the tiles go into ``scratch``
    [batch, tiles, tiles, tw, >= th] with the source's contiguous rows
    innermost, then out across it."""
    shape = [d.shape[0], d.shape[1] // th, th, d.shape[2] // tw, tw]
    buf = scratch[:shape[0], :shape[1], :shape[3], :tw, :th]
    np.copyto(buf, _view(s, shape).transpose(0, 1, 3, 4, 2))
    np.copyto(_view(d, shape), buf.transpose(0, 1, 4, 2, 3))
