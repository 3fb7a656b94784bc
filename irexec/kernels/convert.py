"""Element type conversion with temporaries bounded by a chunk, not the tensor.

Float to integer goes through float64 and int64 (truncation toward zero, NaN,
infinities and values past 2^63 to 0, then wrapping modulo 2^N): done on the
whole tensor at once, an f16 -> i8 conversion would allocate about 40 bytes
of temporaries per one-byte output element, far past ``--max-memory``.
"""

from __future__ import annotations

import numpy as np

from ..dtypes import BF16

_I64_LIMIT = float(2**63)
# Elements converted per step: the float64/int64 temporaries of one step take a few MiB.
CHUNK_ELEMENTS = 1 << 18


def convert_array(data: np.ndarray, dst: np.dtype) -> np.ndarray:
    """``data`` as ``dst`` with Convert-1's rules (see irexec/ops/convert.py)."""
    dst = np.dtype(dst)
    if dst.kind == "b":
        return np.asarray(np.not_equal(data, 0))  # a 0-d input gives a NumPy scalar
    if dst.kind in "iu" and (data.dtype.kind == "f" or data.dtype == BF16):
        out = np.empty(data.shape, dst)
        flat_in, flat_out = np.ravel(data), out.reshape(-1)
        for lo in range(0, flat_in.size, CHUNK_ELEMENTS):
            hi = lo + CHUNK_ELEMENTS
            wide = np.trunc(flat_in[lo:hi].astype(np.float64))
            wide[~(np.isfinite(wide) & (np.abs(wide) < _I64_LIMIT))] = 0.0
            np.copyto(flat_out[lo:hi], wide.astype(np.int64), casting="unsafe")  # wraps modulo 2^N, as astype does
        return out
    with np.errstate(over="ignore", invalid="ignore"):
        return data.astype(dst)
