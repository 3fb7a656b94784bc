"""MaxPool over two spatial axes through a compiled kernel (the ``jit`` extra).

NumPy's separable max over SqueezeNet's 3 x 3 stride-2 windows makes four passes, two
of them over a strided innermost axis, which do not vectorize (about 0.5 ms on
[1, 64, 111, 111]).  pool_jit.max_pool2d makes one pass with the same maxima in the
same order, bit for bit the NumPy kernel's results (benchmarks/README.md, "Kernel
calls of repeated runs").  It never imports Numba on its own: it runs once a
program's repeated runs (executor/compiled_steps.py) or another compiled layer have
loaded it, so a one-off run of a plain CNN starts as before; IREXEC_JIT=0 turns it off.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from ..system import parallel
from .jit_modules import AfterNumba

TYPES = (np.dtype(np.float32), np.dtype(np.float64))  # the data types it takes
_KERNELS = AfterNumba("pool_jit")


def load() -> bool:
    """Load the compiled kernel now (a program whose runs pool: executor/compiled_steps.py);
    whether it is there."""
    return _KERNELS.load()


def max_pool2d(x: np.ndarray, out_spatial: Sequence[int], strides: Sequence[int], dilations: Sequence[int],
               kernel: Sequence[int], low: float) -> np.ndarray | None:
    """The maximum over each window of the padded ``x`` [N, C, H, W] (f32 or f64), NaN
    never winning (as the lowest value ``low``); None where the compiled kernel does not
    apply (another rank or type, no kernel loaded)."""
    if x.ndim != 4 or len(kernel) != 2 or x.dtype not in TYPES:
        return None
    module = _KERNELS.get()
    if module is None:
        return None
    n, c = x.shape[:2]
    out = np.empty((n, c) + tuple(out_spatial), x.dtype)
    if out.size == 0:
        return out
    if not x.flags.c_contiguous:
        # the windows' part of a C-contiguous tensor (floor rounding leaves its last rows or
        # columns unread): the kernel reads the whole, which gives the same windows, uncopied
        base = x.base
        if not (isinstance(base, np.ndarray) and base.flags.c_contiguous and base.ndim == 4
                and base.shape[:2] == x.shape[:2] and base.strides == x.strides
                and base.__array_interface__["data"][0] == x.__array_interface__["data"][0]):
            return None
        x = base
    planes = x.reshape((n * c,) + x.shape[2:])
    flat = out.reshape((n * c,) + out.shape[2:])
    (kh, kw), (sh, sw), (dh, dw) = kernel, strides, dilations

    def part(c0: int, c1: int) -> None:
        rows = np.empty((x.shape[2] - dh * (kh - 1)) * x.shape[3], x.dtype)  # each plane's maxima down its columns
        module.max_pool2d(planes[c0:c1], flat[c0:c1], rows, kh, kw, sh, sw, dh, dw, low)

    parts = min(parallel.num_threads(), n * c) if x.nbytes >= parallel.MIN_PARALLEL_BYTES else 1
    parallel.run([functools.partial(part, a, b) for a, b in parallel.spans(n * c, parts)], x.nbytes)
    return out
