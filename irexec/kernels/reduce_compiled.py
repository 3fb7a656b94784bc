"""Sums over trailing axes through a compiled kernel (the ``jit`` extra).

NumPy's add reduction over a C-contiguous tensor's trailing axes is one pairwise
sum per row, with a call per row: a squeeze-and-excite block's ReduceMean over
[1, 576, 7, 7] costs about 17 us for 28,224 additions.  reduce_jit.row_sums
makes the same pairwise sums in one compiled loop, bit for bit NumPy's results, for
rows of up to ``MAX_ROW`` values (benchmarks/README.md, "MobileNet and EfficientNet,
round 4").  It never imports Numba itself: it runs only once another layer (a large
activation, a depthwise convolution, MVN) has imported it, so a model without such
layers starts as before; IREXEC_JIT=0 turns it off.
"""

from __future__ import annotations

import math

import numpy as np

from .jit_modules import AfterNumba

# Rows longer than this stay on NumPy: its pairwise loop is as fast per value, and the
# compiled loop's gain is the per-row calls of short rows (rows of 49: 0.5x the time,
# of 196: even, of 784 and more: 1.1-1.4x; benchmarks/README.md)
MAX_ROW = 128
_KERNELS = AfterNumba("reduce_jit")


def trailing_sum(data: np.ndarray, axes: tuple[int, ...], keep: bool) -> np.ndarray | None:
    """``np.sum(data, axis=axes, keepdims=keep)`` where ``axes`` are the trailing
    axes of a C-contiguous f32 or f64 ``data`` with rows of at most ``MAX_ROW``,
    computed compiled; None where that does not apply (another type, layout or axes,
    long rows, an empty tensor, no Numba loaded)."""
    if data.dtype not in (np.float32, np.float64) or data.size == 0 or not axes or not data.flags.c_contiguous \
            or tuple(sorted(axes)) != tuple(range(data.ndim - len(axes), data.ndim)):
        return None
    module = _KERNELS.get()
    if module is None:
        return None
    kept = data.shape[:data.ndim - len(axes)]
    row = math.prod(data.shape[data.ndim - len(axes):])
    if row > MAX_ROW:
        return None
    out = np.empty(math.prod(kept), data.dtype)
    module.row_sums(data.reshape(-1), out, row)
    return out.reshape(kept + (1,) * len(axes) if keep else kept)
