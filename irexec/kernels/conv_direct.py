"""Convolution outputs written where they go, with the ReLU that follows them
applied there (a program's fused steps, irexec/executor/fusions.py)."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence

import numpy as np

from ..system import parallel
from . import activations_compiled
from .elementwise import blockwise
from .jit_modules import AfterNumba


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
    kk = wm.shape[1]
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
    _product_by_channels(wm, cols, out, relu, parts, run)


def _product_by_channels(wm: np.ndarray, cols: np.ndarray, out: np.ndarray, relu: bool, parts: int,
                         run: Callable[[list, int], None]) -> None:
    """``out`` = ``wm`` [Og, K] @ ``cols`` [K, P], cut by output channels in ``parts``,
    each piece written into its channels of ``out`` and put through the ReLU there."""
    og, p = wm.shape[0], cols.shape[1]
    dest = out.reshape(og, p)

    def piece(a: int, b: int) -> None:
        np.matmul(wm[a:b], cols, out=dest[a:b])
        if relu:
            relu_in_place(dest[a:b])

    run([functools.partial(piece, a, b) for a, b in parallel.spans(og, parts)], parts)


# The compiled column builder, imported once Numba is loaded (a model without compiled
# layers never imports Numba for it)
_IM2COL = AfterNumba("im2col_jit")
# Input channels up to which a layer's columns are built compiled: a first layer's (RGB),
# whose NumPy strided copy of a few long rows cost more than its product, and SqueezeNet's
# 3 x 3 expand layers (16 to 64 channels: the whole run 0.90-0.95x; benchmarks/README.md,
# "Kernel calls of repeated runs"); ConvNeXt's 2 x 2 downsampling (96 channels and more)
# gained nothing
COMPILED_COLUMNS_MAX_CHANNELS = 64


def _compiled_columns() -> Callable[..., None] | None:
    module = _IM2COL.get()
    return None if module is None else module.columns


def compiled_first_layer(x: np.ndarray, wm: np.ndarray, kernel: Sequence[int], strides: Sequence[int],
                         dilations: Sequence[int], begin: Sequence[int], out: np.ndarray, relu: bool,
                         parts: int, run: Callable[[list, int], None]) -> bool:
    """im2col_by_channels of an unpadded image ``x`` [1, C, H, W] (``begin`` zeros before
    the data, as many after as the windows reach) whose columns a compiled kernel builds,
    straight from ``x`` (no padded copy, no strided view), by output rows over the threads;
    the product and the ReLU are im2col_by_channels', so the same bits.  False, and nothing
    written, where it does not apply: more than 64 input channels, a stride along x
    other than 1 or 2, not 2-D, or Numba not loaded yet."""
    c = x.shape[1]
    if x.ndim != 4 or x.shape[0] != 1 or c > COMPILED_COLUMNS_MAX_CHANNELS or strides[1] not in (1, 2) \
            or x.dtype != wm.dtype or x.dtype.kind != "f" or min(begin) < 0:
        return False
    columns = _compiled_columns()
    if columns is None:
        return False
    oh, ow = out.shape[2:]
    sx, dx = int(strides[1]), int(dilations[1])
    plen = ow + ((kernel[1] - 1) * dx) // sx
    xs = np.ascontiguousarray(x).reshape(-1)
    cols = np.empty((wm.shape[1], oh * ow), wm.dtype)
    geometry = (c, x.shape[2], x.shape[3], int(kernel[0]), int(kernel[1]), int(strides[0]), sx,
                int(dilations[0]), dx, int(begin[0]), int(begin[1]), ow)
    if parts > 1 and oh > 1:
        run([functools.partial(columns, xs, cols, geometry, a, b, np.empty(sx * plen, x.dtype))
             for a, b in parallel.spans(oh, parts)], parts)
    else:
        columns(xs, cols, geometry, 0, oh, np.empty(sx * plen, x.dtype))
    _product_by_channels(wm, cols, out, relu, parts, run)
    return True
