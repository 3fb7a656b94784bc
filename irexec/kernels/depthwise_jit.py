"""The compiled depthwise convolution of windows.py (imported only where Numba
is installed, and only when a depthwise layer runs).

A module-level function, so that Numba's on-disk cache keys it by name alone.
Compiled without fast-math: each output element is the taps' products added
one by one in kernel order (y, then x) into a sum that starts at zero, in the
data's type, as the NumPy paths sum them.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

njit: Any = numba.njit


@njit(nogil=True, cache=True, inline="always")
def _seg(phases: Any, m: int, kx: int, qy: int, sx: int, dx: int, plen: int, base: int) -> Any:
    """The run of tap kx (in its phase, shifted) that planes multiplies over acc[:m]."""
    shift = (qy * sx + (kx * dx) % sx) * plen + base + (kx * dx) // sx
    return phases[shift:shift + m]


@njit(nogil=True, cache=True)
def _segs_pass(acc: Any, m: int, phases: Any, w: Any, row: int, kw: int, qy: int, sx: int, dx: int, plen: int,
               base: int, qy1: int = -1, base1: int = 0) -> None:
    """acc[:m] += the kw (3, 5 or 7) taps of one kernel row, each product added in
    order as planes' per-tap passes add them, in one pass over acc; with ``qy1`` >= 0
    (kw 5), the next kernel row's five taps (its phase row ``qy1``, from ``base1``) too."""
    w0, w1, w2 = w[row], w[row + 1], w[row + 2]
    a0, a1, a2 = (_seg(phases, m, 0, qy, sx, dx, plen, base), _seg(phases, m, 1, qy, sx, dx, plen, base),
                  _seg(phases, m, 2, qy, sx, dx, plen, base))
    if kw == 5 and qy1 >= 0:
        w3, w4 = w[row + 3], w[row + 4]
        a3, a4 = _seg(phases, m, 3, qy, sx, dx, plen, base), _seg(phases, m, 4, qy, sx, dx, plen, base)
        v0, v1, v2, v3, v4 = w[row + 5], w[row + 6], w[row + 7], w[row + 8], w[row + 9]
        b0, b1, b2 = (_seg(phases, m, 0, qy1, sx, dx, plen, base1), _seg(phases, m, 1, qy1, sx, dx, plen, base1),
                      _seg(phases, m, 2, qy1, sx, dx, plen, base1))
        b3, b4 = _seg(phases, m, 3, qy1, sx, dx, plen, base1), _seg(phases, m, 4, qy1, sx, dx, plen, base1)
        for i in range(m):
            t = ((((acc[i] + w0 * a0[i]) + w1 * a1[i]) + w2 * a2[i]) + w3 * a3[i]) + w4 * a4[i]
            acc[i] = ((((t + v0 * b0[i]) + v1 * b1[i]) + v2 * b2[i]) + v3 * b3[i]) + v4 * b4[i]
        return
    if kw == 3:
        for i in range(m):
            acc[i] = ((acc[i] + w0 * a0[i]) + w1 * a1[i]) + w2 * a2[i]
        return
    w3, w4 = w[row + 3], w[row + 4]
    a3, a4 = _seg(phases, m, 3, qy, sx, dx, plen, base), _seg(phases, m, 4, qy, sx, dx, plen, base)
    if kw == 5:
        for i in range(m):
            acc[i] = ((((acc[i] + w0 * a0[i]) + w1 * a1[i]) + w2 * a2[i]) + w3 * a3[i]) + w4 * a4[i]
        return
    w5, w6 = w[row + 5], w[row + 6]
    a5, a6 = _seg(phases, m, 5, qy, sx, dx, plen, base), _seg(phases, m, 6, qy, sx, dx, plen, base)
    for i in range(m):
        acc[i] = ((((((acc[i] + w0 * a0[i]) + w1 * a1[i]) + w2 * a2[i]) + w3 * a3[i]) + w4 * a4[i])
                  + w5 * a5[i]) + w6 * a6[i]


