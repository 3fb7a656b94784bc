"""Per-tensor figures of one side against the reference: max abs error, error in
units of the op's stated accuracy, relative L2 error, SNR, cosine similarity and
NaN / Inf count differences.  Everything is computed in float64 (integers as
exact differences), so no figure rounds to zero or overflows."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .accuracy import EXACT, StatedAccuracy, epsilon, scale


@dataclass
class Figures:
    """How one tensor of the other side compares with the reference's."""

    max_abs_error: float = 0.0
    max_units: float = 0.0  # the largest element error in units (see accuracy.py); inf: an exact op differs
    beyond: int = 0  # elements beyond the stated tolerance
    size: int = 0
    rel_l2: float = 0.0  # ||other - ref|| / ||ref|| (inf when ref is all zeros and other is not)
    snr_db: float = math.inf  # -20 log10(rel_l2)
    cosine: float = 1.0
    nan_diff: int = 0  # NaNs in the other side minus NaNs in the reference
    inf_diff: int = 0
    detail: str = ""  # a shape or type mismatch, instead of the numbers

    @property
    def within(self) -> bool:
        return not self.detail and self.beyond == 0

    def as_dict(self) -> dict[str, object]:
        return {"max_abs_error": _num(self.max_abs_error), "max_units": _num(self.max_units), "beyond": self.beyond,
                "size": self.size, "rel_l2": _num(self.rel_l2), "snr_db": _num(self.snr_db), "cosine": _num(self.cosine),
                "nan_diff": self.nan_diff, "inf_diff": self.inf_diff, "detail": self.detail or None}


def _num(x: float) -> float | str:
    """JSON has no infinities or NaN: those are written as text."""
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return float(x)


def tensor_figures(other: np.ndarray, reference: np.ndarray, stated: StatedAccuracy, limit: float | None = None
                   ) -> Figures:
    """The figures of ``other`` against ``reference`` under ``stated``; an element is beyond
    when its error exceeds ``limit`` units (default: the stated tolerance itself)."""
    other, reference = np.asarray(other), np.asarray(reference)
    if other.shape != reference.shape:
        return Figures(size=int(reference.size), beyond=int(reference.size) or 1, max_units=math.inf,
                       detail=f"shape {list(other.shape)} against the reference's {list(reference.shape)}")
    if reference.size == 0:
        return Figures()
    other, reference = other.reshape(-1), reference.reshape(-1)  # 0-d arrays too: NumPy gives scalars for those
    floating = reference.dtype.kind not in "iub"
    if not floating:
        differs = other != reference
        if reference.dtype.kind == "b":
            diff = differs.astype(np.float64)
        else:  # exact magnitudes: both widened through Python ints would be slow, int64 / uint64 suffice here
            hi, lo = np.maximum(other, reference), np.minimum(other, reference)
            diff = (hi.astype(np.uint64) - lo.astype(np.uint64)).astype(np.float64) if reference.dtype.kind == "u" \
                else (hi.astype(np.int64).view(np.uint64) - lo.astype(np.int64).view(np.uint64)).astype(np.float64)
        a, r = other.astype(np.float64), reference.astype(np.float64)
        count = int(np.count_nonzero(differs))
        fig = Figures(max_abs_error=float(diff.max()), max_units=math.inf if count else 0.0, beyond=count,
                      size=int(reference.size))
        _l2(fig, a, r, diff)
        return fig
    a, r = other.astype(np.float64), reference.astype(np.float64)  # exact for f16, bf16, f32
    a_nan, r_nan = np.isnan(a), np.isnan(r)
    same = (a == r) | (a_nan & r_nan)
    with np.errstate(invalid="ignore"):
        diff = np.abs(a - r)
    diff[same] = 0.0
    diff[~same & ~np.isfinite(diff)] = np.inf  # NaN or infinity against another value
    fig = Figures(size=int(r.size), nan_diff=int(a_nan.sum()) - int(r_nan.sum()),
                  inf_diff=int(np.isinf(a).sum()) - int(np.isinf(r).sum()))
    fig.max_abs_error = float(diff.max())
    unit = epsilon(reference.dtype) * scale(np.where(r_nan, 0.0, r), stated)
    with np.errstate(divide="ignore", invalid="ignore"):
        units = np.where(diff == 0, 0.0, diff / unit)
    units[np.isnan(units)] = np.inf
    fig.max_units = float(units.max())
    if limit is None:
        limit = 0.0 if stated.kind == EXACT else stated.units
    fig.beyond = int(np.count_nonzero(units > limit))
    finite = np.isfinite(a) & np.isfinite(r)
    _l2(fig, np.where(finite, a, 0.0), np.where(finite, r, 0.0), np.where(finite, diff, 0.0))
    return fig


def _l2(fig: Figures, a: np.ndarray, r: np.ndarray, diff: np.ndarray) -> None:
    norm_r, norm_d, norm_a = (float(np.linalg.norm(x.ravel())) for x in (r, diff, a))
    fig.rel_l2 = norm_d / norm_r if norm_r else (0.0 if norm_d == 0 else math.inf)
    fig.snr_db = math.inf if fig.rel_l2 == 0 else (-20 * math.log10(fig.rel_l2) if math.isfinite(fig.rel_l2) else -math.inf)
    if norm_a and norm_r:
        fig.cosine = float(np.dot(a.ravel(), r.ravel()) / (norm_a * norm_r))
    else:
        fig.cosine = 1.0 if norm_a == norm_r else 0.0


__all__ = ["Figures", "tensor_figures"]
