"""ReverseSequence-1: reverse the first seq_lengths[b] elements along
seq_axis of every slice b along batch_axis.

As OpenVINO does: float lengths are truncated toward zero, a length of 0
reverses nothing (like 1), and a negative seq_axis needs a static data rank.
Stricter than OpenVINO: a length below 0 or above the dim is a run-time
error, and batch_axis naming the same axis as seq_axis is an error.

The kernel writes every output element once.  Usually consecutive batches
with the same length are one block whose reversed prefix is a negative-stride
copy; when the dims after both axes are too few for block copies to pay, an
np.take gathers whole lines instead.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import pairwise

import numpy as np

from ...base.shapes import PartialShape, format_dims
from ...kernels.blocks import copy_runs
from ..framework.base import NUMERIC, Attr, In, Inference, Op, TensorInfo, normalize_axis, op_error
from ..framework.registry import register

DATA, SEQ_LENGTHS = 0, 1
# Block copies move lines of the dims after both axes; below this many bytes
# per line a gather with np.take is faster.
_MIN_LINE_BYTES = 256
# Plane positions gathered per np.take: the index of one chunk stays in cache.
_PLANE_CHUNK = 1 << 16
# From this many runs of consecutive batches with one length on, batches are
# grouped by length with index arrays instead of being copied run by run.
_MAX_RUNS = 256


@register
class ReverseSequence1(Op):
    type, version = "ReverseSequence", 1
    family = "movement"
    summary = "reverse the first seq_lengths[b] elements along seq_axis of each batch b"
    inputs = (In("data", rank=(2, None)), In("seq_lengths", NUMERIC, rank=1, value=True))
    attributes = {
        "batch_axis": Attr("int", 0, doc="axis of the batches, in [-rank, rank-1]"),
        "seq_axis": Attr("int", 1, doc="axis reversed, in [-rank, rank-1]; not the batch axis"),
    }
    moves_values = (DATA,)

    def _axes(self, rank: int) -> tuple[int, int]:
        """batch_axis and seq_axis made non-negative, checked against each other."""
        batch = normalize_axis(self.batch_axis, rank, "batch_axis", "axis-out-of-range")
        seq = normalize_axis(self.seq_axis, rank, "seq_axis", "axis-out-of-range")
        if batch == seq:
            raise op_error(f"batch_axis {self.batch_axis} and seq_axis {self.seq_axis} name the same axis {batch} "
                           f"of the rank-{rank} data; they must differ", "bad-attribute")
        return batch, seq

    def infer(self, data: TensorInfo, seq_lengths: TensorInfo) -> Inference:
        rank, seq_rank = data.shape.rank, seq_lengths.shape.rank
        if rank is None:
            if self.seq_axis < 0:
                raise op_error(f"seq_axis {self.seq_axis} is negative, which needs a static data rank to "
                               f"normalise, but the data rank is dynamic", "bad-attribute")
            if self.batch_axis == self.seq_axis:
                raise op_error(f"batch_axis {self.batch_axis} and seq_axis {self.seq_axis} name the same axis; "
                               f"they must differ", "bad-attribute")
            return Inference([TensorInfo(data.shape, data.etype)])
        batch, seq = self._axes(rank)
        dims = list(data.shape.dims or ())
        if seq_rank == 1:
            merged = dims[batch].intersect(seq_lengths.shape[0])
            if merged is None:
                raise _length_error(seq_lengths.shape[0], dims[batch], batch, data.shape, seq_lengths.shape)
            dims[batch] = merged
        out = [TensorInfo(PartialShape(tuple(dims)), data.etype)]
        values = seq_lengths.value()
        if values is None or not dims[seq].is_static:
            return Inference(out)
        lengths = _lengths(np.asarray(values), seq_lengths.etype.is_real, dims[seq].value, seq)
        return Inference(out, (batch, seq, lengths))

    def compute(self, plan: tuple[int, int, np.ndarray], data: np.ndarray, seq_lengths: np.ndarray) -> Sequence[np.ndarray]:
        batch, seq, lengths = plan
        out = np.empty(data.shape, data.dtype)
        if out.size == 0:
            return [out]
        if data.itemsize * math.prod(data.shape[max(batch, seq) + 1 :]) < _MIN_LINE_BYTES:
            _reverse_plane(out, data, lengths, batch, seq)
            return [out]
        runs = _runs(lengths)
        # batch first, sequence second: out_v[b, s, ...] is out's element (b, s) along those axes
        order = (batch, seq, *(a for a in range(data.ndim) if a not in (batch, seq)))
        out_v, data_v = out.transpose(order), data.transpose(order)
        if runs is not None:
            for start, stop in runs:
                _reverse_block(out_v[start:stop], data_v[start:stop], int(lengths[start]))
        else:
            _reverse_grouped(out_v, data_v, lengths)
        return [out]


def _length_error(seq: object, dim: object, batch: int, data_shape: object, seq_shape: object) -> Exception:
    return op_error(f"seq_lengths has {seq} elements but the batch axis (axis {batch}) of the data has {dim} "
                    f"(data shape {format_dims(data_shape)}, seq_lengths shape {format_dims(seq_shape)})",  # type: ignore[arg-type]
                    "incompatible-inputs", SEQ_LENGTHS)


def _lengths(seq_lengths: np.ndarray, is_real: bool, dim: int, seq_axis: int) -> np.ndarray:
    """Lengths as int64 in [1, dim] (0 means 1), floats truncated toward
    zero; a value outside [0, dim] is an error naming the batch index."""
    if is_real:
        values = np.trunc(seq_lengths.astype(np.float64))
        bad = ~((values >= 0) & (values <= dim))  # NaN is bad too
    else:
        values = seq_lengths
        bad = (values < 0) | (values > dim) if values.dtype.kind == "i" else values > dim
    if bad.any():
        b = int(np.flatnonzero(bad)[0])
        raise op_error(f"seq_lengths[{b}] = {seq_lengths.reshape(-1)[b].item()} is outside [0, {dim}], the size of seq_axis "
                       f"{seq_axis} (0 reverses nothing, like 1)", "bad-value", SEQ_LENGTHS)
    return np.maximum(values.astype(np.int64), 1)


def _runs(lengths: np.ndarray) -> list[tuple[int, int]] | None:
    """[start, stop) of each run of consecutive batches with one length, or
    None when there are too many runs to copy one by one."""
    starts = np.flatnonzero(np.diff(lengths)) + 1
    if len(starts) >= _MAX_RUNS:
        return None
    return list(pairwise([0, *starts.tolist(), len(lengths)]))


def _reverse_grouped(out: np.ndarray, data: np.ndarray, lengths: np.ndarray) -> None:
    """out[b, :L] = data[b, L-1::-1] and out[b, L:] = data[b, L:] for all
    batches b of each length L at once, for views whose axis 0 is the batch
    and axis 1 the sequence."""
    for length in np.unique(lengths).tolist():
        rows = np.flatnonzero(lengths == length)
        out[rows, :length] = data[rows, length - 1 :: -1]
        out[rows, length:] = data[rows, length:]


def _reverse_plane(out: np.ndarray, data: np.ndarray, lengths: np.ndarray, batch: int, seq: int) -> None:
    """np.take over the plane of axes from the first to the last of batch and
    seq (the dims after both are one line): every output line in the plane
    reads one input line.  The index is built chunk by chunk along the
    plane's first axis, so it stays small."""
    lo, hi = min(batch, seq), max(batch, seq)
    plane = data.shape[lo : hi + 1]
    size, per_row = math.prod(plane), math.prod(plane[1:])
    outer, inner = math.prod(data.shape[:lo]), math.prod(data.shape[hi + 1 :])
    src, dst = data.reshape(outer, size, inner), out.reshape(outer, size, inner)
    seq_stride = math.prod(plane[seq - lo + 1 :])  # plane positions between neighbours along seq
    step = max(1, _PLANE_CHUNK // max(per_row, 1))
    for start in range(0, plane[0], step):
        stop = min(plane[0], start + step)
        shape = (stop - start, *plane[1:])
        index = np.indices(shape, sparse=True)
        b, s = index[batch - lo], index[seq - lo]
        if lo == batch:
            b = b + start
        else:
            s = s + start
        length = lengths[b]
        # output position s reads L-1-s below the length, itself above it
        moved = np.where(s < length, (length - 1 - 2 * s) * seq_stride, 0)
        flat = (np.arange(start * per_row, stop * per_row).reshape(shape) + moved).reshape(-1)
        part = dst[:, start * per_row : stop * per_row]
        if outer == 1:  # a contiguous slice: np.take writes it directly
            np.take(src, flat, axis=1, out=part, mode="clip")
        else:
            part[...] = np.take(src, flat, axis=1, mode="clip")


def _reverse_block(out: np.ndarray, data: np.ndarray, length: int) -> None:
    """out[:, :length] = data[:, length-1::-1], the rest copied as it is."""
    if length <= 1:
        copy_runs(out, data)
        return
    copy_runs(out[:, :length], data[:, length - 1 :: -1])
    copy_runs(out[:, length:], data[:, length:])
