"""The compiled max pooling of pool_compiled.py (imported only where Numba is installed,
and only when a program's repeated runs or another compiled layer have loaded it).

A module-level function, so that Numba's on-disk cache keys it by name alone.  It
computes what max_avg_pool._separable_max computes on the input with its NaNs as the
lowest value, element for element in the same order: along the rows first, then along
each row, each window folded from its first tap with NumPy's maximum (the second
operand wins unless the first is greater: a tie of -0 and +0 gives what NumPy gives).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

njit: Any = numba.njit


@njit(nogil=True, cache=True)
def max_pool2d(x: Any, out: Any, rows: Any, kh: int, kw: int, sh: int, sw: int, dh: int, dw: int,
               low: float) -> None:
    """``out[c, i, j]`` = the maximum of the window of ``x[c]`` [C, H, W] (C-contiguous) at (i, j);
    ``rows``: scratch of (H - dh * (kh - 1)) * W values.  Each plane's maxima along its
    columns are taken over every row in one flat pass (a long unit-stride loop, which
    vectorizes; the rows between strides cost less than short loops' remainders), then
    along each row; at a stride of 2 along a row, from the row split into its even and
    odd values, so that they too run at unit stride."""
    low_value = x.dtype.type(low)
    width = x.shape[2]
    span = (x.shape[1] - dh * (kh - 1)) * width
    even = np.empty((width + 1) // 2, x.dtype)
    odd = np.empty(width // 2 + 1, x.dtype)
    for c in range(out.shape[0]):
        plane = x[c].reshape(-1)
        if kh == 3:  # SqueezeNet's windows: the three taps in one pass
            _three_rows(plane[:span], plane[dh * width:dh * width + span], plane[2 * dh * width:2 * dh * width + span],
                        rows, low_value)
        else:
            _rows_max(plane, rows, span, width, kh, dh, low_value)
        for i in range(out.shape[1]):
            row = rows[i * sh * width:(i * sh + 1) * width]
            dest = out[c, i]
            if sw == 2 and dw == 1:
                _phases_max(row, even, odd, dest, kw)
                continue
            for j in range(out.shape[2]):
                left = j * sw
                best = row[left]
                for t in range(1, kw):
                    v = row[left + t * dw]
                    best = best if best > v else v
                dest[j] = best


@njit(nogil=True, cache=True, inline="always")
def _phases_max(row: Any, even: Any, odd: Any, dest: Any, kw: int) -> None:
    """``dest[j]`` = the maximum of ``row[2j:2j + kw]``, folded from its first value."""
    half = row.shape[0] // 2
    for p in range(half):  # both phases in one loop: the split that vectorizes
        even[p] = row[2 * p]
        odd[p] = row[2 * p + 1]
    if row.shape[0] % 2:
        even[half] = row[row.shape[0] - 1]
    n = dest.shape[0]
    if kw == 3:  # the three taps in one pass
        later = even[1:n + 1]
        for j in range(n):
            a = even[j]
            b = odd[j]
            m = a if a > b else b
            d = later[j]
            dest[j] = m if m > d else d
        return
    for j in range(n):
        dest[j] = even[j]
    for t in range(1, kw):
        phase = (odd if t % 2 else even)[t // 2:t // 2 + n]
        for j in range(n):
            b = dest[j]
            v = phase[j]
            dest[j] = b if b > v else v


@njit(nogil=True, cache=True, inline="always")
def _rows_max(plane: Any, rows: Any, span: int, width: int, kh: int, dh: int, low_value: Any) -> None:
    """``rows[k]`` = the maximum of ``plane[k + t * dh * width]`` over the taps t, folded from t = 0."""
    for k in range(span):
        a = plane[k]
        rows[k] = low_value if a != a else a
    for t in range(1, kh):
        shifted = plane[t * dh * width:t * dh * width + span]  # indexed by the loop's own index: no wraparound
        for k in range(span):
            a = shifted[k]
            v = low_value if a != a else a
            b = rows[k]
            rows[k] = b if b > v else v


@njit(nogil=True, cache=True, inline="always")
def _three_rows(first: Any, second: Any, third: Any, rows: Any, low_value: Any) -> None:
    """``_rows_max`` of three taps in one pass: the same folds, one write of ``rows``."""
    for k in range(rows.shape[0]):
        a = first[k]
        b = second[k]
        d = third[k]
        a = low_value if a != a else a
        b = low_value if b != b else b
        d = low_value if d != d else d
        m = a if a > b else b
        rows[k] = m if m > d else d
