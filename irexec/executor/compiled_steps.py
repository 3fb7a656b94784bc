"""Compiled kernels for a program's small activations and MVNs (the ``jit`` extra).

The f64-computed activations (Gelu, Sigmoid, HSwish, ...) and MVN run compiled on
data of 256 elements or more once Numba's kernels are loaded, and load them
themselves only for large tensors (kernels/activations_compiled.py,
kernels/mvn_compiled.py): a one-off run of a small model must not pay Numba's
import (0.2-0.4 s) for a few calls of 15-50 us.  A program is built for a
signature already run twice, so its runs are repeated runs: there the import is
paid once and each call of a tiny transformer's Gelu ([2, 12, 128] in bert_tiny)
takes a few microseconds instead of 30-50 (one pass instead of a dozen NumPy
passes).  So does a MaxPool over two spatial axes (kernels/pool_compiled.py: one
pass instead of NumPy's strided ones, the same maxima), and with it the ReLUs of
such a program (a copy's speed, the same bits).  The activation kernels compute the
same f64 steps and round once, as docs/accuracy.md states for them; the MVN kernel
gives NumPy's bits.
IREXEC_JIT=0 keeps NumPy's."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..kernels import activations_compiled, mvn_compiled, pool_compiled
from ..ops.elementwise.activations import Gelu2, Gelu7, HSwish4, ReLU1, Sigmoid1
from ..ops.framework.base import Inference, Op
from ..ops.normalization.normalization import MVN1, MVN6
from ..ops.pooling.max_avg_pool import MaxPool1, MaxPool8
from .program_calls import COMPUTE, LID

# the ops whose compute takes a compiled kernel first: their types, the data types it
# takes, the fewest elements once loaded, and its loader
_COMPILED: tuple[tuple[tuple[type[Op], ...], tuple[np.dtype, ...], int, Callable[[], bool]], ...] = (
    ((Gelu2, Gelu7, HSwish4, Sigmoid1), (np.dtype(np.float32),), activations_compiled.MIN_SIZE_LOADED,
     activations_compiled.load),
    ((MVN1, MVN6), (np.dtype(np.float32), np.dtype(np.float64)), mvn_compiled.MIN_SIZE_LOADED, mvn_compiled.load),
)


def load_for(calls: Sequence[Any], op_of: dict[int, Op], info: dict[int, Inference | None]) -> None:
    """Load the compiled kernels that a step of ``calls`` would run."""
    wanted = set()
    for call in calls:
        op, inference = op_of.get(call[LID]), info.get(call[LID])
        if op is None or inference is None or call[COMPUTE] != op.compute or len(inference.outputs) != 1:
            continue
        out = inference.outputs[0]
        for index, (types, dtypes, fewest, _) in enumerate(_COMPILED):
            if isinstance(op, types) and out.etype.dtype in dtypes and out.shape.is_static \
                    and math.prod(out.shape.to_tuple()) >= fewest:
                wanted.add(index)
    for index in sorted(wanted):
        _COMPILED[index][3]()
    if any(_pools_compiled(op_of.get(call[LID]), info.get(call[LID])) for call in calls):
        pool_compiled.load()
        # the pooling has imported Numba: the ReLUs (in the convolutions' tiles too) take the
        # compiled pass, at a copy's speed, rather than NumPy's maximum and fmax
        if any(isinstance(op_of.get(call[LID]), ReLU1) for call in calls):
            activations_compiled.load()


def _pools_compiled(op: Op | None, inference: Inference | None) -> bool:
    """Whether a step is a MaxPool over two spatial axes that pool_compiled.py takes (its
    compute may be wrapped: a ReLU moved after it, its indexes unread)."""
    if not isinstance(op, (MaxPool1, MaxPool8)) or inference is None:
        return False
    out = inference.outputs[0]
    return out.etype.dtype in pool_compiled.TYPES and out.shape.rank == 4
