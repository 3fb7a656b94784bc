"""Pad-1, Pad-12 and Tile-1: data grown (or, with negative pads,
cropped) at its borders, and data repeated along each axis.

Pad maps every output index ``o`` of an axis to the input index
``o - pads_begin`` and resolves what falls outside ``[0, dim)`` by the mode
(constant value, nearest edge, mirror without or with the edge).  That mapping
is taken against the original data even when the other side is cropped, as
OpenVINO computes it.  The kernel copies the kept block once and fills the
borders from the output itself; only when a mirrored border reaches into a
cropped part does it fall back to one gather per axis.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...base.shapes import DYNAMIC, Dim, PartialShape
from ...kernels.blocks import broadcast_into, copy_parallel, copy_runs
from ...system import parallel
from ..framework.base import INTEGRAL, Enum, In, Inference, Op, TensorInfo, op_error
from ..framework.helpers import const_ints, value_dims
from ..framework.registry import register

DATA, BEGIN, END, VALUE = 0, 1, 2, 3


def _pad_dim(dim: Dim, begin: int, end: int) -> Dim:
    add = begin + end
    return Dim(max(dim.lo + add, 0), None if dim.hi is None else max(dim.hi + add, 0))


class _Pad(Op):
    family = "movement"
    inputs = (In("data"), In("pads_begin", INTEGRAL, rank=1, value=True), In("pads_end", INTEGRAL, rank=1, value=True),
              In("pad_value", optional=True))  # read in constant mode only: checked there
    attributes = {"pad_mode": Enum("constant", "edge", "reflect", "symmetric")}
    moves_values = (DATA, VALUE)

    def infer(self, data: TensorInfo, begin: TensorInfo, end: TensorInfo, value: TensorInfo | None = None) -> Inference:
        rank = data.shape.rank
        if value is not None and self.pad_mode == "constant":
            if value.known_type and data.known_type and value.etype is not data.etype:
                raise op_error(f"pad_value must have the element type of data ({data.etype.name}), got {value.etype.name}",
                               "bad-input-type", VALUE)
            if value.shape.rank not in (None, 0):
                raise op_error(f"pad_value must be a scalar, got rank {value.shape.rank} (shape {value.shape})",
                               "bad-input-rank", VALUE)
        begins = const_ints(begin, "pads_begin", BEGIN)
        ends = const_ints(end, "pads_end", END)
        for info, vals, what, port in ((begin, begins, "pads_begin", BEGIN), (end, ends, "pads_end", END)):
            n = len(vals) if vals is not None else (info.shape[0].value if info.shape.rank == 1 and info.shape[0].is_static else None)
            if rank is not None and n is not None and n != rank:
                raise op_error(f"{what} has {n} elements but data {data.shape} has rank {rank}", "incompatible-inputs", port)
        if rank is None:  # OpenVINO keeps the rank unknown even when the pads give it
            return Inference([TensorInfo(PartialShape(None), data.etype)])
        dims = data.shape.dims
        assert dims is not None
        if begins is None or ends is None:
            return Inference([TensorInfo(PartialShape((DYNAMIC,) * rank), data.etype)])
        mode = self.pad_mode
        out = []
        for a, (d, b, e) in enumerate(zip(dims, begins, ends)):
            if d.is_static:
                n = d.value
                if n + b + e < 0:
                    raise op_error(f"pads {b} and {e} crop more than dim {a} of data {data.shape} holds", "bad-value", BEGIN)
                if mode == "reflect" and (b >= n or e >= n) and (b > 0 or e > 0):
                    raise op_error(f"reflect pads {b}, {e} on axis {a} must be below the dim {n} of data {data.shape}",
                                   "bad-value", BEGIN if b >= n else END)
                if mode == "symmetric" and (b > n or e > n):
                    raise op_error(f"symmetric pads {b}, {e} on axis {a} must not exceed the dim {n} of data {data.shape}",
                                   "bad-value", BEGIN if b > n else END)
                if mode == "edge" and n == 0 and (b > 0 or e > 0):
                    raise op_error(f"edge padding of axis {a} of data {data.shape}: the axis is empty", "bad-value", DATA)
            out.append(_pad_dim(d, b, e))
        plan = None
        if data.shape.is_static:
            plan = _pad_plan(data.shape.to_tuple(), begins, ends, mode)
        return Inference([TensorInfo(PartialShape(tuple(out)), data.etype)], plan)

    def compute(self, plan: Any, data: np.ndarray, begin: np.ndarray, end: np.ndarray,
                value: np.ndarray | None = None) -> Sequence[np.ndarray]:
        out_shape, dst, src, borders, simple = plan
        out = np.empty(out_shape, data.dtype)
        if out.size == 0:
            return [out]
        if out.ndim == 0:  # a scalar has no axis to pad: it comes out as it is
            out[()] = data
            return [out]
        mode = self.pad_mode
        if not simple:  # a mirror reaching into a cropped part: one gather per axis
            x = data
            for a, (idx, _) in enumerate(borders):
                if idx is not None:
                    x = np.take(x, idx, axis=a)
            np.copyto(out, x)
            return [out]
        fill = None
        if mode == "constant":
            fill = np.zeros((), data.dtype) if value is None else value
        last = out.ndim - 1
        narrow = [part for part in borders[last] if part is not None]
        if last and narrow and all(part[2] is not None for part in narrow):
            # Narrow borders of the last axis are filled with the kept block, a
            # chunk at a time while its rows are in cache. Filling that axis
            # first, on the kept rows only, is exact: the other axes' borders
            # below then copy whole rows, its borders included.
            _copy_kept_rows(out, data, dst, src, [p for part in narrow for p in part[2]], fill)
            borders = borders[:last]
        else:
            copy_parallel(out[dst], data[src])
        for a, parts in enumerate(borders):
            lead = (slice(None),) * a
            for part in parts:
                if part is None:
                    continue
                target, source, pairs = part
                if pairs is not None:  # a few positions of the last axis: one long strided copy each
                    for p, q in pairs:
                        out[lead + (p,)] = fill if fill is not None else out[lead + (q,)]
                else:
                    out[lead + (target,)] = fill if fill is not None else out[lead + (source,)]
        return [out]


# Rows of the kept block are copied and their last-axis borders filled this
# many output bytes at a time (about what stays in L2 between the two).
_CHUNK_BYTES = 1 << 20


def _copy_kept_rows(out: np.ndarray, data: np.ndarray, dst: tuple[slice, ...], src: tuple[slice, ...],
                    pairs: list[tuple[int, int | None]], fill: np.ndarray | None) -> None:
    """``out[dst] = data[src]`` and, on the same rows, each last-axis border
    position ``p`` set to the fill or to position ``q``: in chunks along a
    leading axis, spread over the thread pool."""
    rows = out[dst[:-1] + (slice(None),)]
    kept = data[src]
    inner = dst[-1]
    chunks = 1
    if rows.nbytes >= parallel.MIN_PARALLEL_BYTES:
        chunks = max(parallel.pieces(rows.nbytes), rows.nbytes // _CHUNK_BYTES)
    lengths = rows.shape[:-1]
    axis = next((a for a, n in enumerate(lengths) if n >= chunks), max(range(len(lengths)), key=lengths.__getitem__))

    def chunk(lo: int, hi: int) -> None:
        window = (slice(None),) * axis + (slice(lo, hi),)
        o = rows[window]
        copy_runs(o[..., inner], kept[window])
        for p, q in pairs:
            o[..., p] = fill if fill is not None else o[..., q]

    tasks = [functools.partial(chunk, lo, hi) for lo, hi in parallel.spans(lengths[axis], chunks)]
    parallel.run(tasks, rows.nbytes)


def _pad_plan(shape: tuple[int, ...], begins: list[int], ends: list[int], mode: str) -> tuple:
    """Output shape, the kept block (output and input slices) and, per axis, the
    borders before and after it: (output positions, their source positions in
    the output, or None for the constant) as slices where they form a run, else
    index arrays; on the last axis a narrow border also lists (position,
    source) pairs, each copied on its own as one long strided copy (a slice a
    few elements wide there would make NumPy's inner loop that short). When a
    mirror needs cropped data: per-axis input index arrays instead."""
    out_shape = tuple(n + b + e for n, b, e in zip(shape, begins, ends))
    dst, src, borders = [], [], []
    simple = True
    gathers = []
    last = len(shape) - 1
    for axis, (n, b, m) in enumerate(zip(shape, begins, out_shape)):
        lo = min(max(b, 0), m)  # output positions whose input index o - b lies in [0, n)
        hi = max(min(b + n, m), lo)
        s0 = lo - b
        dst.append(slice(lo, hi))
        src.append(slice(s0, s0 + hi - lo))
        raw = np.arange(m, dtype=np.int64) - b
        mapped = _map_index(raw, n, mode)
        gathers.append(mapped if mode != "constant" else None)
        parts: list[tuple | None] = []
        for start, stop in ((0, lo), (hi, m)):
            if start == stop:
                parts.append(None)
                continue
            pos = np.arange(start, stop)
            target = slice(start, stop)
            pairs: list[tuple[int, int | None]] | None = None
            if mode == "constant":
                if axis == last and stop - start <= _NARROW:
                    pairs = [(int(p), None) for p in pos]
                parts.append((target, None, pairs))
                continue
            srcs = mapped[pos]
            if srcs.min() < s0 or srcs.max() >= s0 + hi - lo:
                simple = False
            srcs = srcs - s0 + lo
            if axis == last and stop - start <= _NARROW:
                pairs = [(int(p), int(q)) for p, q in zip(pos, srcs)]
            parts.append((target, _as_slice(srcs), pairs))
        borders.append(tuple(parts))
    if not simple:
        # the gather form: per axis (indices or None, None)
        borders = [(None if g is None or (len(g) == n and np.array_equal(g, np.arange(n))) else g.astype(np.intp), None)  # type: ignore[misc]
                   for g, n in zip(gathers, shape)]
    return out_shape, tuple(dst), tuple(src), borders, simple


# A border at most this wide on the last axis is copied a position at a time.
_NARROW = 16


def _as_slice(idx: np.ndarray) -> slice | np.ndarray:
    """``idx`` (output positions, in range) as a slice when it is one position
    repeated (a one-wide slice broadcast over the border, as edge padding
    needs) or a run with a constant step (a mirror), else as an index array."""
    first = int(idx[0])
    if np.all(idx == first):
        return slice(first, first + 1)
    step = int(idx[1] - idx[0])
    if step != 0 and np.array_equal(idx, first + step * np.arange(len(idx))):
        stop = first + step * len(idx)
        return slice(first, stop if stop >= 0 else None, step)
    return idx.astype(np.intp)


def _map_index(i: np.ndarray, n: int, mode: str) -> np.ndarray:
    """Input indices of output positions ``i`` (already shifted by pads_begin)."""
    if n == 0 or mode == "constant":
        return i
    if mode == "edge":
        return np.clip(i, 0, n - 1)
    if mode == "reflect":
        if n == 1:
            return np.zeros_like(i)
        i = np.where(i < 0, -i, i)
        return np.where(i >= n, 2 * (n - 1) - i, i)
    i = np.where(i < 0, -i - 1, i)  # symmetric: the edge is repeated
    return np.where(i >= n, 2 * n - 1 - i, i)


@register
class Pad1(_Pad):
    type, version = "Pad", 1
    summary = "data padded at each axis's start and end (constant, edge, reflect, symmetric); negative pads crop"
    # (the spec says non-negative; OpenVINO crops, as Pad-12 does)


@register
class Pad12(_Pad):
    type, version = "Pad", 12
    summary = "data padded at each axis's start and end; negative pads crop"


# ---------------------------------------------------------------------- Tile

@register
class Tile1(Op):
    type, version = "Tile", 1
    family = "movement"
    summary = "data repeated along each axis (repeats and data aligned at the last axis)"
    inputs = (In("data"), In("repeats", INTEGRAL, rank=1, value=True))
    moves_values = (DATA,)

    def infer(self, data: TensorInfo, repeats: TensorInfo) -> Inference:
        reps = value_dims(repeats)
        exact = const_ints(repeats, "repeats", 1)
        if exact is not None and min(exact, default=0) < 0:  # a negative count repeats nothing, as OpenVINO does
            exact = [max(k, 0) for k in exact]
            reps = exact  # type: ignore[assignment]  # ints where value_dims gives ints or Dims
        rank = data.shape.rank
        if reps is None:
            n = repeats.shape[0] if repeats.shape.rank == 1 else None
            if rank is None or n is None or not n.is_static:
                return Inference([TensorInfo(PartialShape(None), data.etype)])
            return Inference([TensorInfo(PartialShape((DYNAMIC,) * max(rank, n.value)), data.etype)])
        if rank is None:
            return Inference([TensorInfo(PartialShape(None), data.etype)])
        dims = data.shape.dims
        assert dims is not None
        out_rank = max(rank, len(reps))
        d = [Dim(1, 1)] * (out_rank - rank) + list(dims)
        r = [1] * (out_rank - len(reps)) + list(reps)
        out = tuple(a * (Dim(k, k) if isinstance(k, int) else k) for a, k in zip(d, r))
        plan = None
        if data.shape.is_static and exact is not None:
            plan = (tuple(x.value for x in d), tuple(r))
        return Inference([TensorInfo(PartialShape(out), data.etype)], plan)

    def compute(self, plan: tuple[tuple[int, ...], tuple[int, ...]], data: np.ndarray, repeats: np.ndarray) -> Sequence[np.ndarray]:
        dims, reps = plan
        out = np.empty(tuple(a * k for a, k in zip(dims, reps)), data.dtype)
        # the output seen as (r0, d0, r1, d1, ...): one broadcast copy fills it
        view = out.reshape(tuple(v for pair in zip(reps, dims) for v in pair))
        broadcast_into(view, data.reshape(tuple(v for d in dims for v in (1, d))))
        return [out]
