"""MVN rows through a compiled kernel (the ``jit`` extra).

NumPy's MVN over short rows (a ConvNeXt's LayerNorm over 32 to 768 channels,
channels last) makes a reduction call per row pass and half a dozen passes in
all; mvn_jit.mvn_rows makes one pass per row with NumPy's own pairwise sums and
roundings, bit for bit the NumPy kernel's results, in 0.5x its time on
ConvNeXt's [3136, 32] rows (benchmarks/README.md).  Blocks below ``MIN_SIZE``
elements stay on the NumPy kernel until a larger one has loaded the compiled
one, so a small model never imports Numba for it; IREXEC_JIT=0 turns it off.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from .elementwise import MIN_SPLIT
from .jit_modules import jit_module

# Elements of a block of rows from which MVN runs compiled (Numba's import, 0.2-0.4 s
# once, pays off), as the activations do; once loaded, from this many
MIN_SIZE = MIN_SPLIT
MIN_SIZE_LOADED = 256

_module: ModuleType | None | bool = False  # mvn_jit, None without Numba; False: not asked yet


def _kernels() -> ModuleType | None:
    global _module
    if _module is False:
        _module = jit_module("mvn_jit")
    return _module  # type: ignore[return-value]


def run(x: np.ndarray, out: np.ndarray, normalize_variance: bool, eps: float, inside: bool) -> bool:
    """``out`` = MVN of each row of ``x`` [rows, n] (f32 or f64, C-contiguous, as
    normalization.py's mvn_kernel computes it); False, and nothing written, where
    the compiled kernel does not apply (small, another type or layout, no Numba)."""
    if x.dtype not in (np.float32, np.float64) or out.dtype != x.dtype or x.ndim != 2 \
            or x.size < (MIN_SIZE if _module is False else MIN_SIZE_LOADED) \
            or not (x.flags.c_contiguous and out.flags.c_contiguous):
        return False
    module = _kernels()
    if module is None:
        return False
    n = x.shape[1]
    module.mvn_rows(x.reshape(-1), out.reshape(-1), np.empty(n, x.dtype), n, bool(normalize_variance), float(eps),
                    bool(inside))
    return True


def load() -> bool:
    """Load the compiled kernel now (a program that will call small MVNs many
    times: executor/compiled_steps.py); whether it is there."""
    return _kernels() is not None
