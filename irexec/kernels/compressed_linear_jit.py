"""The compiled kernels of compressed_linear.py (imported only where Numba is installed).

Module-level functions, so that Numba's on-disk cache keys them by name alone.

A weight's value is computed by ``term`` and the nibbles by ``nibbles``, both
compiled without fast-math: the kernels that sum products may reassociate and
contract their own additions and multiplications (as BLAS sums in its own order),
but LLVM keeps the flags of each instruction when it inlines, so a weight value is
always exactly the chain's (f32(q) - f32(zero)) * f32(scale).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

njit: Any = numba.njit
SUMS = {"reassoc", "contract"}  # the fast-math of a sum of products, nothing more
ROWS_AT_ONCE = 8
# A decode step's product by a 4-bit weight whose groups are at most this many bytes keeps
# one partial sum per byte of a group and adds them up at the row's end (``_rows4_lanes``)
MAX_LANES = 64


@njit(nogil=True, cache=True)
def term(v: Any, z: Any, s: Any) -> Any:
    return (v - z) * s


@njit(nogil=True, cache=True)
def nibbles(byte: Any, signed: bool) -> Any:
    # a byte's two values, the first in the low nibble, in f32 arithmetic, which
    # is exact on them and vectorizes (Numba widens integer arithmetic to 64 bits,
    # whose conversion to f32 does not).  An i4 nibble v is two's complement: with
    # both nibbles' top bits flipped first, each is v + 8, and 8 less is v exactly.
    b = np.float32(np.uint8(byte ^ np.uint8(0x88))) if signed else np.float32(byte)
    high = np.floor(b * np.float32(0.0625))
    low = b - high * np.float32(16)
    if signed:
        low -= np.float32(8)
        high -= np.float32(8)
    return low, high


# Each kernel indexes whole arrays and loops inline: passing a view of a row to
# another compiled function costs more than the row's products.  Loops run over
# range(size) from a start: over range(start, stop) they did not vectorize (10x
# slower), nor did one loop over a whole row (6x slower).

@njit(nogil=True, cache=True)
def block8(q: Any, zero: Any, scale: Any, lo: int, hi: int, buf: Any, signed: bool) -> None:
    """Rows lo..hi of the weight into ``buf``, values in their own order."""
    groups = zero.shape[1]
    size = q.shape[1] // groups
    for n in range(lo, hi):
        row, w = q[n], buf[n - lo]
        for g in range(groups):
            z, s, start = zero[n, g], scale[n, g], g * size
            for i in range(size):
                w[start + i] = term(np.float32(row[start + i]), z, s)


@njit(nogil=True, cache=True)
def block4(q: Any, zero: Any, scale: Any, lo: int, hi: int, buf: Any, signed: bool) -> None:
    """Rows lo..hi of the weight into ``buf``, each row's even values, then its odd ones."""
    half = q.shape[1]
    groups = zero.shape[1]
    size = half // groups
    for n in range(lo, hi):
        row, even, odd = q[n], buf[n - lo, :half], buf[n - lo, half:]
        for g in range(groups):
            z, s, start = zero[n, g], scale[n, g], g * size
            if size == 32:  # NNCF's groups of 64 values: a loop of a known count, 1.4x faster
                for i in range(32):
                    first, second = nibbles(row[start + i], signed)
                    even[start + i] = term(first, z, s)
                    odd[start + i] = term(second, z, s)
                continue
            for i in range(size):
                first, second = nibbles(row[start + i], signed)
                even[start + i] = term(first, z, s)
                odd[start + i] = term(second, z, s)


@njit(nogil=True, cache=True, fastmath=SUMS)
def rows8(a: Any, q: Any, zero: Any, scale: Any, out: Any, lo: int, hi: int, signed: bool) -> None:
    # (u8 or i8: Numba compiles one for each; ``signed`` is the other kernels' argument)
    if a.shape[0] > 1:  # a few weight rows at a time into a buffer in the L1 cache
        buf = np.empty((ROWS_AT_ONCE, a.shape[1]), np.float32)
        for first in range(lo, hi, ROWS_AT_ONCE):
            block8(q, zero, scale, first, min(hi, first + ROWS_AT_ONCE), buf, signed)
            _products(a, buf, out, first, min(hi, first + ROWS_AT_ONCE))
        return
    groups = zero.shape[1]  # a decode step: each value computed where it is multiplied
    size = q.shape[1] // groups
    x = a[0]
    for n in range(lo, hi):
        row = q[n]
        acc = np.float32(0.0)
        for g in range(groups):
            z, s, start = zero[n, g], scale[n, g], g * size
            part = np.float32(0.0)
            for i in range(size):
                part += x[start + i] * term(np.float32(row[start + i]), z, s)
            acc += part
        out[0, n] = acc


