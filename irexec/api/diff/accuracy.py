"""The stated accuracy of each op, in units the comparison can count.

docs/accuracy.md says what irexec promises per op against the exact result.  A
comparison with another implementation (an OpenVINO device plugin, or a second
IR) measures ``|other - reference|`` per element in **units**: multiples of the
output type's machine epsilon times the element's scale,
``|reference| + sqrt(n) * rms(reference)``: ``n`` is 1 for elementwise ops and
the number of products summed for accumulating ones, whose rounding error
follows the sum of the magnitudes of the terms rather than the (cancelled)
result.  The ``rms`` floor judges an element far smaller than the tensor's
typical magnitude against that magnitude: such an element is what a
cancellation upstream left, and carries an error of the larger terms.

An op's stated tolerance, in those units, is what both sides may each be off
by, added: ``2 * per_side``, plus the other side's own slack for inexact ops:
``DEVICE_SLACK`` for an OpenVINO device plugin, whose CPU kernels differ from
exact results by about 1e-6 relative per op (approximate transcendental
functions, fused kernels, its own summation order), about 8 units in f32.

| class | per side | ops |
|---|---|---|
| exact | 0 (any difference is beyond) | integer, boolean, movement, selection, comparison ops, ReLU, Maximum ... |
| rounded | 0.5 (correctly rounded) | float Add, Subtract, Multiply, Divide, Sqrt |
| transcendental | 1 ulp | Exp, Log, Tanh, Sigmoid, Gelu, Swish, Erf, Power, ... |
| accumulating | log2(n) + 4 | MatMul, Convolution, reductions, SoftMax, MVN, attention, pooling |

An op's class is the ``accuracy`` attribute of its op class (the table of
docs/accuracy.md is generated from the same attributes).  Integer and boolean
outputs are exact whatever the op.  A type irexec does not implement is
treated as accumulating over its largest input axis: a generous bound, never
an invented exactness.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from ...ops.framework.accuracy import ACCUMULATING, EXACT, ROUNDED, TRANSCENDENTAL, loosest
from ...ops.framework.registry import versions_of

DEVICE_SLACK = 8.0  # units: 1e-6 relative / 2^-23


@cache
def accuracy_class(op_type: str) -> str:
    """The accuracy class ``op_type`` states on its op class (the loosest of its
    versions); ``accumulating`` for a type irexec does not implement."""
    return loosest([cls.accuracy for cls in versions_of(op_type)])


@dataclass(frozen=True)
class StatedAccuracy:
    """What one op's output may differ by between two implementations."""

    kind: str  # exact | rounded | transcendental | accumulating
    units: float  # the tolerance, in units (0: exact)
    n: int = 1  # the reduction length the scale uses (1: elementwise)

    def describe(self) -> str:
        if self.kind == EXACT:
            return "exact"
        if self.kind == ACCUMULATING:
            return f"accumulating over {self.n}: {self.units:.3g} units"
        return f"{self.kind}: {self.units:.3g} units"


def reduction_length(op_type: str, input_shapes: Sequence[tuple[int, ...]], output_shape: tuple[int, ...],
                     attrs: dict[str, str]) -> int:
    """How many terms one output element sums, from the op's input shapes."""
    shapes = [tuple(s) for s in input_shapes]
    if not shapes or not shapes[0]:
        return 1
    first = shapes[0]
    if op_type in ("MatMul", "Einsum"):
        transposed = attrs.get("transpose_a", "false").lower() == "true"
        return int(first[-2] if transposed and len(first) > 1 else first[-1])
    if op_type in ("Convolution", "ConvolutionBackpropData") and len(shapes) > 1 and len(shapes[1]) > 2:
        return int(np.prod(shapes[1][1:]))
    if op_type in ("GroupConvolution", "GroupConvolutionBackpropData") and len(shapes) > 1 and len(shapes[1]) > 3:
        return int(np.prod(shapes[1][2:]))
    if op_type == "ScaledDotProductAttention" and len(shapes) > 1 and len(shapes[1]) > 1:
        return int(first[-1] + shapes[1][-2])
    if op_type.startswith("Reduce") or op_type in ("AvgPool", "AdaptiveAvgPool"):
        out = max(1, int(np.prod(output_shape)))
        return max(1, int(np.prod(first)) // out)
    return int(max(first))  # SoftMax, MVN, normalisations, CumSum: the longest axis bounds the axis summed


def stated_accuracy(op_type: str, dtype: np.dtype, n: int = 1, slack: float = 0.0) -> StatedAccuracy:
    """The stated tolerance of ``op_type`` giving ``dtype``: both sides' bounds added, plus
    ``slack`` (the other side's own allowance) for ops that are not exact."""
    kind = accuracy_class(op_type) if np.dtype(dtype).kind in "fV" else EXACT
    if kind == EXACT:
        return StatedAccuracy(EXACT, 0.0)
    if kind == ROUNDED:
        return StatedAccuracy(ROUNDED, 2 * 0.5 + slack)
    if kind == TRANSCENDENTAL:
        return StatedAccuracy(TRANSCENDENTAL, 2 * 1.0 + slack)
    n = max(1, int(n))
    return StatedAccuracy(ACCUMULATING, 2 * (math.log2(n) + 4) + slack, n)


def epsilon(dtype: np.dtype) -> float:
    """One unit at scale 1: the type's machine epsilon (2^-23 for f32)."""
    try:
        return float(np.finfo(dtype).eps)
    except (TypeError, ValueError):  # ml_dtypes' bfloat16 and the small floats have their own finfo
        import ml_dtypes

        return float(ml_dtypes.finfo(dtype).eps)


def scale(reference: np.ndarray, stated: StatedAccuracy) -> np.ndarray:
    """Per element, the magnitude one unit is an epsilon of."""
    mag = np.abs(reference)
    finite = mag[np.isfinite(mag)]
    rms = float(np.sqrt(np.mean(np.square(finite)))) if finite.size else 0.0
    return mag + math.sqrt(stated.n) * rms


__all__ = ["ACCUMULATING", "DEVICE_SLACK", "EXACT", "ROUNDED", "StatedAccuracy", "TRANSCENDENTAL", "accuracy_class", "epsilon",
           "reduction_length", "scale", "stated_accuracy"]
