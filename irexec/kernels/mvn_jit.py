"""The compiled MVN rows of mvn_compiled.py (imported only where Numba is
installed, and only when a large enough MVN runs).

Module-level functions, so that Numba's on-disk cache keys them by name alone.
Compiled without fast-math: every step rounds in the data's type as NumPy's
does, and each sum is NumPy's pairwise sum (numpy/_core/src/umath/
loops_utils.h.src: eight accumulators over blocks of up to 128 elements,
halves above), so the results are the NumPy kernel's bit for bit.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

njit: Any = numba.njit

PAIRWISE_BLOCK = 128  # NumPy's PW_BLOCKSIZE


@njit(nogil=True, cache=True)
def pairwise_sum(a: Any) -> Any:
    """The 1-D ``a`` summed as NumPy's pairwise sum, in a's type."""
    n = a.shape[0]
    if n < 8:
        res = a.dtype.type(0)
        for i in range(n):
            res += a[i]
        return res
    if n <= PAIRWISE_BLOCK:
        r0, r1, r2, r3 = a[0], a[1], a[2], a[3]
        r4, r5, r6, r7 = a[4], a[5], a[6], a[7]
        for b in range(1, n // 8):
            j = b * 8
            r0 += a[j]
            r1 += a[j + 1]
            r2 += a[j + 2]
            r3 += a[j + 3]
            r4 += a[j + 4]
            r5 += a[j + 5]
            r6 += a[j + 6]
            r7 += a[j + 7]
        res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        for i in range(n - n % 8, n):
            res += a[i]
        return res
    half = n // 2
    half -= half % 8
    return pairwise_sum(a[:half]) + pairwise_sum(a[half:])


@njit(nogil=True, cache=True)
def mvn_rows(x: Any, out: Any, scratch: Any, n: int, normalize_variance: bool, eps: Any, inside: bool) -> None:
    """Rows of ``n`` of the flat ``x`` into ``out``, as normalization.py's
    mvn_kernel computes them: the mean (zero plus the pairwise sum, divided by
    n), x minus it; then the variance the same way over the squares, eps added
    inside or outside the square root, and the row times its reciprocal.
    ``scratch`` holds one row's squares."""
    zero = x.dtype.type(0)
    count = x.dtype.type(n)
    one = x.dtype.type(1)
    e = x.dtype.type(eps)
    sq = scratch[:n]
    for r in range(x.shape[0] // n):
        xr = x[r * n:(r + 1) * n]
        orow = out[r * n:(r + 1) * n]
        mean = (zero + pairwise_sum(xr)) / count
        for i in range(n):
            v = xr[i] - mean
            orow[i] = v
            sq[i] = v * v  # (unused without the variance)
        if not normalize_variance:
            continue
        var = (zero + pairwise_sum(sq)) / count
        if inside:
            var = np.sqrt(var + e)
        else:
            var = np.sqrt(var) + e
        var = one / var
        for i in range(n):
            orow[i] = orow[i] * var
