"""Tolerances of a comparison: the defaults by element type, and the values
given globally or per output (``atol=1e-5``, ``atol={"y": 1e-3}``).

A float output's default atol is scaled by the reference's magnitude:
``atol = scale * max|ref|`` (finite values; ``scale`` itself when the reference
is all zeros), plus ``rtol * |ref|`` per element.  Two implementations of one
long reduction (a MatMul over 4096 terms, attention, an LLM's logits) differ by
summation order: the error of an element is that of the terms summed, so it
tracks the output's scale, not the element's own size (an element near 0 that
many large terms cancelled to carries their rounding).  A fixed atol is either
too tight for outputs in the tens or too loose for outputs near 1e-3.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ..base.errors import UsageError


@dataclass(frozen=True)
class DefaultTolerance:
    """``atol = scale * max|ref|`` and ``rtol``, for an element type."""

    scale: float
    rtol: float


# f32 (and f64, which OpenVINO CPU computes in f32, so a reference made by it
# holds f32 precision): 1e-4 of the largest |ref| is about 840 ulps of it.
# The shared SmolLM model's logits differ from OpenVINO CPU by 5.7e-6 of their
# largest value (48 ulps) after 576- and 1536-term MatMuls over 4 layers; a
# weight scaled by 1.001 moves an output by about 1e-3 of its size, ten times
# the scale.  f16 and bf16 are computed in f32 and rounded once per layer, so a
# reference that keeps f32 between layers differs by about an ulp of the
# largest value per layer: about 10 ulps (epsilon 9.8e-4 and 7.8e-3).
DEFAULT_TOLERANCES: dict[str, DefaultTolerance] = {
    "float64": DefaultTolerance(1e-4, 1e-5),
    "float32": DefaultTolerance(1e-4, 1e-5),
    "float16": DefaultTolerance(1e-2, 1e-2),
    "bfloat16": DefaultTolerance(8e-2, 8e-2),
}


def default_tolerance(dtype: np.dtype, reference: np.ndarray | None = None) -> tuple[float, float]:
    """(atol, rtol) for an output of ``dtype`` compared with ``reference`` when
    none is given: (0, 0) for integers, booleans and anything else compared
    exactly; for floats atol is the type's scale times the largest finite |ref|."""
    d = DEFAULT_TOLERANCES.get(np.dtype(dtype).name)
    if d is None:
        return 0.0, 0.0
    return d.scale * reference_magnitude(reference), d.rtol


def reference_magnitude(reference: np.ndarray | None) -> float:
    """The largest finite |value| of ``reference``; 1.0 when it has none or is all zeros."""
    if reference is None or reference.size == 0:
        return 1.0
    r = np.asarray(reference, dtype=np.float64)
    finite = np.abs(r[np.isfinite(r)])
    m = float(finite.max()) if finite.size else 0.0
    return m if m > 0 else 1.0


@dataclass(frozen=True)
class Tolerance:
    """A global value plus per-output overrides (``atol=1e-5`` and ``atol={"y": 1e-3}``);
    None: the default of the output's element type (``default_tolerance``)."""

    default: float | None = None
    per_output: Mapping[str, float] = field(default_factory=dict)

    def get(self, output: str) -> float | None:
        return self.per_output.get(output, self.default)

    @staticmethod
    def of(value: Tolerance | float | Mapping[str, float] | None) -> Tolerance:
        """A Tolerance from a number, a ``{name: value}`` mapping (key ``""`` or
        ``"*"`` is the global value, else the element type's default) or a Tolerance."""
        if value is None:
            return Tolerance()
        if isinstance(value, Tolerance):
            return value
        if isinstance(value, Mapping):
            per = {k: check_tolerance(float(v), f"tolerance for {k!r}") for k, v in value.items()}
            default = per.pop("", per.pop("*", None))
            return Tolerance(default, per)
        return Tolerance(check_tolerance(float(value), "tolerance"))


def check_tolerance(v: float, what: str) -> float:
    if not v >= 0 or math.isinf(v):
        raise UsageError(f"{what} must be a finite number >= 0, not {v!r}", code="bad-tolerance")
    return v
