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
from typing import Sequence

import numpy as np

from .. import dtypes
from ..shapes import PartialShape
from .base import Attr, Op, TensorInfo, normalize_axis, op_error
from .registry import register
from .roll import copy_runs

DATA, SEQ_LENGTHS = 0, 1
_UNKNOWN_TYPES = ("dynamic", "undefined")  # a producer irexec cannot infer
# Block copies move lines of the dims after both axes; below this many bytes
# per line a gather with np.take is faster.
_MIN_LINE_BYTES = 256
# The largest (seq, batch) plane, with the axes between them, gathered through
# one index array.
_MAX_PLANE = 1 << 20
# Above this many runs of equal lengths, batches are grouped by length with
# index arrays instead of being copied run by run.
_MAX_RUNS = 256


@register
class ReverseSequence1(Op):
    type, version, since_opset = "ReverseSequence", 1, 1
    family = "movement"
    summary = "reverse the first seq_lengths[b] elements along seq_axis of each batch b"
    inputs = ("data", "seq_lengths")
    attributes = {
        "batch_axis": Attr("int", 0, doc="axis of the batches, in [-rank, rank-1]"),
        "seq_axis": Attr("int", 1, doc="axis reversed, in [-rank, rank-1]; not the batch axis"),
    }

    def _axes(self, rank: int) -> tuple[int, int]:
        """batch_axis and seq_axis made non-negative, checked against each other."""
        batch = normalize_axis(self.batch_axis, rank, "batch_axis", "axis-out-of-range")
        seq = normalize_axis(self.seq_axis, rank, "seq_axis", "axis-out-of-range")
        if batch == seq:
            raise op_error(f"batch_axis {self.batch_axis} and seq_axis {self.seq_axis} name the same axis {batch} "
                           f"of the rank-{rank} data; they must differ", "bad-attribute")
        return batch, seq

    def infer(self, data: TensorInfo, seq_lengths: TensorInfo) -> list[TensorInfo]:
        etype = seq_lengths.etype
        if not etype.is_numeric and etype.name not in _UNKNOWN_TYPES:
            raise op_error(f"seq_lengths must have a numeric element type, got {etype.name}", "bad-input-type",
                           SEQ_LENGTHS)
        rank, seq_rank = data.shape.rank, seq_lengths.shape.rank
        if rank is not None and rank < 2:
            raise op_error(f"data must have rank 2 or more, got rank {rank} (shape {data.shape})", "bad-input-rank", DATA)
        if seq_rank is not None and seq_rank != 1:
            raise op_error(f"seq_lengths must be 1-D, got rank {seq_rank} (shape {seq_lengths.shape})",
                           "bad-input-rank", SEQ_LENGTHS)
        if rank is None:
            if self.seq_axis < 0:
                raise op_error(f"seq_axis {self.seq_axis} is negative, which needs a static data rank to "
                               f"normalise, but the data rank is dynamic", "bad-attribute")
            if self.batch_axis == self.seq_axis:
                raise op_error(f"batch_axis {self.batch_axis} and seq_axis {self.seq_axis} name the same axis; "
                               f"they must differ", "bad-attribute")
            return [TensorInfo(data.shape, data.etype)]
        batch, _ = self._axes(rank)
        dims = list(data.shape.dims or ())
        if seq_rank == 1:
            merged = dims[batch].intersect(seq_lengths.shape[0])
            if merged is None:
                raise _length_error(seq_lengths.shape[0], dims[batch], batch, data.shape, seq_lengths.shape)
            dims[batch] = merged
        return [TensorInfo(PartialShape(tuple(dims)), data.etype)]

    def compute(self, data: np.ndarray, seq_lengths: np.ndarray) -> Sequence[np.ndarray]:
        etype = dtypes.from_dtype(seq_lengths.dtype)
        if etype is None or not etype.is_numeric:
            name = etype.name if etype is not None else str(seq_lengths.dtype)
            raise op_error(f"seq_lengths must have a numeric element type, got {name}", "bad-input-type", SEQ_LENGTHS)
        if data.ndim < 2:
            raise op_error(f"data must have rank 2 or more, got rank {data.ndim} (shape {list(data.shape)})",
                           "bad-input-rank", DATA)
        if seq_lengths.ndim != 1:
            raise op_error(f"seq_lengths must be 1-D, got rank {seq_lengths.ndim} (shape {list(seq_lengths.shape)})",
                           "bad-input-rank", SEQ_LENGTHS)
        batch, seq = self._axes(data.ndim)
        if seq_lengths.shape[0] != data.shape[batch]:
            raise _length_error(seq_lengths.shape[0], data.shape[batch], batch, list(data.shape),
                                list(seq_lengths.shape))
        lengths = _lengths(seq_lengths, etype.is_real, data.shape[seq], seq)
        out = np.empty(data.shape, data.dtype)
        if out.size == 0:
            return [out]
        lo, hi = min(batch, seq), max(batch, seq)
        if data.itemsize * math.prod(data.shape[hi + 1 :]) < _MIN_LINE_BYTES:
            if math.prod(data.shape[lo : hi + 1]) <= _MAX_PLANE:
                _reverse_plane(out, data, lengths, batch, seq)
                return [out]
            if batch < seq:
                _reverse_take(out, data, lengths, batch, seq)
                return [out]
        # batch first, sequence second: out_v[b, s, ...] is out's element (b, s) along those axes
        order = (batch, seq, *(a for a in range(data.ndim) if a not in (batch, seq)))
        _reverse_into(out.transpose(order), data.transpose(order), lengths)
        return [out]


