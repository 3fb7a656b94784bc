"""A linear layer's product read straight from its compressed weight.

A weight-compressed LLM keeps each weight as u8 or u4 with a zero point and a
scale per row or per group of a row; irexec decompresses it once to f32
(executor/rewrites/decompression.py) and multiplies through BLAS.  A decode step (one
row of activations) then reads the whole f32 weight per token: 4 bytes a
weight where OpenVINO reads one or half of one.  ``CompressedWeight.product``
reads the quantized bytes instead: for one row of activations each weight value
is computed where it is multiplied, for a few rows a few weight rows at a time go
into a buffer that stays in the L1 cache before their dot products.

Same values: a row is ``(f32(q) - f32(zero)) * f32(scale)``, the arithmetic of
the decompression chain (both steps exact in f32, see docs/numerics.md), and
each output element is one dot product of K terms in f32, as BLAS computes it
(its terms summed in another order, within the same bound).

Weights whose codes stand for values (NF4, f4e2m1, f8, a CB4 codebook's indices)
are read the same way through an f32 table of each code's value: a value is
``(table[code] - f32(zero)) * f32(scale)``, again the chain's arithmetic.

The kernel is compiled by Numba (the ``irexec[jit]`` extra) on first use and
cached on disk; without Numba, ``available()`` is false and the product goes
through BLAS as before.  The kernel holds no Python state and releases the GIL,
so rows are cut over irexec/system/parallel.py's threads, never Numba's own.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from types import ModuleType

import numpy as np

from ..system import handoff, parallel
from .jit_modules import JIT_ENV_VAR, jit_module
from .windows import product_parts

# Activation rows up to which the compressed product is used: each weight row is
# decompressed once for all of them, and from a few rows on BLAS on the f32 weight
# is faster (benchmarks/README.md, "Compressed weights: the decode floor moved").
MAX_ROWS = 4
# Weights of fewer values than this are not cut over threads: a hand-off costs about as
# much as their product.  Counted in values, not bytes: the product is bound by the
# arithmetic on each value, not by reading it (benchmarks/README.md, "generate: the
# profiles of this round"), so a u4 weight is worth cutting from as many values as a u8 one.
MIN_PARALLEL_WEIGHTS = 4 << 20
# A block of decompressed rows for BLAS stays within this many bytes, about a core's L2
# cache (a prefill measured 5% faster than with 512 KiB blocks, and no faster with 2 MiB)
BLOCK_BYTES = 1 << 20
# Blocks handed to a thread at a time by a product of many rows: the head's 112 blocks go in
# 28 tasks of about 0.9 ms, where four pieces of 6 ms left one thread idle when the other
# was slowed (benchmarks/README.md, "The prefill's products")
BLOCKS_PER_TASK = 4
ENV_VAR = JIT_ENV_VAR  # "0": never compile, BLAS on the f32 weight as without Numba

# by bits a value (negative: a block of rows for BLAS) and whether the values are a table's;
# False: not compiled yet
_kernels: dict[tuple[int, bool], Callable[..., None]] | None | bool = False


def available() -> bool:
    """Whether the compressed product can run: Numba installed, not turned off."""
    return _compiled() is not None


def _compiled() -> dict[tuple[int, bool], Callable[..., None]] | None:
    global _kernels
    if _kernels is False:
        jit = jit_module("compressed_linear_jit")
        _kernels = None if jit is None else _table(jit)
    return _kernels  # type: ignore[return-value]


def _table(jit: ModuleType) -> dict[tuple[int, bool], Callable[..., None]]:
    return {(8, False): jit.rows8, (4, False): jit.rows4, (-8, False): jit.block8, (-4, False): jit.block4,
            (8, True): jit.rows8t, (4, True): jit.rows4t, (-8, True): jit.block8t, (-4, True): jit.block4t}


class CompressedWeight:
    """A weight [N, K] as its quantized values ``q`` (u8 or i8 [N, K], one a byte,
    or u4 or i4 [N, K / 2], two a byte as the .bin stores them) and, per row and
    group of K / G columns, an f32 zero point and scale [N, G].

    With a ``table`` (f32), ``q`` holds codes and a code's value is its entry: NF4's and
    f4e2m1's levels or a CB4 codebook (16 entries, two codes a byte), f8e4m3's or f8e5m2's
    values (256 entries, one a byte), each the f32 value the chain's Convert gives."""

    __slots__ = ("q", "bits", "signed", "zero", "scale", "table")

    def __init__(self, q: np.ndarray, bits: int, zero: np.ndarray, scale: np.ndarray, signed: bool = False,
                 table: np.ndarray | None = None) -> None:
        self.q, self.bits, self.signed, self.zero, self.scale = q, bits, signed, zero, scale
        self.table = table

    @property
    def shape(self) -> tuple[int, int]:
        return self.q.shape[0], self.q.shape[1] * 8 // self.bits

    @classmethod
    def of(cls, q: np.ndarray, zero: np.ndarray | None, scale: np.ndarray,
           packed: np.ndarray | None = None, table: np.ndarray | None = None) -> CompressedWeight | None:
        """From a chain's weight ([N, K] or [N, G, K/G] of u8, or of u4 with its bytes
        as stored, ``packed``; or of codes into an f32 ``table``: 16 entries with the
        codes' bytes as stored, 256 with one code a byte), zero point and scale
        (broadcasting to it, constant along its last axis); None for any other form."""
        if q.ndim not in (2, 3) or not q.size:
            return None
        n, groups = q.shape[0], (q.shape[1] if q.ndim == 3 else 1)
        k = q.size // n
        if table is not None:
            if table.dtype != np.float32 or table.shape not in ((16,), (256,)):
                return None
            if table.size == 256 and q.dtype.itemsize == 1 and packed is None:
                bits, values = 8, np.ascontiguousarray(q).view(np.uint8).reshape(n, k)
            elif table.size == 16 and packed is not None and packed.size * 2 == q.size and q.shape[-1] % 2 == 0:
                bits, values = 4, packed.reshape(n, k // 2)
            else:
                return None
        elif q.dtype in (np.uint8, np.int8):
            bits, values = 8, np.ascontiguousarray(q).reshape(n, k)
        elif q.dtype.name in ("uint4", "int4") and packed is not None and packed.size * 2 == q.size \
                and q.shape[-1] % 2 == 0:
            bits, values = 4, packed.reshape(n, k // 2)  # whole bytes per group: no byte straddles two
        else:
            return None
        signed = table is None and q.dtype.name in ("int8", "int4")
        operands = []
        for operand in (zero if zero is not None else np.zeros((), np.float32), scale):
            if operand.ndim > q.ndim or operand.dtype != np.float32:
                return None
            full = (1,) * (q.ndim - operand.ndim) + operand.shape
            if full[-1] != 1 or any(d not in (1, want) for d, want in zip(full[:-1], q.shape[:-1])):
                return None  # varies along a row's group: not a zero point and scale per group
            operands.append(np.ascontiguousarray(np.broadcast_to(operand.reshape(full), q.shape[:-1] + (1,))
                                                 .reshape(n, groups)))
        return cls(values, bits, operands[0], operands[1], signed, table)

    def product(self, a: np.ndarray, *, any_rows: bool = False) -> np.ndarray | None:
        """``a @ w.T`` for f32 ``a`` [..., K] with at most ``MAX_ROWS`` rows, or any number
        with ``any_rows`` (blocks of rows decompressed for BLAS); None when that does not
        apply (BLAS on the f32 weight then)."""
        kernels = _compiled()
        n, k = self.shape
        if kernels is None or a.dtype != np.float32 or not a.ndim or a.shape[-1] != k:
            return None
        rows = a.size // k
        if rows > MAX_ROWS and not any_rows:
            return None
        flat = np.ascontiguousarray(a).reshape(rows, k)
        out = np.empty((rows, n), np.float32)
        tabled = self.table is not None
        if 0 < rows <= MAX_ROWS:
            self._few(kernels[self.bits, tabled], flat, out)
        elif rows:
            self._many(kernels[-self.bits, tabled], flat, out)
        return out.reshape(*a.shape[:-1], n)

    def _few(self, kernel: Callable[..., None], a: np.ndarray, out: np.ndarray) -> None:
        # the kernel streams the weight: a hand-off is worth it only for a big one (a
        # decode step calls this some 30 times, so the common case calls it directly).
        # Each thread computes whole output elements, contiguous ones, as one thread
        # would: the result is the same to the bit whatever the number of threads.
        n, k = self.shape
        last = self.signed if self.table is None else self.table  # the kernels' last argument
        if n * k < MIN_PARALLEL_WEIGHTS or parallel.num_threads() <= 1:
            kernel(a, self.q, self.zero, self.scale, out, 0, n, last)
            return
        spans = parallel.spans(n, parallel.num_threads())
        handoff.run([partial(kernel, a, self.q, self.zero, self.scale, out, lo, hi, last) for lo, hi in spans])

    def _many(self, block: Callable[..., None], a: np.ndarray, out: np.ndarray) -> None:
        # blocks of weight rows in f32 for BLAS, from the first row of each piece as any product
        # is cut.  BLAS sums a block of another height in another order, so the blocks stay
        # where those pieces put them; they are handed out a few at a time, so that a thread
        # slowed by other load leaves its blocks to the others.
        rows, k = a.shape
        n = out.shape[1]
        if self.bits == 4:  # the block kernel's order of a row's values: the even ones, then the odd ones
            a = np.concatenate([a[:, 0::2], a[:, 1::2]], axis=1)
        size = max(1, BLOCK_BYTES // (4 * k))
        last = self.signed if self.table is None else self.table
        parts = product_parts(rows * k * n, n // 256)
        blocks = [(start, min(hi, start + size)) for lo, hi in parallel.spans(n, parts) for start in range(lo, hi, size)]

        def task(first: int, stop_block: int) -> None:
            mine = blocks[first:stop_block]
            buf = np.empty((max(stop - start for start, stop in mine), k), np.float32)
            for start, stop in mine:
                block(self.q, self.zero, self.scale, start, stop, buf, last)
                # a tall block by a few columns: BLAS's faster orientation (see ops/matmul)
                out[:, start:stop] = np.matmul(buf[:stop - start], a.T).T

        if parts <= 1:
            task(0, len(blocks))
            return
        each = max(1, min(BLOCKS_PER_TASK, len(blocks) // parts))
        handoff.run([partial(task, i, i + each) for i in range(0, len(blocks), each)])

    def rows(self, index: np.ndarray) -> np.ndarray:
        """Rows ``index`` (in range, intp) of the weight [*index.shape, K], computed as
        the chain computes them, in NumPy: an embedding lookup reads a few rows."""
        n, k = self.shape
        flat = index.reshape(-1)
        q = self.q[flat]
        if self.bits == 4:  # two values a byte, the first in the low nibble
            q = np.stack([q & 15, q >> 4], axis=-1).reshape(len(flat), k)
            if self.signed:  # two's complement nibbles: -8..7
                q = (q.astype(np.int8) ^ 8) - 8
        groups = self.zero.shape[1]
        q = q.reshape(len(flat), groups, k // groups)
        values = self.table[q] if self.table is not None else q.astype(np.float32)
        values -= self.zero[flat][:, :, None]
        values *= self.scale[flat][:, :, None]
        return values.reshape(*index.shape, k)


class StandIn(np.ndarray):
    """Stands for a decompressed weight [N, K] that is never made: a read-only view of
    one NaN with the weight's shape and type (whatever reads it by mistake turns to
    NaN, never to plausible numbers), and its ``compressed`` form, which the MatMuls
    and Gathers that read it use instead (executor/rewrites/decompression.py gives one only to
    runs in which nothing else reads the weight's values)."""

    compressed: CompressedWeight

    @classmethod
    def of(cls, compressed: CompressedWeight) -> StandIn:
        made = np.broadcast_to(np.full((), np.nan, np.float32), compressed.shape).view(cls)
        made.compressed = compressed
        return made

    def __array_finalize__(self, obj: object) -> None:
        self.compressed = getattr(obj, "compressed", None)  # type: ignore[assignment]
