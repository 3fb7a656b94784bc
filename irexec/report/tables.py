"""The rows of the tensor tables irexec prints (``render_table`` formats them)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..base import lowbit, strings
from ..base.shapes import format_shape


def _fmt(value: object) -> str:
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.6g}"
    return str(value)


def value_range(arr: np.ndarray) -> tuple[str, str]:
    """(min, max) as text; NaNs ignored, '-' for an empty tensor."""
    if arr.size == 0:
        return "-", "-"
    if arr.dtype == object:  # strings: byte-wise lexicographic, shown as text
        items = [bytes(x) for x in arr.reshape(-1)]
        return strings.show(min(items), 24), strings.show(max(items), 24)
    a = arr.astype(np.float32) if arr.dtype.name == "bfloat16" else lowbit.to_number(arr) if lowbit.name_of(arr.dtype) else arr
    if a.dtype.kind == "f":
        # fmin/fmax skip NaNs without the mask and the copy a[~isnan(a)] would
        # make (1.25x the output's size at the end of every run); all-NaN gives NaN
        return _fmt(np.fmin.reduce(a, axis=None)), _fmt(np.fmax.reduce(a, axis=None))
    return _fmt(a.min()), _fmt(a.max())


TENSOR_HEADER = ["output", "dtype", "shape", "min", "max", "nan", "inf"]


def tensor_rows(tensors: Mapping[str, np.ndarray]) -> list[list[str]]:
    """One row per tensor under TENSOR_HEADER: min and max skip NaN, so the NaN
    and infinity counts stand beside them ('-' for types that hold neither)."""
    from ..api.stats import is_float, tensor_stats

    rows = []
    for name, arr in tensors.items():
        lo, hi = value_range(arr)
        if is_float(arr):
            st = tensor_stats(arr)
            nan, inf = str(st.nan), str(st.inf)
        else:
            nan = inf = "-"
        dtype = "string" if arr.dtype.kind == "O" else lowbit.STRUCTURED.get(arr.dtype) or str(arr.dtype)
        rows.append([name, dtype, format_shape(arr.shape), lo, hi, nan, inf])
    return rows
