"""GatherND-5 and GatherND-8: slices of data picked by index tuples, with leading batch dims shared."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ...base.shapes import Dim, PartialShape
from ..framework.base import INTEGRAL, Attr, In, Inference, Op, TensorInfo, op_error
from ..framework.registry import register
from .scatter import DATA, INDICES, _merge, _wrap


class _GatherND(Op):
    family = "movement"
    inputs = (In("data", rank=(1, None)), In("indices", INTEGRAL, rank=(1, None)))
    attributes = {"batch_dims": Attr("uint", 0, doc="leading dims shared by data and indices")}
    moves_values = (DATA,)
    flatten_batch = False

    def infer(self, data: TensorInfo, indices: TensorInfo) -> Inference:
        b = self.batch_dims
        d, i = data.shape.dims, indices.shape.dims
        if d is not None and b >= len(d) or i is not None and b >= len(i):
            raise op_error(f"batch_dims {b} must be below the ranks of data {data.shape} and indices {indices.shape}",
                           "bad-attribute", INDICES)
        if i is None or not i[-1].is_static or d is None:
            if d is not None and i is not None and i[-1].lo > len(d) - b:
                raise op_error(f"indices {indices.shape} index {i[-1]} dims but data {data.shape} has only {len(d) - b} "
                               f"after {b} batch dims", "incompatible-inputs", INDICES)
            return Inference([TensorInfo(PartialShape(None), data.etype)])
        k = i[-1].value
        if k > len(d) - b:
            raise op_error(f"indices {indices.shape} index {k} dims but data {data.shape} has only {len(d) - b} "
                           f"after {b} batch dims", "incompatible-inputs", INDICES)
        batch = [_merge(x, y, f"data {data.shape} and indices {indices.shape} differ in their {b} batch dims", INDICES)
                 for x, y in zip(d[:b], i[:b])]
        if self.flatten_batch and b:
            lead: list[Dim] = [math.prod(batch[1:], start=batch[0])]
        else:
            lead = batch
        out = PartialShape(tuple(lead) + tuple(i[b:-1]) + tuple(d[b + k:]))
        return Inference([TensorInfo(out, data.etype)], (b, k, out.to_tuple() if out.is_static else None))

    def compute(self, plan: tuple[int, int, tuple[int, ...]], data: np.ndarray, indices: np.ndarray) -> Sequence[np.ndarray]:
        b, k, out_shape = plan
        nb = math.prod(data.shape[:b])
        dims = np.array(data.shape[b:b + k], np.int64)
        tuples = math.prod(indices.shape[b:-1])  # (not -1: with k = 0 the indices hold no element)
        idx = _wrap(indices.reshape(nb, tuples, k), dims, "index", INDICES)
        # one linear position per tuple, over the batch and the k indexed dims
        strides = np.array([math.prod(data.shape[b + j + 1:b + k]) for j in range(k)], np.int64)
        lin = (idx * strides).sum(-1) + np.arange(nb, dtype=np.int64)[:, None] * math.prod(data.shape[b:b + k])
        rows = data.reshape((nb * math.prod(data.shape[b:b + k]), math.prod(data.shape[b + k:])))
        return [np.take(rows, lin.reshape(-1), axis=0).reshape(out_shape)]


@register
class GatherND5(_GatherND):
    type, version = "GatherND", 5
    summary = "slices of data at index tuples (the batch dims flattened into one)"
    flatten_batch = True


@register
class GatherND8(_GatherND):
    type, version = "GatherND", 8
    summary = "slices of data at index tuples (the batch dims kept)"
