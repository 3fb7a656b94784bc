"""The compiled im2col of im2col_compiled.py (imported only where Numba is
installed, and only once another compiled kernel has imported it).

A module-level function, so that Numba's on-disk cache keys it by name alone.
It only moves values: the columns are those NumPy's strided copy makes.
"""

from __future__ import annotations

from typing import Any

import numba

njit: Any = numba.njit


@njit(nogil=True, cache=True)
def fill_columns(x: Any, cols: Any, geometry: Any, r0: int, r1: int, row: Any, even: Any, odd: Any) -> None:
    """Rows (c, ky, kx) of ``cols`` [C * KH * KW, N * (r1 - r0) * OW] (flat) for output rows
    r0..r1 of a 2-D convolution of ``x`` [N, C, H, W] (flat), zero padded by (PY, PX) before
    the data, at stride SY, SX of 1 or 2: ``geometry`` (N, C, H, W, KH, KW, SY, SX, PY, PX, OW).
    Each input row is padded once into ``row``; at stride 2 it is split into its ``even``
    and ``odd`` columns in one pass (a gather per value does not vectorize), so that every
    tap's run of OW values is a unit-stride copy."""
    nb, nc, h, wd, kh, kw, sy, sx, py, px, ow = geometry
    width = (ow - 1) * sx + kw  # the padded row's columns the windows reach
    length = nb * (r1 - r0) * ow
    zero = cols.dtype.type(0)
    for n in range(nb):
        for c in range(nc):
            for ky in range(kh):
                for oy in range(r0, r1):
                    at = (n * (r1 - r0) + oy - r0) * ow
                    iy = oy * sy + ky - py
                    if iy < 0 or iy >= h:
                        for kx in range(kw):
                            dst = cols[((c * kh + ky) * kw + kx) * length + at:((c * kh + ky) * kw + kx) * length + at + ow]
                            for j in range(ow):
                                dst[j] = zero
                        continue
                    src = x[((n * nc + c) * h + iy) * wd:((n * nc + c) * h + iy + 1) * wd]
                    for j in range(width):
                        u = j - px
                        row[j] = src[u] if 0 <= u < wd else zero
                    if sx == 2:
                        half = (width + 1) // 2
                        for t in range(width // 2):
                            even[t] = row[2 * t]
                            odd[t] = row[2 * t + 1]
                        if width % 2 == 1:
                            even[half - 1] = row[width - 1]
                    for kx in range(kw):
                        base = ((c * kh + ky) * kw + kx) * length + at
                        dst = cols[base:base + ow]
                        if sx == 1:
                            seg = row[kx:kx + ow]
                        elif kx % 2 == 0:
                            seg = even[kx // 2:kx // 2 + ow]
                        else:
                            seg = odd[kx // 2:kx // 2 + ow]
                        for j in range(ow):
                            dst[j] = seg[j]
