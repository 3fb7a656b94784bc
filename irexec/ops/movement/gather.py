"""Gather-1, Gather-7 and Gather-8: slices of ``data`` picked by ``indices``
along ``axis``, with ``batch_dims`` leading dims shared by data and indices.

    output[p_0..p_{axis-1}, i_b..i_{M-1}, p_{axis+1}..] =
        data[p_0..p_{axis-1}, indices[p_0..p_{b-1}, i_b..i_{M-1}], p_{axis+1}..]

The three versions share one core and differ only in what they accept:

* Gather-1 has no ``batch_dims`` (always 0) and, as in OpenVINO, does not check
  the element types of indices and axis: any numeric type is accepted.  Real
  indices are truncated toward zero; NaN and infinities are out of range.
  Boolean indices or axis are refused (they are not numbers).
* Gather-7 and Gather-8 require integral indices and axis and add ``batch_dims``.

Index values follow OpenVINO's reference implementation in every version: a
negative index counts from the end (Gather-8's spec; the Gather-1/7 specs only
allow [0, dim-1]) and an index outside [-dim, dim-1] yields a slice of zeros.

A big output is filled by several np.take calls on a thread pool, each into
its own contiguous part (``irexec.system.parallel``).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import ClassVar

import numpy as np

from ...base.errors import InternalError
from ...base.shapes import DYNAMIC, Dim, PartialShape
from ...kernels.compressed_linear import StandIn
from ...system import parallel
from ..framework.base import INTEGRAL, NUMERIC, Attr, In, Inference, Op, TensorInfo, normalize_axis, op_error
from ..framework.registry import register

DATA, INDICES, AXIS = 0, 1, 2

# A Python loop moving one block per batch costs a few microseconds a batch;
# it is used while there are few batches or each block is big enough to hide
# that, else one vectorised take over precomputed row numbers does the work.
_MAX_BATCH_LOOP = 64
_MIN_BLOCK_ELEMENTS = 4096
# Up to this many indices (a shape subgraph's, a short sequence's embedding
# lookup) are checked as Python ints and go to one np.take that makes its own
# output: the general path's index reductions and set-up cost ten times the
# take there (35 against 4 us on a shape's two dims).
_FEW_INDICES = 64


# ------------------------------------------------------------------ validation


def _axis_value(value: np.ndarray, data_rank: int | None) -> int:
    """The axis as a Python int (Gather-1 may hold it in a real type)."""
    flat = np.asarray(value).reshape(-1)  # one value: declared (elements=1)
    first = flat[0]
    if flat.dtype.kind in "iub":
        return int(first)
    real = float(first)
    if not np.isfinite(real):
        bounds = f" [{-data_rank}, {data_rank - 1}]" if data_rank else ""
        raise op_error(f"axis {real} is out of range{bounds}", "axis-out-of-range", AXIS)
    return int(real)  # truncates toward zero, as OpenVINO's cast does


def _normalize_batch_dims(batch_dims: int, data_rank: int | None, indices_rank: int | None) -> int | None:
    """``batch_dims`` made non-negative and checked against the ranks that are
    known; None when it is negative and the indices rank is unknown."""
    b = batch_dims
    if b < 0:
        if indices_rank is None:
            if data_rank is not None and b < -data_rank:
                raise op_error(f"batch_dims {batch_dims} is below {-data_rank}, the lowest data rank {data_rank} allows",
                               "bad-attribute")
            return None
        if b < -_rank_limit(data_rank, indices_rank):
            raise op_error(f"batch_dims {batch_dims} is out of range {_range_text(data_rank, indices_rank)}",
                           "bad-attribute")
        b += indices_rank
    if indices_rank is not None and b > indices_rank:
        raise op_error(f"batch_dims {batch_dims} must be <= indices rank {indices_rank} "
                       f"(allowed range {_range_text(data_rank, indices_rank)})", "bad-attribute")
    if data_rank is not None and b >= data_rank:
        # the spec allows up to min(ranks), but axis >= batch_dims leaves no axis then
        raise op_error(f"batch_dims {batch_dims} leaves no axis to gather along in data of rank {data_rank} "
                       f"(batch_dims <= axis <= {data_rank - 1})", "bad-attribute")
    return b


def _rank_limit(data_rank: int | None, indices_rank: int) -> int:
    return indices_rank if data_rank is None else min(data_rank, indices_rank)


def _range_text(data_rank: int | None, indices_rank: int) -> str:
    m = _rank_limit(data_rank, indices_rank)
    ranks = f"indices rank {indices_rank}" if data_rank is None else f"data rank {data_rank}, indices rank {indices_rank}"
    return f"[{-m}, {m}] for {ranks}"


def _check_batch_le_axis(batch_dims: int, raw_batch_dims: int, axis: int) -> None:
    if batch_dims > axis:
        shown = f"{raw_batch_dims} (normalized {batch_dims})" if raw_batch_dims != batch_dims else str(batch_dims)
        raise op_error(f"batch_dims {shown} must be <= axis {axis}", "bad-attribute")


def _merge_batch_dims(data: Sequence[Dim], indices: Sequence[Dim], b: int,
                      data_shape: PartialShape, indices_shape: PartialShape) -> list[Dim]:
    merged = []
    for k in range(b):
        m = data[k].intersect(indices[k])
        if m is None:
            raise op_error(f"data {data_shape} and indices {indices_shape} must agree in the first {b} (batch) dims, "
                           f"but dim {k} is {data[k]} in data and {indices[k]} in indices", "incompatible-inputs", INDICES)
        merged.append(m)
    return merged


# ---------------------------------------------------------------------- kernel


def _index_bounds_dtype(dtype: np.dtype, dim: int) -> tuple[bool, bool]:
    """Whether the lower (-dim) and upper (dim - 1) bounds can be crossed by a
    value of ``dtype``; comparing with a bound the type cannot hold is avoided."""
    info = np.iinfo(dtype)
    return info.min < -dim, info.max >= dim


def _normalize_indices(indices: np.ndarray, dim: int) -> tuple[np.ndarray, np.ndarray | None]:
    """Indices as intp in [0, dim), and a mask of the valid ones (None: all valid).
    Invalid positions hold 0 and must be zeroed in the output."""
    if indices.dtype.kind not in "iu":  # Gather-1 real indices: truncated toward zero
        real = np.trunc(indices.astype(np.float64))
        valid = np.isfinite(real) & (real >= -dim) & (real < dim)
        idx = np.where(valid, real, 0).astype(np.intp)
        idx[idx < 0] += dim
        return idx, None if valid.all() else valid
    if indices.size == 0:
        return indices.astype(np.intp), None
    lo, hi = int(indices.min()), int(indices.max())  # exact for u64 above 2^63 too
    if -dim <= lo and hi < dim:
        idx = indices.astype(np.intp, copy=lo < 0)  # never wrap in place in the caller's array
        if lo < 0:
            idx[idx < 0] += dim
        return idx, None
    can_go_low, can_go_high = _index_bounds_dtype(indices.dtype, dim)
    valid = np.ones(indices.shape, dtype=bool)
    if can_go_low:
        valid &= indices >= -dim
    if can_go_high:
        valid &= indices < dim
    idx = np.where(valid, indices, 0).astype(np.intp)
    idx[idx < 0] += dim
    return idx, valid


def _take_tasks(src: np.ndarray, idx: np.ndarray, dst: np.ndarray, parts: int) -> list[Callable[[], object]]:
    """``np.take(src, idx, axis=1, out=dst)`` for (outer, dim, inner) blocks,
    cut into up to ``parts`` takes that each fill a C-contiguous part of
    ``dst`` (np.take copies a non-contiguous ``out`` through a buffer):
    ranges of the outer rows, or ranges of the indices within each row."""
    outer, count = dst.shape[0], dst.shape[1]
    if outer >= parts:
        return [functools.partial(np.take, src[lo:hi], idx, axis=1, out=dst[lo:hi], mode="clip")
                for lo, hi in parallel.spans(outer, parts)]
    per_row = -(-parts // outer)
    return [functools.partial(np.take, src[o : o + 1], idx[lo:hi], axis=1, out=dst[o : o + 1, lo:hi], mode="clip")
            for o in range(outer) for lo, hi in parallel.spans(count, per_row)]


_ROW_CHUNK = 1 << 16  # rows whose numbers one task computes at once


def _take_rows(table: np.ndarray, picks: np.ndarray, outer: int, count: int, dim: int, dest_rows: np.ndarray,
               lo: int, hi: int) -> None:
    """Output rows lo..hi: output row r = (b*outer + o)*count + c reads row (b*outer + o)*dim + picks[b, c]
    (``picks``: the raw indices; out-of-range ones give zeros)."""
    bo, c = np.divmod(np.arange(lo, hi, dtype=np.intp), count)
    idx, valid = _normalize_indices(picks[bo // outer, c], dim)
    np.take(table, bo * dim + idx, axis=0, out=dest_rows[lo:hi], mode="clip")
    if valid is not None:
        dest_rows[lo:hi][~valid] = 0


def _all_in_range(indices: np.ndarray, dim: int) -> bool:
    """Whether every index lies in [-dim, dim), checked as Python ints."""
    return all(-dim <= v < dim for v in indices.reshape(-1).tolist())


def gather(data: np.ndarray, indices: np.ndarray, axis: int, batch_dims: int) -> np.ndarray:
    """The Gather formula for normalized ``axis`` and ``batch_dims`` on shapes
    already checked (batch dims equal, batch_dims <= axis)."""
    b = batch_dims
    dim = data.shape[axis]
    if (b == 0 and 0 < indices.size <= _FEW_INDICES and indices.dtype.kind in "iu" and dim
            and data.size // dim * indices.size * data.itemsize < parallel.MIN_PARALLEL_BYTES):
        if _all_in_range(indices, dim):  # np.take counts negative indices from the end, as Gather does
            return np.asarray(np.take(data, indices, axis=axis))  # a 0-d result comes back as a scalar
    out_shape = data.shape[:axis] + indices.shape[b:] + data.shape[axis + 1:]
    if dim == 0:  # nothing to pick from: every index is out of range
        return np.zeros(out_shape, data.dtype)
    out = np.empty(out_shape, data.dtype)
    if out.size == 0:
        return out
    batches = math.prod(data.shape[:b])
    outer = math.prod(data.shape[b:axis])
    inner = math.prod(data.shape[axis + 1:])
    count = math.prod(indices.shape[b:])
    # mode="clip" never clips here (indices are already in range); it only
    # spares NumPy the buffered copy that mode="raise" makes of `out`.
    parts = parallel.pieces(out.nbytes)  # 1: small, no tasks built (their cost shows on small tensors)
    if not (batches == 1 or batches <= _MAX_BATCH_LOOP or out.size // batches >= _MIN_BLOCK_ELEMENTS):
        # many batches of small blocks: one take over row numbers of the picked slices in data seen as
        # (batches*outer*dim, inner), built and normalized per span of _ROW_CHUNK rows (for the whole
        # output they would be 8 bytes per row, 8x a u8 output)
        table, dest_rows = data.reshape(batches * outer * dim, inner), out.reshape(batches * outer * count, inner)
        total = batches * outer * count
        spans = parallel.spans(total, max(parts, -(-total // _ROW_CHUNK)))
        parallel.run([functools.partial(_take_rows, table, indices.reshape(batches, count), outer, count, dim, dest_rows,
                                        lo, hi) for lo, hi in spans], out.nbytes)
        return out
    idx, valid = _normalize_indices(indices, dim)
    if batches == 1:
        src, dst = data.reshape(outer, dim, inner), out.reshape(outer, count, inner)
        if parts == 1:
            np.take(src, idx.reshape(count), axis=1, out=dst, mode="clip")
        else:
            parallel.run(_take_tasks(src, idx.reshape(count), dst, parts), out.nbytes)
    else:
        blocks = data.reshape(batches, outer, dim, inner)
        dest = out.reshape(batches, outer, count, inner)
        picks = idx.reshape(batches, count)
        if parts == 1:
            for k in range(batches):
                np.take(blocks[k], picks[k], axis=1, out=dest[k], mode="clip")
        else:
            per_batch = -(-parts // batches)
            tasks = [t for k in range(batches) for t in _take_tasks(blocks[k], picks[k], dest[k], per_batch)]
            parallel.run(tasks, out.nbytes)
    if valid is not None:
        mask = valid.reshape(batches, 1, count, 1)
        np.copyto(out.reshape(batches, outer, count, inner), np.zeros((), data.dtype), where=~mask)
    return out


# ------------------------------------------------------------------------- ops

_BATCH_DIMS = {"batch_dims": Attr("int", 0, doc="leading dims shared by data and indices; negative: + indices rank")}


class _GatherBase(Op):
    type = "Gather"
    family = "movement"
    inputs = (In("data", rank=(1, None)), In("indices", INTEGRAL), In("axis", INTEGRAL, rank=(0, 1), elements=1, value=True))
    moves_values = (DATA,)

    @property
    def _batch_dims(self) -> int:
        return getattr(self, "batch_dims", 0)

    def infer(self, data: TensorInfo, indices: TensorInfo, axis: TensorInfo) -> Inference:
        data_rank, indices_rank = data.shape.rank, indices.shape.rank
        raw_b = self._batch_dims
        b = _normalize_batch_dims(raw_b, data_rank, indices_rank)

        axis_value = axis.value()
        a: int | None = None
        if axis_value is not None:
            a = _axis_value(axis_value, data_rank)
            if data_rank is not None:
                a = normalize_axis(a, data_rank, "axis", "axis-out-of-range", AXIS)
            elif a < 0:
                a = None  # cannot normalize without the data rank
        if a is not None and b is not None:
            _check_batch_le_axis(b, raw_b, a)

        if data.shape.dims is None or indices.shape.dims is None:
            return Inference([TensorInfo(PartialShape(None), data.etype)])
        assert b is not None
        d, i = data.shape.dims, indices.shape.dims
        merged = _merge_batch_dims(d, i, b, data.shape, indices.shape)
        rank = len(d) + len(i) - 1 - b
        if a is None:
            dims = tuple(merged) + (DYNAMIC,) * (rank - b)
        else:
            dims = tuple(merged) + d[b:a] + i[b:] + d[a + 1:]
        return Inference([TensorInfo(PartialShape(dims), data.etype)], (a, b))

    def compute(self, plan: tuple[int, int], data: np.ndarray, indices: np.ndarray, axis: np.ndarray) -> Sequence[np.ndarray]:
        a, b = plan
        if isinstance(data, StandIn):  # an embedding never decompressed whole: the picked rows are
            if (a, b) != (0, 0):
                raise InternalError(f"a compressed weight reached a Gather on axis {a} with batch_dims {b}")
            idx, valid = _normalize_indices(indices, data.shape[0])
            out = data.compressed.rows(idx)
            if valid is not None:
                out[~valid] = 0
            return [out]
        return [gather(data, indices, a, b)]


@register
class Gather1(_GatherBase):
    version = 1
    summary = "slices of data at indices along axis (any numeric indices; negative wrap, out of range -> zeros)"
    # as in OpenVINO, any number type for indices and axis: real ones are truncated toward zero
    inputs = (In("data", rank=(1, None)), In("indices", NUMERIC), In("axis", NUMERIC, rank=(0, 1), elements=1, value=True))


@register
class Gather7(_GatherBase):
    version = 7
    summary = "Gather with batch_dims (integer indices; negative wrap, out of range -> zeros)"
    attributes: ClassVar[dict[str, Attr]] = _BATCH_DIMS


@register
class Gather8(_GatherBase):
    version = 8
    summary = "Gather with batch_dims and negative indices (out of range -> zeros)"
    attributes: ClassVar[dict[str, Attr]] = _BATCH_DIMS
