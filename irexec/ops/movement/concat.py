"""Concat-1: inputs joined along one axis."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...base.shapes import Dim, PartialShape
from ...kernels.blocks import copy_parallel
from ...system import parallel
from ..framework.base import Attr, In, Inference, Op, TensorInfo, normalize_axis, op_error, same_as
from ..framework.registry import register


@register
class Concat1(Op):
    type, version = "Concat", 1
    family = "movement"
    summary = "inputs joined along axis (negative counts from the end)"
    inputs = (In("inputs", same_as("inputs"), rank=(1, None), variadic=True),)
    attributes = {"axis": Attr("int", required=True, doc="in [-rank, rank-1]")}
    moves_values = True

    def infer(self, *inputs: TensorInfo) -> Inference:
        etype = next((i.etype for i in inputs if i.known_type), inputs[0].etype)  # one type: declared (same_as)
        ranked = [i for i in inputs if i.shape.rank is not None]
        if not ranked:
            return Inference([TensorInfo(PartialShape(None), etype)])
        rank = ranked[0].shape.rank
        assert rank is not None
        axis = normalize_axis(self.axis, rank, "axis", "axis-out-of-range")
        dims: list[Dim] = [Dim(0, None)] * rank
        total = Dim(0, 0)
        for k, info in enumerate(inputs):
            shape = info.shape
            if shape.dims is None:
                total = total + Dim(0, None)  # adds an unknown length: the lower bound stays
                continue
            if len(shape.dims) != rank:
                raise op_error(f"input {k} has rank {len(shape.dims)} but input 0 has rank {rank}", "incompatible-inputs", k)
            for a, d in enumerate(shape.dims):
                if a == axis:
                    total = total + d
                    continue
                merged = dims[a].intersect(d)
                if merged is None:
                    raise op_error(f"input {k} {shape} does not match the others in dim {a} (outside axis {axis}): "
                                   f"{d} against {dims[a]}", "incompatible-inputs", k)
                dims[a] = merged
        dims[axis] = total
        return Inference([TensorInfo(PartialShape(tuple(dims)), etype)], axis)

    def compute(self, plan: Any, *inputs: np.ndarray) -> Sequence[np.ndarray]:
        axis = plan
        shape = list(inputs[0].shape)
        shape[axis] = sum(x.shape[axis] for x in inputs)
        out = np.empty(shape, inputs[0].dtype)
        if out.nbytes < parallel.MIN_PARALLEL_BYTES:
            np.concatenate(inputs, axis=axis, out=out)  # small: one C loop beats a call per input
            return [out]
        lead = (slice(None),) * axis
        start = 0
        for x in inputs:  # each input into its slab of the output, cut over the thread pool
            stop = start + x.shape[axis]
            copy_parallel(out[lead + (slice(start, stop),)], x)
            start = stop
        return [out]
