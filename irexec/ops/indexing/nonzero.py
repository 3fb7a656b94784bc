"""NonZero-3: the indices of the non-zero elements, one row per data axis,
in row-major order.  The output's second dim is the count of non-zero
elements, known only at run time: inference gives ``[rank, 0..elements]``
as OpenVINO does.  NaN and -0.0 follow IEEE comparison with zero: NaN is
non-zero, -0.0 is zero.  A scalar is treated as a one-element 1-D tensor
(output ``[1, 0 or 1]``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base import limits
from ...base.shapes import DYNAMIC, Dim, PartialShape
from ..framework.base import In, IndexType, Inference, Op, TensorInfo
from ..framework.registry import register


@register
class NonZero3(Op):
    type, version = "NonZero", 3
    family = "indexing"
    summary = "indices of the non-zero elements, [rank, count]"
    inputs = (In("data"),)
    attributes = {"output_type": IndexType(doc="element type of the indices")}

    def infer(self, data: TensorInfo) -> Inference:
        etype = self.output_type
        shape = data.shape
        if shape.dims is None:
            out = PartialShape((DYNAMIC, DYNAMIC))
        elif shape.rank == 0:
            out = PartialShape((Dim(1, 1), Dim(0, 1)))  # OpenVINO infers [?,?]: this is narrower and true
        else:
            most = shape.max_elements()
            out = PartialShape((Dim(len(shape.dims), len(shape.dims)), Dim(0, most)))
        return Inference([TensorInfo(out, etype)])

    def compute(self, plan: None, data: np.ndarray) -> Sequence[np.ndarray]:
        flat = data.reshape(-1) if data.ndim == 0 else data
        mask = flat != 0 if flat.dtype.kind != "V" else flat.astype(np.float32) != 0
        dtype = self.output_type.dtype
        count = int(np.count_nonzero(mask))
        # the output's size is the data's to decide: counted, then held to the
        # memory limit with the flat positions it is built from, then made
        limits.require(count * (mask.ndim * dtype.itemsize + 16), f"NonZero's output of {count} indices per axis")
        out = np.empty((mask.ndim, count), dtype)
        rest = np.flatnonzero(mask)
        for axis in range(mask.ndim - 1, 0, -1):  # row-major: the last axis varies fastest
            out[axis] = rest % mask.shape[axis]
            rest //= mask.shape[axis]
        if mask.ndim:
            out[0] = rest
        return [out]
