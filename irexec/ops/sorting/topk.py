"""TopK-1, TopK-3, TopK-11: the k largest or smallest elements of every slice
along an axis, with their indices.

Selection is always stable, as OpenVINO's reference is: of equal values the
lower index comes first, and the outputs are the same for ``stable`` true or
false.  ``sort="none"`` leaves the order unspecified in the spec; irexec then
orders by value, like ``sort="value"``.  NaN counts as larger than every
number (picked first by ``max``, last by ``min``).  k must lie in
[0, dim]: the spec leaves a larger k undefined, irexec refuses it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base.shapes import Dim, PartialShape
from ..framework.base import INTEGRAL, NUMERIC, Attr, Enum, In, IndexType, Inference, Op, TensorInfo, normalize_axis, op_error
from ..framework.helpers import const_int, value_dims
from ..framework.registry import register

DATA, K = 0, 1


class _TopK(Op):
    family = "sorting"
    summary = "k largest/smallest values along axis and their indices"
    inputs = (In("data", NUMERIC, rank=(1, None)), In("k", INTEGRAL, rank=0, value=True))
    attributes = {
        "axis": Attr("int", required=True, doc="in [-rank, rank-1]"),
        "mode": Enum("max", "min", doc="largest or smallest"),
        "sort": Enum("value", "index", "none", doc="order of the k outputs"),
        "index_element_type": IndexType("i32", doc="element type of the indices"),
    }
    outputs = 2

    def infer(self, data: TensorInfo, k: TensorInfo) -> Inference:
        index_type = self.index_element_type
        kval = const_int(k, "k", K)
        if kval is None:
            known = value_dims(k)
            if known is not None and len(known) == 1 and isinstance(known[0], int):
                kval = known[0]
        if kval is not None and kval < 0:
            raise op_error(f"k must not be negative, got {kval}", "bad-value", K)
        if data.shape.dims is None:
            shape = PartialShape(None)
            return Inference([TensorInfo(shape, data.etype), TensorInfo(shape, index_type)])
        rank = len(data.shape.dims)
        axis = normalize_axis(self.axis, rank, "axis", "axis-out-of-range")
        dims = list(data.shape.dims)
        d = dims[axis]
        if kval is None:
            dims[axis] = Dim(0, d.hi)
        else:
            if d.hi is not None and kval > d.hi:
                raise op_error(f"k {kval} exceeds dim {axis} of the data {data.shape}", "bad-value", K)
            dims[axis] = Dim(kval, kval)
        shape = PartialShape(tuple(dims))
        return Inference([TensorInfo(shape, data.etype), TensorInfo(shape, index_type)], (axis, kval))

    def compute(self, plan: tuple[int, int], data: np.ndarray, k: np.ndarray) -> Sequence[np.ndarray]:
        axis, kval = plan
        # f16/bf16 widen exactly to f32, which NumPy sorts natively
        keys = data.astype(np.float32) if data.dtype.name in ("float16", "bfloat16") else data
        rows = np.ascontiguousarray(np.moveaxis(keys, axis, -1))  # the row passes below read it in order
        n = rows.shape[-1]
        largest = self.mode == "max"
        if 0 < kval and 4 * kval < n and not (rows.dtype.kind == "f" and np.isnan(rows).any()):
            top = _select(rows, kval, largest)  # ascending indexes
            if self.sort != "index":
                top = np.take_along_axis(top, _stable_order(np.take_along_axis(rows, top, -1), largest), -1)
        else:
            top = _stable_order(rows, largest)[..., :kval]
            if self.sort == "index":
                top = np.sort(top, axis=-1)
        top = np.moveaxis(top, -1, axis)
        values = np.take_along_axis(data, top, axis=axis)
        return [values, top.astype(self.index_element_type.dtype)]


def _stable_order(rows: np.ndarray, largest: bool) -> np.ndarray:
    """Indexes that sort each last-axis row, ties by ascending index; NaN
    counts as the largest value."""
    if not largest:
        return np.argsort(rows, axis=-1, kind="stable")
    # Descending with ties by ascending index: sort the reversed row
    # ascending and read the result backwards.
    n = rows.shape[-1]
    return (n - 1) - np.argsort(rows[..., ::-1], axis=-1, kind="stable")[..., ::-1]


def _select(rows: np.ndarray, k: int, largest: bool) -> np.ndarray:
    """The indexes of each row's k chosen elements, ascending, in linear time:
    every element beyond the k-th value, then the lowest-indexed ones equal to
    it (rows without NaN)."""
    n = rows.shape[-1]
    kth = n - k if largest else k - 1
    threshold = np.partition(rows, kth, axis=-1)[..., kth : kth + 1]
    beyond = rows > threshold if largest else rows < threshold
    equal = rows == threshold
    room = k - np.count_nonzero(beyond, axis=-1, keepdims=True)
    chosen = beyond | (equal & (np.cumsum(equal, axis=-1) <= room))
    return np.nonzero(chosen)[-1].reshape(rows.shape[:-1] + (k,))


@register
class TopK1(_TopK):
    type, version = "TopK", 1


@register
class TopK3(_TopK):
    type, version = "TopK", 3


@register
class TopK11(_TopK):
    type, version = "TopK", 11
    attributes = {**_TopK.attributes, "stable": Attr("bool", False, doc="ties keep input order (always so here)")}
