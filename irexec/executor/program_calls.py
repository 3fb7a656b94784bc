"""The fields of a program's call (program.py): one tuple per computed step, read
field by field on the fast path, and rewritten by the passes over a program's calls
(fusions.py, in_place.py, program_pattern.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np

# What one computed step needs: layer id, layer, the kernel and its plan, the slots it
# reads, the slots of its outputs, the slots it frees, the bytes in use when it runs
# beyond the run's start (its outputs included), whether it is a Result, and the
# inferred outputs its kernel is held to (IREXEC_VERIFY_KERNELS) or None.
Call = tuple[int, Any, Callable[..., Sequence[np.ndarray]], Any, tuple[int, ...], tuple[int, ...], tuple[int, ...],
             int, bool, Any]
LID: Final = 0
LAYER: Final = 1
COMPUTE: Final = 2
PLAN: Final = 3
READS: Final = 4
WRITES: Final = 5
FREES: Final = 6
USED: Final = 7
IS_RESULT: Final = 8
VERIFY: Final = 9


def freeing_also(call: Any, slots: tuple[int, ...]) -> Any:
    """``call`` freeing ``slots`` as well once it has run (the tensors a dropped step
    was the last to read)."""
    return call[:FREES] + (call[FREES] + slots,) + call[FREES + 1:]
