"""The columns of a first convolution layer through a compiled kernel (the ``jit`` extra).

An image model's first layer (3 input channels, a 3 x 3 kernel at stride 2 on 224 x 224)
goes through windows.py's im2col: the input padded (a copy), then its window view copied
into the column matrix, where at stride 2 each value is read from every other column
(0.12-0.14 ms of MobileNet's 0.4 ms layer, the padding another 0.04-0.05 ms).
im2col_jit.fill_columns pads each input row once and splits it into its even and odd
columns, so each tap's run is a unit-stride copy; the tiles and the BLAS products are
windows.py's (one image in one tile: the product written straight into the output), so
the results are bit for bit the same.  Few input channels
only (at most ``MAX_CHANNELS``), 2-D, strides 1 or 2, no dilation.  It never imports
Numba itself (a first layer runs before any other layer could): it runs once another
layer has imported it; IREXEC_JIT=0 turns it off.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from types import ModuleType

import numpy as np

from .jit_modules import jit_module

MAX_CHANNELS = 4  # input channels per group: an image's first layer
_module: ModuleType | None | bool = False  # im2col_jit, None without Numba; False: not asked yet


def _kernels() -> ModuleType | None:
    global _module
    if _module is False:
        if "numba" not in sys.modules:
            return None  # not loaded by another layer yet: asked again next time
        _module = jit_module("im2col_jit")
    return _module  # type: ignore[return-value]


def applies(x: np.ndarray, w: np.ndarray, strides: Sequence[int], dilations: Sequence[int],
            pads: tuple[Sequence[int], Sequence[int]] | None, out: np.ndarray) -> bool:
    """Whether ``columns`` can make this convolution's columns (and the kernels are loaded)."""
    return (len(strides) == 2 and w.shape[0] == 1 and w.shape[2] <= MAX_CHANNELS and x.dtype == out.dtype == w.dtype
            and x.dtype in (np.float32, np.float64) and x.flags.c_contiguous and tuple(dilations) == (1, 1)
            and all(s in (1, 2) for s in strides) and pads is not None and min(*pads[0], *pads[1]) >= 0
            and _kernels() is not None)


def columns(x: np.ndarray, kernel: Sequence[int], strides: Sequence[int], begin: Sequence[int], out_width: int,
            r0: int, r1: int) -> np.ndarray:
    """[1, C * KH * KW, N * (r1 - r0) * OW]: the im2col columns of output rows r0..r1 of
    ``x`` [N, C, H, W] zero padded by ``begin`` (and as many after as the windows reach)."""
    module = _kernels()
    assert module is not None  # applies() said so
    n, c, h, wd = x.shape
    kh, kw = kernel
    cols = np.empty((1, c * kh * kw, n * (r1 - r0) * out_width), x.dtype)
    width = (out_width - 1) * strides[1] + kw
    geometry = (n, c, h, wd, kh, kw, int(strides[0]), int(strides[1]), int(begin[0]), int(begin[1]), out_width)
    module.fill_columns(x.reshape(-1), cols.reshape(-1), geometry, r0, r1, np.empty(width, x.dtype),
                        np.empty(math.ceil(width / 2), x.dtype), np.empty(math.ceil(width / 2), x.dtype))
    return cols
