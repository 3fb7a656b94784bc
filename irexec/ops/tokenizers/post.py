"""Truncate, CombineSegments and RaggedToDense (openvino_tokenizers): what follows
tokenization, on ragged tensors of token ids."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ...base import limits
from ...base.shapes import Dim, PartialShape
from ..framework.base import ANY, Attr, In, Inference, Op, TensorInfo, require
from ..framework.registry import register
from .ragged import ET_BOOL, EXTENSION, I32, bounded, flat_rank, pattern_input, ragged_out


@register
class Truncate(Op):
    type, version = "Truncate", 1
    family = "tokenizers"
    extension = EXTENSION
    summary = "cut ragged rows (one or a pair) to max_length tokens from the right or the left"
    inputs = (In("begins", I32), In("ends", I32), In("data"), In("max_length_or_begins", ANY), In("x4", ANY),
              In("x5", ANY), In("x6", ANY, optional=True), In("x7", ANY, optional=True), In("x8", ANY, optional=True))
    attributes = {"m_num_inputs": Attr("int", 1, doc="1 or 2 ragged inputs (set from the inputs)")}

    @staticmethod
    def _pairs(infos: Sequence[TensorInfo]) -> int:
        for k in (1, 2):
            at = 3 * k
            # the extension reads this input's rank to tell max_length from a second ragged input
            require(at >= len(infos) or infos[at].shape.rank is not None, "bad-input-rank",
                    "the rank of this input must be known (it tells max_length from a second ragged input)", at)
            if at < len(infos) and infos[at].etype.name == "i32" and infos[at].shape.rank == 0:
                return k
        require(False, "bad-input-type", "Truncate expects a scalar i32 max_length after one or two ragged inputs")
        return 0

    def num_outputs(self, n_inputs: int) -> int:
        return 6 if n_inputs >= 8 else 3  # a pair: two ragged inputs, max_length, side and perhaps mode

    def infer(self, *infos: TensorInfo) -> Inference:
        k = self._pairs(infos)
        require(len(infos) in (3 * k + 2, 3 * k + 3), "wrong-port-count",
                f"Truncate of {k} ragged input(s) takes {3 * k + 2} or {3 * k + 3} inputs, got {len(infos)}")
        for i in range(k):
            for j in (0, 1):
                require(infos[3 * i + j].etype.name == "i32", "bad-input-type", "ragged offsets are i32", 3 * i + j)
            flat_rank(infos[3 * i + 2], 3 * i + 2)
        pattern_input(infos[3 * k + 1], 3 * k + 1)
        if len(infos) > 3 * k + 2:
            pattern_input(infos[-1], len(infos) - 1)
        outs: list[TensorInfo] = []
        for i in range(k):
            outs += ragged_out(infos[3 * i].shape, infos[3 * i + 2].etype)
        return Inference(outs, k)

    def compute(self, plan: int, *args: np.ndarray) -> Sequence[np.ndarray]:
        k = plan
        max_length = int(args[3 * k].reshape(-1)[0])
        side = args[-2].tobytes().decode("utf-8", "replace")
        mode = args[-1].tobytes().decode("utf-8", "replace")
        require(side in ("left", "right"), "bad-value", f"unknown truncation side {side!r}", len(args) - 2)
        if len(args) > 3 * k + 2:
            require(mode in ("only_first", "only_second", "longest_first"), "bad-value", f"unknown truncation mode {mode!r}",
                    len(args) - 1)
        b = [args[3 * i].astype(np.int64).reshape(-1) for i in range(k)]
        e = [args[3 * i + 1].astype(np.int64).reshape(-1) for i in range(k)]
        if k == 1:
            length = np.minimum(e[0] - b[0], max_length)
            if side == "right":
                e[0] = b[0] + length
            else:
                b[0] = e[0] - length
        else:
            require(b[0].size == b[1].size, "bad-value", "the two ragged inputs have different batch sizes", 3)
            for i in range(b[0].size):
                _pair(b, e, i, max_length, side, mode)
        outs: list[np.ndarray] = []
        for i in range(k):
            shape = args[3 * i].shape
            outs += [b[i].astype(np.int32).reshape(shape), e[i].astype(np.int32).reshape(shape), args[3 * i + 2]]
        return outs


def _pair(b: list[np.ndarray], e: list[np.ndarray], i: int, max_length: int, side: str, mode: str) -> None:
    first, second = int(e[0][i] - b[0][i]), int(e[1][i] - b[1][i])
    if first + second <= max_length:
        return
    half, odd = max_length // 2, max_length % 2
    rem1, rem2 = odd * (first >= second), odd * (first < second)
    right = side == "right"

    def cut(k: int, keep: int) -> None:
        if right:
            e[k][i] = b[k][i] + keep
        else:
            b[k][i] = e[k][i] - keep

    if mode == "only_first":
        if first > max_length:
            cut(0, max_length)
    elif mode == "only_second":
        if second > max_length:
            cut(1, max_length)
    elif first >= half + odd and second <= half:
        cut(0, max_length - second)
    elif first < half + odd and second > half:
        cut(1, max_length - first)
    else:
        cut(0, half + rem1)
        cut(1, half + rem2)


@register
class CombineSegments(Op):
    type, version = "CombineSegments", 1
    family = "tokenizers"
    extension = EXTENSION
    summary = "concatenate ragged segments row by row (a one-row segment is repeated), with each element's segment id"
    inputs = (In("begins", I32), In("ends", I32), In("data"), In("more", ANY, variadic=True))
    outputs = 6

    def infer(self, *infos: TensorInfo) -> Inference:
        require((len(infos) - 1) % 3 == 0, "wrong-port-count", f"CombineSegments takes 3 inputs per segment and the ids, "
                f"got {len(infos)}")
        shape: PartialShape | None = PartialShape(None)
        for i in range((len(infos) - 1) // 3):
            for j in (0, 1):
                require(infos[3 * i + j].etype.name == "i32", "bad-input-type", "ragged offsets are i32", 3 * i + j)
            flat_rank(infos[3 * i + 2], 3 * i + 2)
            # the extension declares its output i32 (the offsets' type) and copies the elements' bytes into it
            require(infos[3 * i + 2].etype.name == "i32", "bad-input-type",
                    lambda i=i: f"segment elements are i32 (the output's type), got {infos[3 * i + 2].etype}", 3 * i + 2)
            rank = infos[3 * i].shape.rank
            if rank:
                shape = shape.intersect(infos[3 * i].shape) if shape is not None else None
                require(shape is not None, "shape-mismatch", "the segments' batch shapes differ", 3 * i)
        assert shape is not None
        return Inference(ragged_out(shape, infos[2].etype) + ragged_out(shape, infos[-1].etype))

    def compute(self, plan: None, *args: np.ndarray) -> Sequence[np.ndarray]:
        count = (len(args) - 1) // 3
        ids = args[-1].reshape(-1)
        require(ids.size == count, "bad-value", f"{ids.size} segment ids for {count} segments", len(args) - 1)
        sizes = [args[3 * i].size for i in range(count)]
        batch = max(sizes) if sizes else 0
        shape = next((args[3 * i].shape for i in reversed(range(count)) if args[3 * i].ndim > 0), ())
        for i in range(count):
            bounded(args[3 * i], args[3 * i + 1], args[3 * i + 2].size, 3 * i, "row")
            require(sizes[i] in (1, batch), "bad-value", f"segment {i} has {sizes[i]} rows, the batch {batch}", 3 * i)
        elems: list[np.ndarray] = []
        seg: list[np.ndarray] = []
        begins, ends = [], []
        offset = 0
        # a one-row segment repeats in every row of the batch: the joined elements and their
        # segment ids are charged as the rows add up (each held twice: the parts and the join)
        meter = limits.Meter("CombineSegments' joined rows", copies=2)
        each = args[2].itemsize + ids.itemsize
        for r in range(batch):
            begins.append(offset)
            for i in range(count):
                at = 0 if sizes[i] == 1 else r
                lo, hi = int(args[3 * i].reshape(-1)[at]), int(args[3 * i + 1].reshape(-1)[at])
                part = args[3 * i + 2][lo:hi]
                meter.grow(len(part) * each)
                elems.append(part)
                seg.append(np.full(len(part), ids[i], dtype=ids.dtype))
                offset += len(part)
            ends.append(offset)
        data = np.concatenate(elems) if elems else np.zeros(0, args[2].dtype)
        segs = np.concatenate(seg) if seg else np.zeros(0, ids.dtype)
        b = np.asarray(begins, np.int32).reshape(shape if int(np.prod(shape)) == batch else (batch,))
        e = np.asarray(ends, np.int32).reshape(b.shape)
        return [b, e, data.astype(args[2].dtype), b.copy(), e.copy(), segs]


@register
class RaggedToDense(Op):
    type, version = "RaggedToDense", 1
    family = "tokenizers"
    extension = EXTENSION
    summary = "ragged rows to a padded dense tensor and its mask, cut or padded to the given length"
    inputs = (In("begins", I32), In("ends", I32), In("data"), In("length", ("i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64")),
              In("pad_value"), In("pad_right", optional=True))
    outputs = 2
    attributes = {"pad_right": Attr("bool", True), "m_pad_max_length": Attr("bool", False, doc="always pad to the length")}

    def infer(self, begins: TensorInfo, ends: TensorInfo, data: TensorInfo, length: TensorInfo, pad: TensorInfo,
              pad_right: TensorInfo | None = None) -> Inference:
        require(data.shape.rank is None or data.shape.rank >= 1, "bad-input-rank", "the elements need rank 1 or more", 2)
        require(length.shape.rank in (None, 0) or length.shape.rank == 1 and length.shape[0].contains(1), "bad-input-rank",
                "the length is a scalar or a one-element 1-D tensor", 3)
        require(pad.etype == data.etype, "bad-input-type", f"the pad value is {pad.etype}, the data {data.etype}", 4)
        require(pad.shape.rank in (None, 0), "bad-input-rank", "the pad value is a scalar", 4)
        if begins.shape.rank is None or data.shape.rank is None:
            return Inference([TensorInfo(PartialShape(None), data.etype), TensorInfo(PartialShape(None), ET_BOOL)])
        value = length.value() if length.is_constant else None
        dim = Dim.of(int(value.reshape(-1)[0])) if value is not None and value.size else Dim(0, None)
        assert begins.shape.dims is not None and data.shape.dims is not None
        shape = PartialShape((*begins.shape.dims, dim, *data.shape.dims[1:]))
        return Inference([TensorInfo(shape, data.etype), TensorInfo(shape, ET_BOOL)])

    def compute(self, plan: None, begins: np.ndarray, ends: np.ndarray, data: np.ndarray, length: np.ndarray,
                pad: np.ndarray, pad_right: np.ndarray | None = None) -> Sequence[np.ndarray]:
        target = int(np.asarray(length).reshape(-1)[0].astype(np.int32))
        require(target >= 0, "bad-value", f"the length {target} is negative", 3)
        right = bool(pad_right.reshape(-1)[0]) if pad_right is not None else self.pad_right
        bounded(begins, ends, data.shape[0], 0, "row")
        b, e = begins.reshape(-1).tolist(), ends.reshape(-1).tolist()
        inner = data.shape[1:]
        # the length is data: the dense output and its mask are charged before they are made
        limits.require(len(b) * target * math.prod(inner) * (data.itemsize + 1), f"RaggedToDense's output of length {target}")
        out = np.empty((len(b), target, *inner), dtype=data.dtype)
        out[...] = pad
        mask = np.zeros((len(b), target, *inner), dtype=bool)
        for r, (lo, hi) in enumerate(zip(b, e)):
            keep = target if self.m_pad_max_length else min(hi - lo, target)
            rows = data[lo:lo + keep]
            if right:
                out[r, :len(rows)] = rows
                mask[r, :keep] = True
            else:
                out[r, target - keep:target - keep + len(rows)] = rows
                mask[r, target - keep:] = True
        shape = (*begins.shape, target, *inner)
        return [out.reshape(shape), mask.reshape(shape)]
