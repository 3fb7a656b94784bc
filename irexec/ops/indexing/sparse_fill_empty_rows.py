"""SparseFillEmptyRows-16: a 2-D sparse tensor (values at indices [row, col],
dense_shape [rows, cols]) with every row that holds no value given one, the
default_value at column 0.  The entries come out sorted by (row, col) (a
stable sort: equal positions keep their order), and a boolean per row says
which rows were filled."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base import dtypes
from ...base.shapes import DYNAMIC, Dim, PartialShape
from ..framework.base import INDEX, In, Inference, Op, TensorInfo, op_error, same_as
from ..framework.helpers import const_ints
from ..framework.registry import register

VALUES, DENSE_SHAPE, INDICES, DEFAULT = range(4)


@register
class SparseFillEmptyRows16(Op):
    type, version, family = "SparseFillEmptyRows", 16, "indexing"
    summary = "a 2-D sparse tensor with each empty row given default_value at column 0"
    inputs = (In("values", rank=1), In("dense_shape", INDEX, rank=1, value=True),
              In("indices", same_as("dense_shape"), rank=2, value=True), In("default_value", rank=0))
    outputs = 3

    def infer(self, values: TensorInfo, dense_shape: TensorInfo, indices: TensorInfo, default: TensorInfo) -> Inference:
        ds = dense_shape.shape.dims
        if ds is not None and not ds[0].contains(2):
            raise op_error(f"dense_shape must hold 2 values (rows, cols), got shape {dense_shape.shape}",
                           "bad-input-rank", DENSE_SHAPE)
        idx = indices.shape.dims
        n = values.shape.dims[0] if values.shape.dims is not None else DYNAMIC
        if idx is not None and (not idx[1].contains(2) or not idx[0].compatible(n)):
            raise op_error(f"indices {indices.shape} must be [N, 2] with N the {n} values", "incompatible-inputs", INDICES)
        shape = const_ints(dense_shape, "dense_shape", DENSE_SHAPE)
        rows: Dim = Dim.of(shape[0]) if shape is not None else DYNAMIC
        if shape is not None and min(shape) < 0:
            raise op_error(f"dense_shape {shape} must not be negative", "bad-value", DENSE_SHAPE)
        total: Dim = DYNAMIC
        pos = indices.value() if indices.is_constant else None
        if pos is not None and shape is not None:
            pos = np.asarray(pos, np.int64).reshape(-1, 2)
            bad = (pos[:, 0] < 0) | (pos[:, 0] >= shape[0]) | (pos[:, 1] < 0) | (pos[:, 1] >= shape[1])
            if bad.any():
                raise op_error(f"index {pos[bad][0].tolist()} is outside dense_shape {shape}", "bad-value", INDICES)
            # rows with no value, counted from the indices alone: inference allocates nothing
            # dense_shape sizes (the filled-rows mask is an output, made and charged by the run)
            added = shape[0] - len(np.unique(pos[:, 0]))
            # as OpenVINO: the indices count from indices, the values count from values, each plus the rows added
            total, total_values = Dim.of(len(pos) + added), n + added
        else:
            total_values = DYNAMIC
        idx_type = indices.etype if indices.known_type else dense_shape.etype
        return Inference([TensorInfo(PartialShape((total, Dim.of(2))), idx_type),
                          TensorInfo(PartialShape((total_values,)), values.etype),
                          TensorInfo(PartialShape((rows,)), dtypes.get("boolean"))])

    def compute(self, plan: None, values: np.ndarray, dense_shape: np.ndarray, indices: np.ndarray,
                default: np.ndarray) -> Sequence[np.ndarray]:
        filled = np.ones(int(dense_shape.reshape(-1)[0]), bool)  # the third output, charged with the others
        filled[indices.reshape(-1, 2)[:, 0]] = False
        empty = np.flatnonzero(filled)
        pos = np.concatenate([indices.reshape(-1, 2), np.stack([empty, np.zeros_like(empty)], 1).astype(indices.dtype)])
        vals = np.concatenate([values, np.full(len(empty), default, values.dtype)])
        order = np.lexsort((pos[:, 1], pos[:, 0]))  # stable: by row, then column
        return [np.ascontiguousarray(pos[order]), vals[order], filled]
