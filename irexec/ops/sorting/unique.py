"""Unique-10: the distinct values of a tensor or of its slices along an axis.

Unique's output shapes follow OpenVINO's shape inference exactly (the unique
count is only known at run time: ``[1..N]`` for N input elements).  Its values
are exact for every element type: equal values are equal bits, except that
-0.0 equals 0.0 and (as OpenVINO's reference compares with ``==``) every NaN
is a value of its own.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base import limits
from ...base.dtypes import is_bf16
from ...base.shapes import DYNAMIC, Dim, PartialShape
from ..framework.base import INDEX, NUMERIC, Attr, In, IndexType, Inference, Op, TensorInfo, normalize_axis, op_error
from ..framework.helpers import const_int
from ..framework.registry import register

# ------------------------------------------------------------------ Bucketize-3


# ------------------------------------------------------------------ Unique-10

@register
class Unique10(Op):
    type, version = "Unique", 10
    family = "sorting"
    summary = "unique elements (or slices along axis), first indices, inverse indices and counts"
    inputs = (In("data", NUMERIC), In("axis", INDEX, rank=(0, 1), elements=1, optional=True, value=True))
    outputs = 4
    attributes = {
        "sorted": Attr("bool", True, doc="ascending order; else order of first occurrence"),
        "index_element_type": IndexType(doc="i32 or i64: outputs 1 and 2"),
        "count_element_type": IndexType(doc="i32 or i64: output 3"),
    }

    def infer(self, data: TensorInfo, axis: TensorInfo | None = None) -> Inference:
        shape = data.shape
        n = _capacity(shape)
        some = PartialShape((Dim(1, n),)) if n else PartialShape((DYNAMIC,))
        idx, cnt = self.index_element_type, self.count_element_type
        if axis is None:
            rev = PartialShape((Dim(n, n),)) if n else PartialShape((DYNAMIC,))
            return Inference([TensorInfo(some, data.etype), TensorInfo(some, idx), TensorInfo(rev, idx),
                              TensorInfo(some, cnt)], None)
        if not axis.is_constant:
            raise op_error("axis must be a constant", "bad-value", 1)
        a = const_int(axis, "axis", 1)
        if shape.rank is None or a is None:
            return Inference([TensorInfo(PartialShape(None), data.etype), TensorInfo(PartialShape((DYNAMIC,)), idx),
                              TensorInfo(PartialShape((DYNAMIC,)), idx), TensorInfo(PartialShape((DYNAMIC,)), cnt)])
        ax = normalize_axis(a, shape.rank, "axis", "axis-out-of-range", 1)
        d = shape[ax]
        dims = list(shape.dims or ())
        if d.hi == 0:
            some = PartialShape((Dim(0, 0),))
        elif not d.is_dynamic:
            dims[ax] = Dim(1, d.hi)
        out = PartialShape(tuple(dims))
        return Inference([TensorInfo(out, data.etype), TensorInfo(some, idx), TensorInfo(PartialShape((d,)), idx),
                          TensorInfo(some, cnt)], ax)

    def compute(self, plan: int | None, data: np.ndarray, axis: np.ndarray | None = None) -> Sequence[np.ndarray]:
        if plan is None:
            keys = data.reshape(-1, 1)
        else:
            moved = np.moveaxis(data, plan, 0)
            keys = moved.reshape(moved.shape[0], moved[:1].size)
        # at most one output row per input row: the sort's working arrays and
        # the four outputs at their largest, held to the memory limit first
        idx, cnt = self.index_element_type.dtype, self.count_element_type.dtype
        limits.require(keys.shape[0] * (56 + 2 * idx.itemsize + cnt.itemsize) + data.nbytes, "Unique's working arrays and outputs")
        first, inverse, counts = _unique_rows(keys, self.sorted)
        if plan is None:
            values = data.reshape(-1)[first]
        else:
            values = np.take(data, first, axis=plan)
        return [values, first.astype(idx), inverse.astype(idx), counts.astype(cnt)]


def _capacity(shape: PartialShape) -> int:
    """Element count of a static shape, 0 when unknown or empty."""
    if not shape.is_static:
        return 0
    n = 1
    for d in shape.to_tuple():
        n *= d
    return n


def _unique_rows(keys: np.ndarray, ascending: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For rows of ``keys``: the index of each distinct row's first
    occurrence (in the output order), each row's position among the distinct
    rows, and how often each occurs.  Rows compare lexicographically by
    value (-0.0 == 0.0; a NaN equals nothing)."""
    n = keys.shape[0]
    if n == 0:
        e = np.zeros(0, np.int64)
        return e, e, e
    k = keys
    if k.dtype.kind == "f" or is_bf16(k.dtype):
        k = k.astype(np.float64) + 0.0  # -0.0 -> 0.0 so equal values are equal keys
    # stable lexicographic sort of the rows; NaNs sort last (np.lexsort puts them there)
    if k.shape[1] == 1:
        order = np.argsort(k[:, 0], kind="stable")
    else:
        order = np.lexsort(k.T[::-1]) if k.shape[1] else np.arange(n)
    s = k[order]
    if k.shape[1] == 1:
        same = s[1:, 0] == s[:-1, 0]  # NaN != NaN: every NaN starts a group
    elif k.shape[1]:
        same = np.all(s[1:] == s[:-1], axis=1)
    else:
        same = np.ones(n - 1, bool)
    starts = np.flatnonzero(np.concatenate(([True], ~same)))
    group_of_sorted = np.cumsum(np.concatenate(([True], ~same))) - 1
    first = order[starts]  # stable sort: the first of each group is its first occurrence
    counts = np.diff(np.append(starts, n))
    group = np.empty(n, np.int64)
    group[order] = group_of_sorted
    if not ascending:
        rank = np.argsort(first, kind="stable")
        first, counts = first[rank], counts[rank]
        remap = np.empty_like(rank)
        remap[rank] = np.arange(len(rank))
        group = remap[group]
    return first, group, counts
