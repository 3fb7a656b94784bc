"""The compiled column building of a first layer's im2col (conv_direct.py; imported only
where Numba is installed and already loaded by another layer).

Module-level functions, so that Numba's on-disk cache keys them by name alone.  Only copies:
the columns hold the values NumPy's padded window view holds, zeros where a window reaches
past the data, so the product that follows gives the same bits.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from .depthwise_jit import _split_row2

njit: Any = numba.njit


@njit(nogil=True, cache=True)
def columns(x: Any, cols: Any, geometry: Any, oy0: int, oy1: int, phases: Any) -> None:
    """Rows ``oy0:oy1`` of the output's columns: ``cols`` [C * KH * KW, OH * OW] from ``x``
    (one image, flat [C * H * W]), the windows at strides (SY, SX) (SX 1 or 2), dilations
    (DY, DX), ``PT`` and ``PL`` zeros before the data.  Each input row a window row reads is
    padded into ``phases`` (SX rows of ``len(phases) // SX``) once, split into its even and
    odd columns at stride 2, so that every tap is a unit-stride copy of OW values."""
    c, h, w, kh, kw, sy, sx, dy, dx, pt, pl, ow = geometry
    plen = phases.size // sx
    zero = cols.dtype.type(0)
    for i in range(phases.size):  # the padding; the data's positions are written for every row
        phases[i] = zero
    n = max(0, min(w, sx * plen - pl))  # values of a row that windows reach
    p = cols.shape[1]
    flat = cols.reshape(-1)
    for oy in range(oy0, oy1):
        base = oy * ow
        for ky in range(kh):
            iy = oy * sy + ky * dy - pt
            for ci in range(c):
                row0 = (ci * kh + ky) * kw
                if iy < 0 or iy >= h:
                    for kx in range(kw):
                        d0 = np.uint64((row0 + kx) * p + base)
                        for j in range(np.uint64(ow)):
                            flat[d0 + j] = zero
                    continue
                src = (ci * h + iy) * w
                if sx == 2:
                    _split_row2(x, phases, src, n, pl, 0, plen)
                else:
                    s1, d1 = np.uint64(src), np.uint64(pl)
                    for j in range(np.uint64(n)):
                        phases[d1 + j] = x[s1 + j]
                for kx in range(kw):
                    # unsigned indices, no slices: no array made per copy
                    s0 = np.uint64(((kx * dx) % sx) * plen + (kx * dx) // sx)
                    d0 = np.uint64((row0 + kx) * p + base)
                    for j in range(np.uint64(ow)):
                        flat[d0 + j] = phases[s0 + j]
