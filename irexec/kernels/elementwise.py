"""Elementwise functions computed in float64 and rounded once, in chunks.

A big tensor is cut into chunks small enough that the input widened to f64
and every temporary of the function stay in the L2 cache; each chunk is
widened into a reused buffer, computed in place and rounded into its slice of
the output.  No tensor-sized f64 temporary is ever made, and the chunks are
shared out over irexec/system/parallel.py's threads (NumPy releases the GIL inside
its ufuncs, and these functions are compute bound, so two threads take about
half the time of one).

A chunk function receives a private f64 buffer it may overwrite, and returns
the result (often that same buffer).  It must be pointwise: the value of an
element depends on that element alone, so the cut cannot change a result.

``blockwise`` runs a few binary ufuncs in the data's own type block by block
(against rows of a constant for a scalar operand), and ``pick`` builds
OpenVINO's Maximum and Minimum from them.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence

import numpy as np

from ..system import parallel

ChunkFn = Callable[..., np.ndarray]

# Elements per chunk: 32768 f64 = 256 KiB per buffer, so a function's two or
# three buffers fit the 1 MiB L2 cache.  Measured on 32 MiB of f32: 64 KiB
# chunks cost 10-40% more (a dozen ufunc calls per chunk), 1 MiB ones spill.
CHUNK = 1 << 15
# Below this many elements the whole array is one chunk (no split, no threads).
MIN_SPLIT = 1 << 15
# f64 elements computed per parallel task, so threads get a few tasks each.
TASK = 1 << 17


def apply_f64(fn: ChunkFn, arrays: Sequence[np.ndarray], out_dtype: np.dtype) -> np.ndarray:
    """``fn`` of ``arrays`` (all of one shape: the caller broadcasts first),
    computed in f64 on private buffers, rounded once to ``out_dtype``."""
    shape = arrays[0].shape
    size = math.prod(shape)
    if size <= MIN_SPLIT:
        wide = [np.array(a, dtype=np.float64, copy=True) for a in arrays]
        with np.errstate(all="ignore"):
            result = np.asarray(fn(*wide))
            return result.astype(out_dtype, copy=False) if result.dtype != out_dtype else result
    flats = [np.ascontiguousarray(a).reshape(-1) for a in arrays]
    out = np.empty(size, out_dtype)

    def task(lo: int, hi: int) -> Callable[[], None]:
        def run() -> None:
            bufs = [np.empty(CHUNK, np.float64) for _ in flats]
            with np.errstate(all="ignore"):
                for s in range(lo, hi, CHUNK):
                    e = min(s + CHUNK, hi)
                    n = e - s
                    wide = [b[:n] for b in bufs]
                    for w, f in zip(wide, flats):
                        np.copyto(w, f[s:e], casting="unsafe")
                    np.copyto(out[s:e], fn(*wide), casting="unsafe")
        return run

    starts = list(range(0, size, TASK))
    parallel.run([task(s, min(s + TASK, size)) for s in starts], size * 8)
    return out.reshape(shape)


# NumPy's maximum and minimum (fmax, fmin) against a scalar run a loop three
# to four times slower than against an array on AVX2 builds; against a row of
# the constant, repeated over the rows of the data, they run the vector loop.
# 16,384 elements: shorter rows pay NumPy's cost per row (4,096 took 1.4x as
# long on 0.8M elements), longer ones leave the L2 cache to the data.
_ROW = 1 << 14
# Rows per block: the steps run over a block while it is in the L2 cache.
_BLOCK_ROWS = 4
_rows: dict[bytes, np.ndarray] = {}

# A ufunc and its second operand: a scalar, or an array of the data's shape.
Step = tuple[np.ufunc, float | int | np.ndarray]


def _const_row(value: float | int, dtype: np.dtype) -> np.ndarray:
    key = np.array(value, dtype).tobytes() + dtype.str.encode()  # by bits: -0.0 == 0.0, NaN != NaN
    row = _rows.get(key)
    if row is None:
        if len(_rows) > 64:
            _rows.clear()  # ever new constants: keep the cache small
        row = _rows[key] = np.full(_ROW, value, dtype)
        row.flags.writeable = False
    return row


def blockwise(x: np.ndarray, steps: Sequence[Step], out: np.ndarray | None = None) -> np.ndarray:
    """``x`` through binary ufuncs in turn, ``r = ufunc(r, operand)`` in ``x``'s
    type, into ``out`` (which may be ``x``) when given.  Block by block, so a
    block goes through every step while it is in the cache, and over the
    threads when big; a scalar operand as rows of the constant.  Element by
    element the same results as the calls on whole arrays (not always as
    scalar calls: fmax and fmin settle a tie of two zeros differently there)."""
    if out is None or not out.flags.c_contiguous:
        result = np.empty(x.shape, x.dtype)
        blockwise(x, steps, result)
        if out is None:
            return result
        out[...] = result
        return out
    n = x.size
    arrays = [isinstance(v, np.ndarray) and v.ndim > 0 for _, v in steps]
    if n < _ROW:
        src = x
        for (ufunc, v), is_array in zip(steps, arrays):
            ufunc(src, v if is_array else np.full(x.shape, v, x.dtype), out=out)  # few elements: arrays, for the ties
            src = out
        return out
    x = np.ascontiguousarray(x)  # a strided view: one copy, then block by block as the rest
    ops = [(ufunc, np.ascontiguousarray(v).reshape(-1) if f else _const_row(v, x.dtype), f)  # type: ignore[arg-type]  # not f: a scalar
           for (ufunc, v), f in zip(steps, arrays)]
    flat, dest = x.reshape(-1), out.reshape(-1)
    pieces = parallel.pieces(out.nbytes)
    if pieces == 1:
        _blocks(flat, dest, ops, 0, n)
        return out
    bounds = [min(n, s * _ROW) for s, _ in parallel.spans(-(-n // _ROW), pieces)] + [n]
    parallel.run([functools.partial(_blocks, flat, dest, ops, a, b) for a, b in zip(bounds, bounds[1:])], out.nbytes)
    return out


def _blocks(flat: np.ndarray, dest: np.ndarray, ops: list[tuple[np.ufunc, np.ndarray, bool]], lo: int, hi: int) -> None:
    """The steps on ``flat[lo:hi]`` into ``dest``, a block of rows at a time
    (``lo`` a multiple of the row length); an operand is a flat array (True)
    or a row of a constant (False)."""
    block = _ROW * _BLOCK_ROWS
    for s in range(lo, hi, block):
        e = min(hi, s + block)
        full = s + (e - s) // _ROW * _ROW
        if full > s:
            src, dst = flat[s:full].reshape(-1, _ROW), dest[s:full].reshape(-1, _ROW)
            for ufunc, v, is_array in ops:
                ufunc(src, v[s:full].reshape(-1, _ROW) if is_array else v, out=dst)
                src = dst
        if full < e:
            src, dst = flat[full:e], dest[full:e]
            for ufunc, v, is_array in ops:
                ufunc(src, v[full:e] if is_array else v[:e - full], out=dst)
                src = dst


def pick(a: np.ndarray, b: float | int | np.ndarray, ufunc: np.ufunc, ignore_nan: np.ufunc) -> np.ndarray:
    """Maximum (``np.maximum``, ``np.fmax``) or minimum (``np.minimum``,
    ``np.fmin``) of float ``a`` and a scalar or array ``b`` of its shape, as
    OpenVINO takes them: NaN in ``b`` wins, NaN in ``a`` loses, of two equal
    zeros ``b``'s is taken.  The plain ufunc gives NaN for either NaN and
    takes ``b`` on ties; ``ignore_nan`` then puts ``b`` in place of a NaN
    of ``a`` and leaves everything else as it is."""
    if not isinstance(b, np.ndarray) and b != b:
        return blockwise(a, [(ufunc, b)])
    return blockwise(a, [(ufunc, b), (ignore_nan, b)])
