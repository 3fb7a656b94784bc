"""Hypothesis strategies shared by the op property tests."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from irexec.base import dtypes

# the byte-wide types (the low-bit ones hold codes, not any bit pattern: tests/conformance/test_lowbit.py covers them)
EXECUTABLE = [dtypes.get(n) for n in dtypes.supported_names() if not dtypes.get(n).packed and not dtypes.get(n).is_string]


@st.composite
def any_bits(draw, shape: tuple[int, ...], etype: dtypes.ElementType) -> np.ndarray:
    """An array of ``etype`` holding any bit pattern (NaNs, infinities, ...),
    read-only so that a kernel writing into its input raises."""
    count = math.prod(shape)
    raw = draw(st.binary(min_size=count * etype.itemsize, max_size=count * etype.itemsize))
    if etype.name == "boolean":
        return (np.frombuffer(raw, np.uint8) % 2).astype(bool).reshape(shape)
    return np.frombuffer(raw, etype.dtype).reshape(shape)