def _length_error(seq: object, dim: object, batch: int, data_shape: object, seq_shape: object) -> Exception:
    def text(s: object) -> str:
        return "[" + ",".join(map(str, s)) + "]" if isinstance(s, list) else str(s)

    return op_error(f"seq_lengths has {seq} elements but the batch axis (axis {batch}) of the data has {dim} "
                    f"(data shape {text(data_shape)}, seq_lengths shape {text(seq_shape)})",
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
        raise op_error(f"seq_lengths[{b}] = {seq_lengths[b].item()} is outside [0, {dim}], the size of seq_axis "
                       f"{seq_axis} (0 reverses nothing, like 1)", "bad-value", SEQ_LENGTHS)
    return np.maximum(values.astype(np.int64), 1)


def _reverse_into(out: np.ndarray, data: np.ndarray, lengths: np.ndarray) -> None:
    """out = data with out[b, :L_b] = data[b, L_b-1::-1], for views whose axis
    0 is the batch and axis 1 the sequence."""
    if out.size == 0:
        return
    starts = np.flatnonzero(np.diff(lengths)) + 1
    if len(starts) < _MAX_RUNS:
        bounds = [0, *starts.tolist(), len(lengths)]
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            _reverse_block(out[lo:hi], data[lo:hi], int(lengths[lo]))
        return
    for length in np.unique(lengths).tolist():
        rows = np.flatnonzero(lengths == length)
        out[rows, :length] = data[rows, length - 1 :: -1] if length > 1 else data[rows, :1]
        out[rows, length:] = data[rows, length:]


def _source_positions(lengths: np.ndarray, dim: int) -> np.ndarray:
    """[b, s] -> the sequence position output position s of batch b reads."""
    s = np.arange(dim)
    lengths = lengths[:, None]
    return np.where(s < lengths, lengths - 1 - s, s)


def _reverse_plane(out: np.ndarray, data: np.ndarray, lengths: np.ndarray, batch: int, seq: int) -> None:
    """One np.take over the plane of axes from the first to the last of
    batch and seq: every output line (the dims after both) in that plane
    reads one input line."""
    lo, hi = min(batch, seq), max(batch, seq)
    plane_shape = data.shape[lo : hi + 1]
    index = list(np.indices(plane_shape, sparse=True))
    positions = _source_positions(lengths, data.shape[seq])
    b, s = index[batch - lo], index[seq - lo]
    index[seq - lo] = positions[b, s]
    flat = np.ravel_multi_index(np.broadcast_arrays(*index), plane_shape).reshape(-1)
    outer, inner = math.prod(data.shape[:lo]), math.prod(data.shape[hi + 1 :])
    np.take(data.reshape(outer, flat.size, inner), flat, axis=1, out=out.reshape(outer, flat.size, inner),
            mode="clip")


def _reverse_take(out: np.ndarray, data: np.ndarray, lengths: np.ndarray, batch: int, seq: int) -> None:
    """Per run of batches with one length, an np.take along seq_axis."""
    positions = _source_positions(lengths, data.shape[seq])
    starts = np.flatnonzero(np.diff(lengths)) + 1
    bounds = [0, *starts.tolist(), len(lengths)]
    lead = (slice(None),) * batch
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        run = lead + (slice(lo, hi),)
        dst = out[run]
        if dst.flags.c_contiguous:
            np.take(data[run], positions[lo], axis=seq, out=dst, mode="clip")
        else:
            dst[...] = np.take(data[run], positions[lo], axis=seq)


def _reverse_block(out: np.ndarray, data: np.ndarray, length: int) -> None:
    if length <= 1:
        copy_runs(out, data)
        return
    copy_runs(out[:, :length], data[:, length - 1 :: -1])
    copy_runs(out[:, length:], data[:, length:])
