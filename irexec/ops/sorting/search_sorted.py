"""SearchSorted-15: for each value, the index where it would be inserted into
the sorted sequence to keep it sorted: the first such index (lower bound), or
with ``right_mode`` the last (upper bound).  A 1-D sequence serves every value;
otherwise each row of values searches the sequence row with the same leading
indices.  The search is a binary search for the first element not below
the value (not at or below it with ``right_mode``); a NaN value compares false
with everything, so it lands at index 0 in both modes, as OpenVINO gives, where
NumPy would sort it last."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import numpy as np

from ...base.dtypes import is_bf16
from ...base.shapes import DYNAMIC, PartialShape
from ..framework.base import ANY, Attr, In, IndexType, Inference, Op, TensorInfo, op_error, same_as
from ..framework.registry import register

SEQ, VALUES = 0, 1


@register
class SearchSorted15(Op):
    type, version, family = "SearchSorted", 15, "sorting"
    summary = "where each value would be inserted in the sorted sequence"
    inputs = (In("sorted_sequence", ANY, rank=(1, None)), In("values", same_as("sorted_sequence")))
    attributes = {"right_mode": Attr("bool", False, doc="the last suitable index (after equal values)"),
                  "output_type": IndexType()}

    def infer(self, seq: TensorInfo, values: TensorInfo) -> Inference:
        sd, vd = seq.shape.dims, values.shape.dims
        out = values.shape
        if sd is not None and len(sd) > 1:
            if vd is None:
                out = PartialShape((*sd[:-1], DYNAMIC))
            else:
                if len(vd) != len(sd):
                    raise op_error(f"values {values.shape} must have the rank of sorted_sequence {seq.shape} "
                                   f"(or the sequence be 1-D)", "incompatible-inputs", VALUES)
                lead = []
                for k, (a, b) in enumerate(zip(sd[:-1], vd[:-1])):
                    m = a.intersect(b)
                    if m is None:
                        raise op_error(f"values {values.shape} and sorted_sequence {seq.shape} differ in dim {k}",
                                       "incompatible-inputs", VALUES)
                    lead.append(m)
                out = PartialShape((*lead, vd[-1]))
        return Inference([TensorInfo(out, self.output_type)])

    def compute(self, plan: None, seq: np.ndarray, values: np.ndarray) -> Sequence[np.ndarray]:
        side: Literal["left", "right"] = "right" if self.right_mode else "left"
        dtype = self.output_type.dtype
        if seq.ndim == 1:
            out = np.asarray(np.searchsorted(seq, values, side=side), dtype)
        else:
            # the row count spelled out: -1 is ambiguous for a zero-size tensor
            n = math.prod(seq.shape[:-1])
            rows, vals = seq.reshape(n, seq.shape[-1]), values.reshape(n, values.shape[-1])
            out = np.empty(vals.shape, dtype)
            for r in range(rows.shape[0]):
                out[r] = np.searchsorted(rows[r], vals[r], side=side)
            out = out.reshape(values.shape)
        if values.dtype.kind == "f" or is_bf16(values.dtype):
            out = np.where(np.isnan(values.astype(np.float32)), 0, out).astype(dtype)
        return [out]
