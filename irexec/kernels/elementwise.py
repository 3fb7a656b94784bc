"""Elementwise functions computed in float64 and rounded once, in chunks.

A big tensor is cut into chunks small enough that the input widened to f64
and every temporary of the function stay in the L2 cache; each chunk is
widened into a reused buffer, computed in place and rounded into its slice of
the output.  No tensor-sized f64 temporary is ever made, and the chunks are
shared out over irexec/parallel.py's threads (NumPy releases the GIL inside
its ufuncs, and these functions are compute bound, so two threads take about
half the time of one).

A chunk function receives a private f64 buffer it may overwrite, and returns
the result (often that same buffer).  It must be pointwise: the value of an
element depends on that element alone, so the cut cannot change a result.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from .. import parallel

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