@njit(nogil=True, cache=True, fastmath=SUMS)
def rows4(a: Any, q: Any, zero: Any, scale: Any, out: Any, lo: int, hi: int, signed: bool) -> None:
    half = q.shape[1]
    split = np.empty_like(a)  # the activations' even columns, then their odd ones: a row's order here
    for m in range(a.shape[0]):
        for i in range(half):
            split[m, i] = a[m, 2 * i]
            split[m, half + i] = a[m, 2 * i + 1]
    if a.shape[0] > 1:
        buf = np.empty((ROWS_AT_ONCE, a.shape[1]), np.float32)
        for first in range(lo, hi, ROWS_AT_ONCE):
            block4(q, zero, scale, first, min(hi, first + ROWS_AT_ONCE), buf, signed)
            _products(split, buf, out, first, min(hi, first + ROWS_AT_ONCE))
        return
    groups = zero.shape[1]
    size = half // groups
    even, odd = split[0, :half], split[0, half:]
    if size <= MAX_LANES:
        _rows4_lanes(even, odd, q, zero, scale, out, lo, hi, signed)
        return
    for n in range(lo, hi):
        row = q[n]
        acc = np.float32(0.0)
        for g in range(groups):
            z, s, start = zero[n, g], scale[n, g], g * size
            part = np.float32(0.0)
            for i in range(size):
                first, second = nibbles(row[start + i], signed)
                part += even[start + i] * term(first, z, s) + odd[start + i] * term(second, z, s)
            acc += part
        out[0, n] = acc


# A sum per group ended every 32 to 64 bytes of a 4-bit weight in a horizontal reduction of
# the vector registers, a quarter of the product's time; one partial sum per byte of a group,
# added up at the row's end, leaves the loop over a group nothing but vector arithmetic
# (benchmarks/README.md, "generate: the profiles of this round").  Only the order of the
# terms changes, which fast-math ``reassoc`` never fixed.  (Over the long groups of a weight
# with one group a row, the same partial sums measured 2x slower: kept for short groups.)

@njit(nogil=True, cache=True, fastmath=SUMS)
def _rows4_lanes(even: Any, odd: Any, q: Any, zero: Any, scale: Any, out: Any, lo: int, hi: int, signed: bool) -> None:
    groups = zero.shape[1]
    size = q.shape[1] // groups
    lanes = np.empty(size, np.float32)
    for n in range(lo, hi):
        row = q[n]
        lanes[:] = 0
        for g in range(groups):
            z, s, start = zero[n, g], scale[n, g], g * size
            for i in range(size):
                first, second = nibbles(row[start + i], signed)
                lanes[i] += even[start + i] * term(first, z, s) + odd[start + i] * term(second, z, s)
        out[0, n] = _total(lanes)


@njit(nogil=True, cache=True, fastmath=SUMS)
def _rows4t_lanes(even: Any, odd: Any, q: Any, zero: Any, scale: Any, out: Any, lo: int, hi: int, table: Any) -> None:
    groups = zero.shape[1]
    size = q.shape[1] // groups
    lanes = np.empty(size, np.float32)
    for n in range(lo, hi):
        row = q[n]
        lanes[:] = 0
        for g in range(groups):
            z, s, start = zero[n, g], scale[n, g], g * size
            for i in range(size):
                byte = row[start + i]
                lanes[i] += even[start + i] * term(table[byte & 15], z, s) + odd[start + i] * term(table[byte >> 4], z, s)
        out[0, n] = _total(lanes)


@njit(nogil=True, cache=True, fastmath=SUMS)
def _total(lanes: Any) -> Any:
    acc = np.float32(0.0)
    for i in range(lanes.shape[0]):
        acc += lanes[i]
    return acc


