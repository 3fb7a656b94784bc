"""The compiled kernels of compressed_linear.py (imported only where Numba is installed).

Module-level functions, so that Numba's on-disk cache keys them by name alone."""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

njit: Any = numba.njit

# no fast-math in the dequantization: each value must be exactly the chain's
# (f32(q) - f32(zero)) * f32(scale).  (Loops over a group's slices vectorize;
# indexing the whole row from a computed start did not, 6x slower.)
@njit(nogil=True, cache=True)
def dequantize8(row: Any, zero: Any, scale: Any, w: Any) -> None:
    size = w.shape[0] // zero.shape[0]
    for g in range(zero.shape[0]):
        z, s = zero[g], scale[g]
        q, out = row[g * size:(g + 1) * size], w[g * size:(g + 1) * size]
        for i in range(size):
            out[i] = (np.float32(q[i]) - z) * s


@njit(nogil=True, cache=True)
def dequantize4(row: Any, zero: Any, scale: Any, low: Any, high: Any, signed: bool) -> None:
    # two values a byte, the first in the low nibble: values 0, 2, 4... into ``low``
    # and 1, 3, 5... into ``high``, each contiguous (a group holds whole bytes); an i4
    # nibble is two's complement: (v ^ 8) - 8 is -8..7, and with 0 for 8, v itself
    bias = np.int32(8) if signed else np.int32(0)
    size = low.shape[0] // zero.shape[0]
    for g in range(zero.shape[0]):
        z, s = zero[g], scale[g]
        q, lo, hi = row[g * size:(g + 1) * size], low[g * size:(g + 1) * size], high[g * size:(g + 1) * size]
        for i in range(size):
            byte = np.int32(q[i])  # 32-bit lanes: a vector convert to f32
            lo[i] = (np.float32(((byte & 15) ^ bias) - bias) - z) * s
            hi[i] = (np.float32(((byte >> 4) ^ bias) - bias) - z) * s


@njit(nogil=True, cache=True, fastmath={"reassoc", "contract"})
def dot(x: Any, w: Any) -> Any:
    # reassociation lets the sum run in vector lanes, as BLAS sums in its own order
    acc = np.float32(0.0)
    for k in range(w.shape[0]):
        acc += x[k] * w[k]
    return acc


@njit(nogil=True, cache=True)
def rows8(a: Any, q: Any, zero: Any, scale: Any, out: Any, lo: int, hi: int, signed: bool) -> None:
    # (u8 or i8: Numba compiles one for each; ``signed`` is the other kernels' argument)
    w = np.empty(a.shape[1], np.float32)
    for n in range(lo, hi):
        dequantize8(q[n], zero[n], scale[n], w)
        for m in range(a.shape[0]):
            out[m, n] = dot(a[m], w)


@njit(nogil=True, cache=True)
def rows4(a: Any, q: Any, zero: Any, scale: Any, out: Any, lo: int, hi: int, signed: bool) -> None:
    # ``a`` is [M, K]: the activations' even columns, then their odd ones
    half = q.shape[1]
    low = np.empty(half, np.float32)
    high = np.empty(half, np.float32)
    for n in range(lo, hi):
        dequantize4(q[n], zero[n], scale[n], low, high, signed)
        for m in range(a.shape[0]):
            out[m, n] = dot(a[m, :half], low) + dot(a[m, half:], high)


@njit(nogil=True, cache=True)
def block8(q: Any, zero: Any, scale: Any, lo: int, hi: int, buf: Any, signed: bool) -> None:
    """Rows lo..hi of the weight into ``buf``, values in their own order."""
    for n in range(lo, hi):
        dequantize8(q[n], zero[n], scale[n], buf[n - lo])


@njit(nogil=True, cache=True)
def block4(q: Any, zero: Any, scale: Any, lo: int, hi: int, buf: Any, signed: bool) -> None:
    """Rows lo..hi of the weight into ``buf``, each row's even values, then its odd ones."""
    half = q.shape[1]
    for n in range(lo, hi):
        row = buf[n - lo]
        dequantize4(q[n], zero[n], scale[n], row[:half], row[half:], signed)
