"""The compiled row sums of reduce_compiled.py (imported only where Numba is
installed, and only once another compiled kernel has imported it).

A module-level function, so that Numba's on-disk cache keys it by name alone.
Compiled without fast-math: each row is NumPy's pairwise sum (mvn_jit.pairwise_sum)
added to a zero, as NumPy's add reduction starts from its identity.
"""

from __future__ import annotations

from typing import Any

import numba

from .mvn_jit import pairwise_sum

njit: Any = numba.njit


@njit(nogil=True, cache=True)
def row_sums(x: Any, out: Any, n: int) -> None:
    """``out[r]`` = the sum of row r of the flat ``x`` in rows of ``n``."""
    zero = x.dtype.type(0)
    for r in range(out.shape[0]):
        out[r] = zero + pairwise_sum(x[r * n:(r + 1) * n])
