"""BatchToSpace-2 and SpaceToBatch-2: the batch dim traded for blocks of the
spatial dims (TensorFlow's BatchToSpaceND and SpaceToBatchND), each one
reshape, transpose and copy, values moved bit for bit.

block_shape, crops/pads hold one value per data dim.  Stricter than
OpenVINO: block_shape[0] must be 1 (OpenVINO's shape inference divides the
batch by it but its kernel never reads it), every input holds rank-many
values and SpaceToBatch's pads are not negative."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ...base.shapes import DYNAMIC, Dim, PartialShape
from ..framework.base import INTEGRAL, In, Inference, Op, TensorInfo, op_error, same_as
from ..framework.helpers import const_ints
from ..framework.registry import register
from .rearrange import _exact_div

DATA, BLOCK, BEGIN, END = 0, 1, 2, 3


def _vectors(data: TensorInfo, ins: Sequence[TensorInfo], names: tuple[str, str]) -> tuple[list[int] | None, ...]:
    """The three 1-D inputs' shapes merged and checked against the data rank;
    their values where constant, checked as OpenVINO does (and stricter)."""
    n: Dim | None = Dim(0, None)
    for port, info in enumerate(ins, start=1):
        if info.shape.rank == 1:
            n = n.intersect(info.shape[0]) if n is not None else None
            if n is None:
                raise op_error(f"block_shape, {names[0]} and {names[1]} must have the same shape, got "
                               f"{ins[0].shape}, {ins[1].shape} and {ins[2].shape}", "incompatible-inputs", port)
    rank = data.shape.rank
    if rank is not None and n is not None and not n.contains(rank):
        raise op_error(f"block_shape and {names[0]}/{names[1]} hold {n} values but the data {data.shape} has rank {rank}; "
                       f"they hold one value per data dim", "incompatible-inputs", BLOCK)
    block = const_ints(ins[0], "block_shape", BLOCK)
    begin = const_ints(ins[1], names[0], BEGIN)
    end = const_ints(ins[2], names[1], END)
    if block is not None:
        if any(b < 1 for b in block):
            raise op_error(f"block_shape {block} must hold values of at least 1", "bad-value", BLOCK)
        if block and block[0] != 1:
            raise op_error(f"block_shape[0] (the batch dim's block) must be 1, got {block[0]}", "bad-value", BLOCK)
    for values, name, port in ((begin, names[0], BEGIN), (end, names[1], END)):
        if values is not None and any(v < 0 for v in values):
            raise op_error(f"{name} {values} must not be negative", "bad-value", port)
    return block, begin, end


@register
class BatchToSpace2(Op):
    type, version = "BatchToSpace", 2
    family = "movement"
    summary = "batch blocks moved into the spatial dims, then cropped"
    inputs = (In("data", rank=(2, None)), In("block_shape", INTEGRAL, rank=1, value=True),
              In("crops_begin", same_as("block_shape"), rank=1, value=True),
              In("crops_end", same_as("block_shape"), rank=1, value=True))
    moves_values = (DATA,)

    def infer(self, data: TensorInfo, block_shape: TensorInfo, begin: TensorInfo, end: TensorInfo) -> Inference:
        block, crops_begin, crops_end = _vectors(data, (block_shape, begin, end), ("crops_begin", "crops_end"))
        dims = data.shape.dims
        if dims is None:
            return Inference([TensorInfo(data.shape, data.etype)])
        out = [_exact_div(dims[0], math.prod(block), "the batch dim", data.shape) if block is not None else DYNAMIC]
        if crops_begin is None or crops_end is None:
            out += [DYNAMIC] * (len(dims) - 1)
        else:
            for i in range(1, len(dims)):
                full = dims[i] * (block[i] if block is not None else Dim(1, None))
                crop = crops_begin[i] + crops_end[i]
                if full.is_static and crop > full.value:
                    raise op_error(f"crops_begin[{i}] + crops_end[{i}] = {crop} exceed dim {i} of the data ({dims[i]}) "
                                   f"times its block", "bad-value", BEGIN)
                out.append(full - crop)
        plan = (block, crops_begin, crops_end) if block is not None and crops_begin is not None and crops_end is not None else None
        return Inference([TensorInfo(PartialShape(tuple(out)), data.etype)], plan)

    def compute(self, plan: tuple[list[int], list[int], list[int]], data: np.ndarray, *_: np.ndarray) -> Sequence[np.ndarray]:
        block, begin, end = plan
        batch, *space = data.shape
        k = len(space)
        small = batch // math.prod(block)
        x = data.reshape(*block[1:], small, *space)  # axes: B1..Bk, batch', D1..Dk
        order = [k] + [a for i in range(k) for a in (k + 1 + i, i)]
        x = np.ascontiguousarray(x.transpose(order)).reshape(small, *(d * b for d, b in zip(space, block[1:])))
        crop = (slice(None),) + tuple(slice(b, x.shape[i + 1] - e) for i, (b, e) in enumerate(zip(begin[1:], end[1:])))
        return [np.ascontiguousarray(x[crop])]


@register
class SpaceToBatch2(Op):
    type, version = "SpaceToBatch", 2
    family = "movement"
    summary = "spatial dims padded with zeros, then their blocks moved into the batch dim"
    inputs = (In("data", rank=(2, None)), In("block_shape", INTEGRAL, rank=1, value=True),
              In("pads_begin", INTEGRAL, rank=1, value=True), In("pads_end", INTEGRAL, rank=1, value=True))
    moves_values = (DATA,)

    def infer(self, data: TensorInfo, block_shape: TensorInfo, begin: TensorInfo, end: TensorInfo) -> Inference:
        block, pads_begin, pads_end = _vectors(data, (block_shape, begin, end), ("pads_begin", "pads_end"))
        dims = data.shape.dims
        if dims is None:
            return Inference([TensorInfo(data.shape, data.etype)])
        out = [dims[0] * math.prod(block) if block is not None else DYNAMIC]
        if block is None or pads_begin is None or pads_end is None:
            out += [DYNAMIC] * (len(dims) - 1)
            return Inference([TensorInfo(PartialShape(tuple(out)), data.etype)])
        for i in range(1, len(dims)):
            padded = dims[i] + (pads_begin[i] + pads_end[i])
            out.append(_exact_div(padded, block[i], f"dim {i} padded to",
                                  data.shape))
        return Inference([TensorInfo(PartialShape(tuple(out)), data.etype)], (block, pads_begin, pads_end))

    def compute(self, plan: tuple[list[int], list[int], list[int]], data: np.ndarray, *_: np.ndarray) -> Sequence[np.ndarray]:
        block, begin, end = plan
        padded = np.pad(data, list(zip(begin, end))) if any(begin) or any(end) else data
        batch, *space = padded.shape
        k = len(space)
        x = padded.reshape(batch, *[v for d, b in zip(space, block[1:]) for v in (d // b, b)])  # batch, D1', B1, ...
        order = [2 + 2 * i for i in range(k)] + [0] + [1 + 2 * i for i in range(k)]
        out = np.ascontiguousarray(x.transpose(order))
        return [out.reshape(batch * math.prod(block), *(d // b for d, b in zip(space, block[1:])))]
