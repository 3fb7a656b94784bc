"""Compiled activations for a program's small activations (the ``jit`` extra).

The f64-computed activations (Gelu, Sigmoid, HSwish, ...) run compiled on f32 data
of 256 elements or more once Numba's kernels are loaded, and load them themselves
only for large tensors (kernels/activations_compiled.py): a one-off run of a small
model must not pay Numba's import (0.2-0.4 s) for a few calls of 30-50 us.  A
program is built for a signature already run twice, so its runs are repeated runs:
there the import is paid once and each call of a tiny transformer's Gelu
([2, 12, 128] in bert_tiny) takes a few microseconds instead of 30-50 (one pass
instead of a dozen NumPy passes).  The kernels compute the same f64 steps and
round once, as docs/accuracy.md states for them.  IREXEC_JIT=0 keeps NumPy's."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..kernels import activations_compiled
from ..ops.elementwise.activations import Gelu2, Gelu7, HSwish4, Sigmoid1
from ..ops.framework.base import Inference, Op

_COMPILED = (Gelu2, Gelu7, HSwish4, Sigmoid1)  # the activations whose compute takes the compiled kernel first


def load_for(calls: Sequence[Any], op_of: dict[int, Op], info: dict[int, Inference | None]) -> None:
    """Load the compiled activations where a step of ``calls`` would run them."""
    for call in calls:
        op, inference = op_of.get(call[0]), info.get(call[0])
        if not isinstance(op, _COMPILED) or call[2] != op.compute or inference is None:
            continue
        out = inference.outputs[0]
        if out.etype.dtype == np.float32 and out.shape.is_static \
                and math.prod(out.shape.to_tuple()) >= activations_compiled.MIN_SIZE_LOADED:
            activations_compiled.load()
            return
