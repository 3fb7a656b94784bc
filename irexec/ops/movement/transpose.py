"""Transpose-1: axes permuted."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base.shapes import PartialShape
from ...kernels.blocks import SMALL_COPY_BYTES, copy_parallel
from ..framework.base import INTEGRAL, In, Inference, Op, TensorInfo, op_error
from ..framework.helpers import const_ints
from ..framework.registry import register

DATA, ORDER = 0, 1


@register
class Transpose1(Op):
    type, version = "Transpose", 1
    family = "movement"
    summary = "dims permuted by order (empty order: reversed)"
    inputs = (In("data"), In("order", INTEGRAL, rank=1, value=True))
    moves_values = (DATA,)

    def infer(self, data: TensorInfo, order: TensorInfo) -> Inference:
        values = const_ints(order, "order", ORDER)
        rank = data.shape.rank
        if values is None:
            n = order.shape[0] if order.shape.rank == 1 else None
            if rank is None and n is not None and n.is_static and n.value > 0:
                rank = n.value
            return Inference([TensorInfo(PartialShape.dynamic(rank), data.etype)])
        if rank is None:
            return Inference([TensorInfo(PartialShape.dynamic(len(values) or None), data.etype)])
        perm = list(range(rank - 1, -1, -1)) if not values else values
        if sorted(perm) != list(range(rank)):
            raise op_error(f"order {values} is not a permutation of the {rank} axes of data {data.shape}",
                           "bad-value", ORDER)
        dims = data.shape.dims
        assert dims is not None
        return Inference([TensorInfo(PartialShape(tuple(dims[a] for a in perm)), data.etype)], tuple(perm))

    def compute(self, plan: tuple[int, ...], data: np.ndarray, order: np.ndarray) -> Sequence[np.ndarray]:
        if type(data) is np.ndarray and data.nbytes <= SMALL_COPY_BYTES:  # copy_parallel's copy, in one call (C order)
            return [data.transpose(plan).copy()]
        out = np.empty(tuple(data.shape[a] for a in plan), data.dtype)
        copy_parallel(out, data.transpose(plan))
        return [out]