@njit(nogil=True, cache=True, inline="always")
def _split_row2(x: Any, phases: Any, src: int, cols: int, px: int, start: int, plen: int) -> None:
    """The ``cols`` values of x from ``src`` (a row of the plane, after ``px`` padding
    columns) into the row of phases 0 and 1 at ``start`` and ``start + plen``: padded
    column u to phase u % 2, column u // 2.  The pairs (even, odd) in one loop over two
    unit-stride rows, which vectorizes (0.08-0.3 ns a value against 0.4-0.6 for a
    gather per phase)."""
    j = 0
    if px % 2 == 1 and cols > 0:  # the first value falls in phase 1
        phases[start + plen + px // 2] = x[src]
        j = 1
    pairs = (cols - j) // 2
    t0 = (px + j) // 2
    seg = x[src + j:src + j + 2 * pairs]
    even = phases[start + t0:start + t0 + pairs]
    odd = phases[start + plen + t0:start + plen + t0 + pairs]
    for k in range(pairs):
        even[k] = seg[2 * k]
        odd[k] = seg[2 * k + 1]
    if (cols - j) % 2 == 1:  # the last value, in phase 0
        phases[start + (px + cols - 1) // 2] = x[src + cols - 1]


@njit(nogil=True, cache=True, inline="always")
def _taps_by_rows(acc: Any, m: int, phases: Any, w: Any, c: int, kh: int, kw: int, dy: int, dx: int, sy: int, sx: int,
                  plen: int, pw: int, b0: int) -> None:
    """acc[:m] = the taps of channel c summed from zero, a pass per kernel row of 3, 5
    or 7 taps (the sum in a register across them), else a pass per tap."""
    zero = acc.dtype.type(0)
    for i in range(m):
        acc[i] = zero
    for ky in range(kh):
        oy_, qy = (ky * dy) // sy, (ky * dy) % sy
        row = (c * kh + ky) * kw
        if kw == 5 and ky % 2 == 1:
            continue  # added with the row before it
        if kw == 5 and ky + 1 < kh:
            # two kernel rows of five in one pass: 1.1-1.4x the speed of a pass per row (a 5 x 5
            # kernel's 25 taps in one pass measured slower: more live values than registers)
            oy1, qy1 = ((ky + 1) * dy) // sy, ((ky + 1) * dy) % sy
            _segs_pass(acc, m, phases, w, row, kw, qy, sx, dx, plen, (b0 + oy_) * pw,
                       qy1, (b0 + oy1) * pw)
            continue
        if kw == 3 or kw == 5 or kw == 7:
            _segs_pass(acc, m, phases, w, row, kw, qy, sx, dx, plen, (b0 + oy_) * pw)
            continue
        for kx in range(kw):
            ox_, qx = (kx * dx) // sx, (kx * dx) % sx
            weight = w[row + kx]
            shift = (qy * sx + qx) * plen + (b0 + oy_) * pw + ox_
            seg = phases[shift:shift + m]
            for i in range(m):
                acc[i] += weight * seg[i]


@njit(nogil=True, cache=True)
def _taps9(acc: Any, m: int, phases: Any, w: Any, row: int, offs: Any) -> None:
    """acc[:m] = zero plus the 9 taps' products, added one by one in kernel order, in
    one pass (1.3-1.5x the speed of a pass per kernel row: no sum stored between rows)."""
    w0, w1, w2, w3, w4 = w[row], w[row + 1], w[row + 2], w[row + 3], w[row + 4]
    w5, w6, w7, w8 = w[row + 5], w[row + 6], w[row + 7], w[row + 8]
    a0, a1, a2 = phases[offs[0]:offs[0] + m], phases[offs[1]:offs[1] + m], phases[offs[2]:offs[2] + m]
    a3, a4, a5 = phases[offs[3]:offs[3] + m], phases[offs[4]:offs[4] + m], phases[offs[5]:offs[5] + m]
    a6, a7, a8 = phases[offs[6]:offs[6] + m], phases[offs[7]:offs[7] + m], phases[offs[8]:offs[8] + m]
    zero = acc.dtype.type(0)
    for i in range(m):
        v = ((((zero + w0 * a0[i]) + w1 * a1[i]) + w2 * a2[i]) + w3 * a3[i]) + w4 * a4[i]
        acc[i] = (((v + w5 * a5[i]) + w6 * a6[i]) + w7 * a7[i]) + w8 * a8[i]


@njit(nogil=True, cache=True)
def planes(x: Any, w: Any, out: Any, geometry: Any, c0: int, c1: int, strides: Any, dilations: Any,
           begin: Any, pw: int, phases: Any, acc: Any) -> None:
    """Channels c0..c1 of ``out`` [N, C, OH, OW] from ``x`` [N, C, H, W] and
    ``w`` [C, KH, KW], zero padded by ``begin`` before the data; ``x``, ``w``
    and ``out`` come flat (a one-dimensional view from an offset is a unit
    stride loop to Numba, a row of a 2-D array is not: 4x slower), their
    shapes in ``geometry`` (N, C, H, W, KH, KW, OH, OW).

    The padded plane of a channel is split into its stride phases (positions
    r, r + s, r + 2s... of each axis): ``phases`` holds SY * SX of them, each
    PH = ceil(reach / SY) rows of PW = ceil(reach / SX) and the last tap's
    overhang.  A tap then reads one phase at unit stride, shifted, and output
    (oy, ox) sits at ``oy * PW + ox``: each tap is one long contiguous
    multiply-add over a block of output rows in ``acc`` (L1-sized), which
    vectorizes (over each output row alone, MobileNet's 7 to 14 wide rows
    fell to the scalar remainder of the vector loop).  The columns past OW
    are scratch."""
    nb, nc, h, wd, kh, kw, oh, ow = geometry
    sy, sx = strides[0], strides[1]
    dy, dx = dilations[0], dilations[1]
    py, px = begin[0], begin[1]
    plen = phases.shape[0] // (sy * sx)
    ph = (plen - ((kw - 1) * dx) // sx) // pw  # phase rows (the rest: the last tap's overhang)
    rows = min(h, ph * sy - py)  # data past the last window is not read
    cols = min(wd, pw * sx - px)
    block = max(1, acc.shape[0] // pw)  # output rows summed at a time
    zero = acc.dtype.type(0)
    taps = kh * kw
    offs = np.empty(9, np.int64)  # a 3 x 3 kernel's taps: where each starts in the phases for a block of rows
    # every plane fills the same positions of the phases: the padding, zeroed once, stays zero
    for i in range(phases.shape[0]):
        phases[i] = zero
    for n in range(nb):
        for c in range(c0, c1):
            plane = (n * nc + c) * h * wd
            for i in range(rows):
                yy = py + i
                start = (yy % sy) * sx * plen + (yy // sy) * pw
                if sx == 2:
                    _split_row2(x, phases, plane + i * wd, cols, px, start, plen)
                    continue
                for qx in range(sx):
                    # the columns j of this row with (px + j) % sx == qx, from phase column t0 on
                    j0 = (qx - px) % sx
                    if j0 >= cols:
                        continue
                    count = (cols - j0 + sx - 1) // sx
                    t0 = start + qx * plen + (px + j0) // sx
                    src = plane + i * wd + j0
                    if sx == 1:  # unsigned indices, no slices: no array made per row
                        s1, d1 = np.uint64(src), np.uint64(t0)
                        for j in range(np.uint64(count)):
                            phases[d1 + j] = x[s1 + j]
                    else:
                        # unsigned indices: no wrap-around test per element (7x faster
                        # than a strided view of the row, 1-D or not)
                        s0, d0, step = np.uint64(src), np.uint64(t0), np.uint64(sx)
                        for j in range(np.uint64(count)):
                            phases[d0 + j] = x[s0 + step * j]
            for b0 in range(0, oh, block):
                b1 = min(b0 + block, oh)
                m = (b1 - b0) * pw
                if taps == 9:
                    # every tap in one pass: the sum stays in a register from zero to the last tap
                    # (25 taps in one pass measured slower: more live values than registers)
                    for t in range(taps):
                        ky, kx = t // kw, t % kw
                        offs[t] = (((ky * dy) % sy) * sx + (kx * dx) % sx) * plen + (b0 + (ky * dy) // sy) * pw \
                            + (kx * dx) // sx
                    _taps9(acc, m, phases, w, c * taps, offs)
                else:
                    _taps_by_rows(acc, m, phases, w, c, kh, kw, dy, dx, sy, sx, plen, pw, b0)
                for oy in range(b0, b1):
                    dst = out[((n * nc + c) * oh + oy) * ow:((n * nc + c) * oh + oy + 1) * ow]
                    src_row = acc[(oy - b0) * pw:(oy - b0) * pw + ow]
                    for ox in range(ow):
                        dst[ox] = src_row[ox]



@njit(nogil=True, cache=True)
def _row3(acc: Any, w: Any, x: Any, base: int, step: int) -> None:
    """acc += the three taps of a kernel row, added one by one in order (one pass)."""
    w0, w1, w2 = w[0], w[1], w[2]
    s0, s1, s2 = x[base], x[base + step], x[base + 2 * step]
    for c in range(acc.shape[0]):
        acc[c] = ((acc[c] + w0[c] * s0[c]) + w1[c] * s1[c]) + w2[c] * s2[c]


@njit(nogil=True, cache=True)
def _row5(acc: Any, w: Any, x: Any, base: int, step: int) -> None:
    w0, w1, w2, w3, w4 = w[0], w[1], w[2], w[3], w[4]
    s0, s1, s2, s3, s4 = x[base], x[base + step], x[base + 2 * step], x[base + 3 * step], x[base + 4 * step]
    for c in range(acc.shape[0]):
        acc[c] = ((((acc[c] + w0[c] * s0[c]) + w1[c] * s1[c]) + w2[c] * s2[c]) + w3[c] * s3[c]) + w4[c] * s4[c]


@njit(nogil=True, cache=True)
def _row7(acc: Any, w: Any, x: Any, base: int, step: int) -> None:
    w0, w1, w2, w3, w4, w5, w6 = w[0], w[1], w[2], w[3], w[4], w[5], w[6]
    s0, s1, s2, s3 = x[base], x[base + step], x[base + 2 * step], x[base + 3 * step]
    s4, s5, s6 = x[base + 4 * step], x[base + 5 * step], x[base + 6 * step]
    for c in range(acc.shape[0]):
        acc[c] = ((((((acc[c] + w0[c] * s0[c]) + w1[c] * s1[c]) + w2[c] * s2[c]) + w3[c] * s3[c]) + w4[c] * s4[c])
                  + w5[c] * s5[c]) + w6[c] * s6[c]


@njit(nogil=True, cache=True)
def channels_last(x: Any, w: Any, out: Any, strides: Any, dilations: Any, r0: int, r1: int, acc: Any) -> None:
    """Output rows r0..r1 (over every batch item: row ``n * OH + oy``) of ``out``
    [N, OH, OW, C] from the padded ``x`` [N, HP, WP, C] and ``w`` [KH, KW, C]:
    per output pixel, the taps in kernel order (y, then x), each product added
    to ``acc`` [C], which starts at zero (the sums of the NumPy paths, in their
    order).  A kernel row of 3, 5 or 7 taps is one pass over the channels (the
    sum kept in a register across its taps: half the loads and stores of a
    pass per tap)."""
    oh, ow, nc = out.shape[1], out.shape[2], out.shape[3]
    kh, kw = w.shape[0], w.shape[1]
    sy, sx = strides[0], strides[1]
    dy, dx = dilations[0], dilations[1]
    zero = acc.dtype.type(0)
    for row in range(r0, r1):
        n, oy = row // oh, row % oh
        for ox in range(ow):
            for c in range(nc):
                acc[c] = zero
            for ky in range(kh):
                xrow = x[n, oy * sy + ky * dy]
                wrow = w[ky]
                if kw == 3:
                    _row3(acc, wrow, xrow, ox * sx, dx)
                elif kw == 5:
                    _row5(acc, wrow, xrow, ox * sx, dx)
                elif kw == 7:
                    _row7(acc, wrow, xrow, ox * sx, dx)
                else:
                    for kx in range(kw):
                        src = xrow[ox * sx + kx * dx]
                        wt = wrow[kx]
                        for c in range(nc):
                            acc[c] += wt[c] * src[c]
            dst = out[n, oy, ox]
            for c in range(nc):
                dst[c] = acc[c]
