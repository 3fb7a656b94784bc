"""What is in a tensor, in numbers a user can read: its range, mean and how
many NaNs and infinities it holds.  The run table, ``--check-finite`` and the
run report (``--report``) all take their numbers from here, so they agree."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..base.dtypes import as_float, is_float_dtype
from ..base.shapes import format_shape


def is_float(arr: np.ndarray) -> bool:
    """Whether the tensor holds floats, of any width (see dtypes.is_float_dtype)."""
    return is_float_dtype(arr.dtype)


@dataclass(frozen=True)
class TensorStats:
    """``min``, ``max`` and ``mean`` are over the finite values (None when there
    is none); NaNs and infinities are counted apart, so a single NaN cannot
    hide behind a plausible range."""

    dtype: str
    shape: tuple[int, ...]
    size: int
    min: float | int | bool | None
    max: float | int | bool | None
    mean: float | None
    nan: int = 0
    posinf: int = 0
    neginf: int = 0

    @property
    def inf(self) -> int:
        return self.posinf + self.neginf

    @property
    def finite(self) -> bool:
        return self.nan == 0 and self.inf == 0

    def counts(self) -> str:
        """``1 NaN, 2 +inf``: the values that are not finite ('' when none is)."""
        return ", ".join(f"{n} {what}" for n, what in ((self.nan, "NaN"), (self.posinf, "+inf"), (self.neginf, "-inf")) if n)

    def describe(self, counts: bool = True) -> str:
        """``float32[1,16] in [-2.5, 3] (1 NaN, 2 +inf)``: one tensor in a line."""
        rng = "no finite value" if self.min is None or self.max is None else f"in [{_num(self.min)}, {_num(self.max)}]"
        if self.size == 0:
            rng = "empty"
        held = self.counts() if counts else ""
        return f"{self.dtype}{format_shape(self.shape)} {rng}" + (f" ({held})" if held else "")

    def as_dict(self) -> dict[str, object]:
        return {"dtype": self.dtype, "shape": list(self.shape), "size": self.size, "min": self.min, "max": self.max,
                "mean": self.mean, "nan": self.nan, "posinf": self.posinf, "neginf": self.neginf}


def _num(x: float | int | bool) -> str:
    if isinstance(x, bool):
        return str(x).lower()
    return f"{x:.6g}" if isinstance(x, float) else str(x)


def _scalar(x: np.generic) -> float | int | bool:
    if isinstance(x, np.bool_):
        return bool(x)
    if isinstance(x, np.integer):
        return int(x)
    return float(x)


def tensor_stats(arr: np.ndarray) -> TensorStats:
    arr = np.asarray(arr)
    dtype = "string" if arr.dtype.kind in "OUS" else str(arr.dtype)
    base = {"dtype": dtype, "shape": tuple(int(d) for d in arr.shape), "size": int(arr.size)}
    if arr.size == 0:
        return TensorStats(**base, min=None, max=None, mean=None)  # type: ignore[arg-type]
    if not is_float(arr):
        if arr.dtype.kind not in "biu":  # strings, objects: nothing to measure
            return TensorStats(**base, min=None, max=None, mean=None)  # type: ignore[arg-type]
        return TensorStats(**base, min=_scalar(arr.min()), max=_scalar(arr.max()),  # type: ignore[arg-type]
                           mean=float(np.mean(arr, dtype=np.float64)))
    a = as_float(arr)
    nan = int(np.count_nonzero(np.isnan(a)))
    posinf = int(np.count_nonzero(a == np.inf))
    neginf = int(np.count_nonzero(a == -np.inf))
    if nan or posinf or neginf:
        a = a[np.isfinite(a)]
    if a.size == 0:
        return TensorStats(**base, min=None, max=None, mean=None, nan=nan, posinf=posinf, neginf=neginf)  # type: ignore[arg-type]
    return TensorStats(**base, min=float(a.min()), max=float(a.max()), mean=float(np.mean(a, dtype=np.float64)),  # type: ignore[arg-type]
                       nan=nan, posinf=posinf, neginf=neginf)


def distribution(arr: np.ndarray) -> dict[str, object]:
    """Mean, std, median, p95 and p99 of the finite values, and where the min,
    max, p95 and p99 elements sit (an index per dim; the element of that rank,
    the lower one between two).  Empty when the tensor holds no number."""
    arr = np.asarray(arr)
    if arr.size == 0 or arr.dtype.kind not in "biuf" and arr.dtype.name != "bfloat16":
        return {}
    a = arr.astype(np.float64).reshape(-1)
    finite = np.flatnonzero(np.isfinite(a))
    if finite.size == 0:
        return {}
    values = a[finite]
    ranks = {"min": 0, "p95": int(0.95 * (values.size - 1)), "p99": int(0.99 * (values.size - 1)),
             "max": values.size - 1}
    order = np.argpartition(values, sorted(set(ranks.values())))
    at = {k: tuple(int(i) for i in np.unravel_index(int(finite[order[r]]), arr.shape)) for k, r in ranks.items()}
    return {"mean": float(values.mean()), "std": float(values.std()), "median": float(np.median(values)),
            "p95": float(values[order[ranks["p95"]]]), "p99": float(values[order[ranks["p99"]]]),
            "min_at": list(at["min"]), "max_at": list(at["max"]), "p95_at": list(at["p95"]), "p99_at": list(at["p99"])}
