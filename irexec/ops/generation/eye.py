"""Eye-9: a batch of matrices with ones on one diagonal.

Rows, columns and batch dims come from input values; what is known of them
(constant values, or bounds of values computed from shapes) gives the dims.
A diagonal wholly outside the matrix gives zeros, as the spec says.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base.shapes import DYNAMIC, Dim, PartialShape
from ..framework.accuracy import EXACT
from ..framework.base import INDEX, Attr, In, Inference, Op, TensorInfo, op_error
from ..framework.helpers import const_int, value_dims
from ..framework.registry import register

ROWS, COLS, DIAG, BATCH = 0, 1, 2, 3


def _count(info: TensorInfo, what: str, port: int) -> Dim:
    dims = value_dims(info)
    if not dims:
        return DYNAMIC
    d = dims[0]
    if isinstance(d, int):
        if d < 0:
            raise op_error(f"{what} must not be negative, got {d}", "bad-value", port)
        return Dim(d, d)
    return d


@register
class Eye9(Op):
    type, version = "Eye", 9
    accuracy = EXACT
    family = "generation"
    summary = "matrices [*batch_shape, num_rows, num_columns] with ones on the diagonal_index-th diagonal"
    inputs = (In("num_rows", INDEX, rank=(0, 1), elements=1, value=True),
              In("num_columns", INDEX, rank=(0, 1), elements=1, value=True),
              In("diagonal_index", INDEX, rank=(0, 1), elements=1, value=True),
              In("batch_shape", INDEX, rank=1, optional=True, value=True))
    attributes = {"output_type": Attr("etype", required=True, doc="element type of the output")}

    def infer(self, rows: TensorInfo, cols: TensorInfo, diag: TensorInfo, batch: TensorInfo | None = None) -> Inference:
        r, c = _count(rows, "num_rows", ROWS), _count(cols, "num_columns", COLS)
        k = const_int(diag, "diagonal_index", DIAG)
        lead: tuple[Dim, ...] = ()
        if batch is not None:
            n = batch.shape[0] if batch.shape.rank == 1 else None
            if n is None or not n.is_static:
                return Inference([TensorInfo(PartialShape(None), self.output_type)])
            dims = value_dims(batch)
            if dims is None:
                lead = (DYNAMIC,) * n.value
            else:
                for i, d in enumerate(dims):
                    if isinstance(d, int) and d < 0:
                        raise op_error(f"batch_shape[{i}] must not be negative, got {d}", "bad-value", BATCH)
                lead = tuple(Dim(d, d) if isinstance(d, int) else d for d in dims)
        shape = PartialShape((*lead, r, c))
        plan = (shape.to_tuple(), k) if shape.is_static and k is not None else None
        return Inference([TensorInfo(shape, self.output_type)], plan)

    def compute(self, plan: tuple[tuple[int, ...], int], *inputs: np.ndarray) -> Sequence[np.ndarray]:
        shape, k = plan
        rows, cols = shape[-2:]
        matrix = np.eye(rows, cols, k, dtype=self.output_type.dtype) if -rows < k < cols else np.zeros((rows, cols), self.output_type.dtype)
        return [np.ascontiguousarray(np.broadcast_to(matrix, shape))]