@njit(nogil=True, cache=True, fastmath=SUMS)
def _products(a: Any, buf: Any, out: Any, first: int, last: int) -> None:
    # out[:, first:last] from weight rows first..last in ``buf``
    for n in range(first, last):
        w = buf[n - first]
        for m in range(a.shape[0]):
            acc = np.float32(0.0)
            for i in range(w.shape[0]):
                acc += a[m, i] * w[i]
            out[m, n] = acc


# The formats whose codes index a table of f32 values (NF4 and f4e2m1 levels, a CB4
# codebook: 16 entries, two codes a byte; f8: 256 entries, one a byte): each value is
# ``term(table[code], z, s)``, the table holding each code's exact f32 value.

@njit(nogil=True, cache=True)
def block8t(q: Any, zero: Any, scale: Any, lo: int, hi: int, buf: Any, table: Any) -> None:
    """Rows lo..hi of a tabled weight into ``buf``, values in their own order."""
    groups = zero.shape[1]
    size = q.shape[1] // groups
    for n in range(lo, hi):
        row, w = q[n], buf[n - lo]
        for g in range(groups):
            z, s, start = zero[n, g], scale[n, g], g * size
            for i in range(size):
                w[start + i] = term(table[row[start + i]], z, s)


@njit(nogil=True, cache=True)
def block4t(q: Any, zero: Any, scale: Any, lo: int, hi: int, buf: Any, table: Any) -> None:
    """Rows lo..hi of a tabled 4-bit weight into ``buf``, each row's even values, then its odd ones."""
    half = q.shape[1]
    groups = zero.shape[1]
    size = half // groups
    for n in range(lo, hi):
        row, even, odd = q[n], buf[n - lo, :half], buf[n - lo, half:]
        for g in range(groups):
            z, s, start = zero[n, g], scale[n, g], g * size
            for i in range(size):
                byte = row[start + i]
                even[start + i] = term(table[byte & 15], z, s)
                odd[start + i] = term(table[byte >> 4], z, s)


@njit(nogil=True, cache=True, fastmath=SUMS)
def rows8t(a: Any, q: Any, zero: Any, scale: Any, out: Any, lo: int, hi: int, table: Any) -> None:
    if a.shape[0] > 1:
        buf = np.empty((ROWS_AT_ONCE, a.shape[1]), np.float32)
        for first in range(lo, hi, ROWS_AT_ONCE):
            block8t(q, zero, scale, first, min(hi, first + ROWS_AT_ONCE), buf, table)
            _products(a, buf, out, first, min(hi, first + ROWS_AT_ONCE))
        return
    groups = zero.shape[1]
    size = q.shape[1] // groups
    x = a[0]
    for n in range(lo, hi):
        row = q[n]
        acc = np.float32(0.0)
        for g in range(groups):
            z, s, start = zero[n, g], scale[n, g], g * size
            part = np.float32(0.0)
            for i in range(size):
                part += x[start + i] * term(table[row[start + i]], z, s)
            acc += part
        out[0, n] = acc


@njit(nogil=True, cache=True, fastmath=SUMS)
def rows4t(a: Any, q: Any, zero: Any, scale: Any, out: Any, lo: int, hi: int, table: Any) -> None:
    half = q.shape[1]
    split = np.empty_like(a)
    for m in range(a.shape[0]):
        for i in range(half):
            split[m, i] = a[m, 2 * i]
            split[m, half + i] = a[m, 2 * i + 1]
    if a.shape[0] > 1:
        buf = np.empty((ROWS_AT_ONCE, a.shape[1]), np.float32)
        for first in range(lo, hi, ROWS_AT_ONCE):
            block4t(q, zero, scale, first, min(hi, first + ROWS_AT_ONCE), buf, table)
            _products(split, buf, out, first, min(hi, first + ROWS_AT_ONCE))
        return
    groups = zero.shape[1]
    size = half // groups
    even, odd = split[0, :half], split[0, half:]
    if size <= MAX_LANES:
        _rows4t_lanes(even, odd, q, zero, scale, out, lo, hi, table)
        return
    for n in range(lo, hi):
        row = q[n]
        acc = np.float32(0.0)
        for g in range(groups):
            z, s, start = zero[n, g], scale[n, g], g * size
            part = np.float32(0.0)
            for i in range(size):
                byte = row[start + i]
                part += even[start + i] * term(table[byte & 15], z, s) + odd[start + i] * term(table[byte >> 4], z, s)
            acc += part
        out[0, n] = acc
