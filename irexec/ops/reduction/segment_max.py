"""SegmentMax-16: the maximum of data's rows (axis 0) per segment, segment_ids
giving each row's segment (sorted, non-negative); a segment with no row is 0 or
the type's lowest value (fill_mode).  The output has num_segments rows when
that input is given (rows of higher ids are left out), else max(segment_ids)+1."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base.dtypes import finfo
from ...base.shapes import DYNAMIC, Dim, PartialShape
from ..framework.accuracy import EXACT
from ..framework.base import INDEX, NUMERIC, Enum, In, Inference, Op, TensorInfo, op_error
from ..framework.helpers import const_int, const_ints
from ..framework.registry import register

DATA, IDS, NUM = 0, 1, 2


def _lowest(dtype: np.dtype) -> object:
    if dtype.kind in "iu":
        return np.iinfo(dtype).min
    return finfo(dtype).min


@register
class SegmentMax16(Op):
    type, version, family = "SegmentMax", 16, "reduction"
    accuracy = EXACT  # selects, never rounds
    summary = "maximum of data's rows per segment (sorted segment_ids)"
    inputs = (In("data", NUMERIC, rank=(1, None)), In("segment_ids", INDEX, rank=1, value=True),
              In("num_segments", INDEX, rank=0, optional=True, value=True))
    attributes = {"fill_mode": Enum("zero", "lowest", doc="the value of a segment without rows")}

    def infer(self, data: TensorInfo, ids: TensorInfo, num: TensorInfo | None = None) -> Inference:
        dims = data.shape.dims
        if dims is not None and ids.shape.dims is not None and not dims[0].compatible(ids.shape.dims[0]):
            raise op_error(f"segment_ids {ids.shape} must hold one id per row of data {data.shape}",
                           "incompatible-inputs", IDS)
        values = const_ints(ids, "segment_ids", IDS)
        if values is not None:
            if any(b < a for a, b in zip(values, values[1:])):
                raise op_error(f"segment_ids {values[:20]} must be sorted", "bad-value", IDS)
            if values and values[0] < 0:
                raise op_error(f"segment_ids must not be negative, got {values[0]}", "bad-value", IDS)
        n = const_int(num, "num_segments", NUM) if num is not None else None
        if n is not None and n < 0:
            raise op_error(f"num_segments must not be negative, got {n}", "bad-value", NUM)
        rows: Dim = DYNAMIC
        if n is not None:
            rows = Dim.of(n)
        elif values is not None and num is None:
            rows = Dim.of(values[-1] + 1 if values else 0)
        if dims is None:
            return Inference([TensorInfo(PartialShape(None), data.etype)])
        count = n if n is not None else (values[-1] + 1 if values else 0) if values is not None and num is None else None
        return Inference([TensorInfo(PartialShape((rows, *dims[1:])), data.etype)], count)

    def compute(self, plan: int, data: np.ndarray, ids: np.ndarray, *rest: np.ndarray) -> Sequence[np.ndarray]:
        keep = ids < plan
        ids, rows = ids[keep].astype(np.intp), data[keep]
        fill = data.dtype.type(0) if self.fill_mode == "zero" else _lowest(data.dtype)
        out = np.full((plan, *data.shape[1:]), _lowest(data.dtype), data.dtype)
        np.maximum.at(out, ids, rows)
        empty = np.bincount(ids, minlength=plan) == 0
        out[empty] = fill
        return [out]
