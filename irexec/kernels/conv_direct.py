"""Convolution outputs written where they go, with the ReLU that follows them
applied there (a program's fused steps, irexec/executor/fusions.py)."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np

from ..system import parallel
from . import activations_compiled
from .elementwise import blockwise


def relu_in_place(a: np.ndarray) -> None:
    """ReLU of float ``a`` in place, with the ReLU op's steps (maximum against 0,
    then fmax for NaN): x > 0 ? x : 0, NaN and -0 giving +0, the same bits;
    compiled where another layer has loaded the compiled kernels, as the op."""
    if not activations_compiled.relu_in_place(a):
        blockwise(a, [(np.maximum, 0.0), (np.fmax, 0.0)], out=a)


def im2col_by_channels(win: np.ndarray, wm: np.ndarray, out: np.ndarray, relu: bool, parts: int,
                       run: Callable[[list, int], None]) -> None:
    """im2col of one image and one group whose column matrix fits a tile: the
    columns made once (filled by output rows over the threads when the product
    is cut in ``parts``) and the product cut by output channels, each piece
    written straight into its channels of ``out`` (C-contiguous: no result to
    copy) and put through the ReLU there.  ``win``: the window view [1, C,
    *out, *k]; ``wm``: the weights [Og, C * k].  Each output element is the
    same dot product as in tiles by rows, so the same bits.  (Cut finer, so
    that each piece's ReLU runs in the cache, BLAS ran slower on fewer rows.)"""
    og, kk = wm.shape
    spatial = out.shape[2:]
    n = len(spatial)
    order = (1, *range(2 + n, 2 + 2 * n), 0, *range(2, 2 + n))
    win = win[(slice(None), slice(None)) + tuple(slice(0, o) for o in spatial)].transpose(order)  # [C, *k, 1, *out]
    p = math.prod(spatial)
    cols = np.empty((kk, p), wm.dtype)
    grid = cols.reshape(win.shape)
    if parts > 1 and spatial[0] > 1:
        axis = (slice(None),) * (win.ndim - n)
        run([functools.partial(grid.__setitem__, axis + (slice(a, b),), win[axis + (slice(a, b),)])
             for a, b in parallel.spans(spatial[0], parts)], parts)
    else:
        grid[...] = win
    dest = out.reshape(og, p)

    def piece(a: int, b: int) -> None:
        np.matmul(wm[a:b], cols, out=dest[a:b])
        if relu:
            relu_in_place(dest[a:b])

    run([functools.partial(piece, a, b) for a, b in parallel.spans(og, parts)], parts)
