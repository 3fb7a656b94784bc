"""Element type conversion with temporaries bounded by a chunk, not the tensor.

Float to integer goes through float64 and int64 (truncation toward zero, NaN,
infinities and values past 2^63 to 0, then wrapping modulo 2^N): done on the
whole tensor at once, an f16 -> i8 conversion would allocate about 40 bytes
of temporaries per one-byte output element, far past ``--max-memory``.
"""

from __future__ import annotations

import numpy as np

from ..base import lowbit
from ..base.dtypes import is_bf16

_I64_LIMIT = float(2**63)
# Elements converted per step: the float64/int64 temporaries of one step take a few MiB.
CHUNK_ELEMENTS = 1 << 18


def convert_array(data: np.ndarray, dst: np.dtype) -> np.ndarray:
    """``data`` as ``dst`` with Convert-1's rules (see irexec/ops/convert/convert.py)."""
    dst = np.dtype(dst)
    if lowbit.name_of(data.dtype) is not None:
        data = lowbit.to_number(data)  # exact: narrow integers as (u)int8, nf4 and small floats as f32
    target = lowbit.name_of(dst)
    if target is not None:
        return _to_lowbit(data, target)
    if dst.kind == "b":
        return np.asarray(np.not_equal(data, 0))  # a 0-d input gives a NumPy scalar
    if dst.kind in "iu" and (data.dtype.kind == "f" or is_bf16(data.dtype)):
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


def _to_lowbit(data: np.ndarray, name: str) -> np.ndarray:
    """OpenVINO's reference Convert into a low-bit type: integers truncated
    toward zero as for any integer type, then wrapped modulo 2^bits; floats
    rounded from their f32 value (see lowbit.from_float)."""
    if name in lowbit.NARROW_INTS:
        wide = data if data.dtype == np.int64 else convert_array(data, np.dtype(np.int64))
        return lowbit.from_integers(wide, name)
    if data.dtype.kind == "b":
        data = data.astype(np.uint8)
    with np.errstate(over="ignore", invalid="ignore"):
        return lowbit.from_float(data.astype(np.float32), name)
