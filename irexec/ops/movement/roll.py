"""Roll-7: shift the elements of a tensor cyclically along some axes.

Follows the spec where OpenVINO is narrower: a one-element shift applies to
every listed axis, scalar axes are one axis, repeated axes add their shifts
(exactly, for any int64 values), empty shift/axes is the identity and
zero-size dims roll to themselves.

The kernel allocates the output once and fills it with block copies, no
temporaries: along each rolled axis the tensor splits into two blocks that
swap places, so k rolled axes need at most 2^k slice copies.  The innermost
rolled axis is merged with the dims after it, and short rows are moved by one
long shifted copy whose wrapped ends are then rewritten.  A big roll is cut
into parts (with short rows, tiles of a few MiB that stay in cache for the
fix-up) filled from a thread pool (``irexec.system.parallel``).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence

import numpy as np

from ...base.shapes import Dim, PartialShape
from ...kernels.blocks import copy_runs, merge_trailing
from ...system import parallel
from ..framework.base import INDEX, In, Inference, Op, TensorInfo, op_error
from ..framework.helpers import const_axes, const_ints
from ..framework.registry import register

DATA, SHIFT, AXES = 0, 1, 2


def _element_count(shape: PartialShape) -> Dim | None:
    """How many elements a scalar-or-1-D tensor holds, None if unknown."""
    if shape.rank is None:
        return None
    return Dim(1, 1) if shape.rank == 0 else shape[0]


def _lengths_error(shift: object, axes: object) -> Exception:
    return op_error(f"shift has {shift} elements but axes has {axes}: give one shift per axis, "
                    f"or a single shift for every axis", "incompatible-inputs", SHIFT)


@register
class Roll7(Op):
    type, version = "Roll", 7
    family = "movement"
    summary = "cyclic shift along axes; a one-element shift applies to every axis"
    inputs = (In("data"), In("shift", INDEX, rank=(0, 1), value=True), In("axes", INDEX, rank=(0, 1), value=True))
    moves_values = (DATA,)

    def infer(self, data: TensorInfo, shift: TensorInfo, axes: TensorInfo) -> Inference:
        n_shift, n_axes = _element_count(shift.shape), _element_count(axes.shape)
        # A scalar shift fits any axes; a 1-D one must match axes unless it may hold one element.
        if (shift.shape.rank == 1 and n_shift is not None and n_axes is not None
                and not n_shift.contains(1) and not n_shift.compatible(n_axes)):
            raise _lengths_error(n_shift, n_axes)
        out = [TensorInfo(data.shape, data.etype)]
        rank = data.shape.rank
        axis_list = const_axes(axes, rank, "axis", AXES) if rank is not None else None
        if axis_list is None:
            if rank == 0 and n_axes is not None and n_axes.lo > 0:
                raise op_error(f"data is a scalar (rank 0) and has no axes to roll, but axes has {n_axes} elements",
                               "axis-out-of-range", AXES)
            return Inference(out)
        shifts = const_ints(shift, "shift", SHIFT)
        if shifts is None or not data.shape.is_static:
            return Inference(out)
        if shift.shape.rank == 1 and len(shifts) != 1 and len(shifts) != len(axis_list):
            raise _lengths_error(len(shifts), len(axis_list))
        return Inference(out, _total_shifts(data.shape.to_tuple(), shifts, axis_list))

    def compute(self, plan: dict[int, int], data: np.ndarray, shift: np.ndarray, axes: np.ndarray) -> Sequence[np.ndarray]:
        out = np.empty(data.shape, data.dtype)
        _roll_into(out, data, plan)
        return [out]


def _total_shifts(shape: tuple[int, ...], shifts: list[int], axes: list[int]) -> dict[int, int]:
    """Normalised axis -> its summed shift reduced modulo the dim, for the
    axes that actually move.  Python ints keep every int64 value exact."""
    totals: dict[int, int] = {}
    for i, a in enumerate(axes):
        n = shape[a]
        s = shifts[0] if len(shifts) == 1 else shifts[i]
        totals[a] = (totals.get(a, 0) + s) % n if n else 0
    return {a: s for a, s in totals.items() if s}


def _roll_into(out: np.ndarray, data: np.ndarray, totals: dict[int, int]) -> None:
    if not totals or out.size == 0:
        np.copyto(out, data)
        return
    if data.flags.c_contiguous:
        # Merge the innermost rolled axis with the unrolled dims after it: the
        # same roll, scaled, on fewer and longer contiguous runs.
        last = max(totals)
        inner = math.prod(data.shape[last + 1 :])
        merged = data.shape[:last] + (data.shape[last] * inner,)
        out, data = out.reshape(merged), data.reshape(merged)
        totals = {**totals, last: totals[last] * inner}
    last = max(totals)
    parts = parallel.pieces(out.nbytes)
    if not data.flags.c_contiguous or data.shape[last] * data.itemsize < _TILED_ROW_BYTES:
        # Short rows are rewritten by the fix-up right after the shifted copy:
        # in tiles of a few MiB those re-reads still find the lines in cache.
        parts = max(parts, out.nbytes // _TILE_BYTES)
    if parts > 1:
        tasks = [functools.partial(_roll_blocks, *piece) for piece in _split(out, data, totals, parts)]
        parallel.run(tasks, out.nbytes)
    else:
        _roll_blocks(out, data, totals)


def _split(out: np.ndarray, data: np.ndarray, totals: dict[int, int], parts: int, axis: int = 0
           ) -> list[tuple[np.ndarray, np.ndarray, dict[int, int]]]:
    """The roll cut into about ``parts`` independent rolls of disjoint,
    row-major consecutive parts of ``out``: along ``axis`` if it is long
    enough, else into its single indices, each cut further along the next
    axis.  Along a rolled axis a part of the output reads at most two ranges
    of the data; each is a roll along the other axes only."""
    n = data.shape[axis]
    if parts <= 1 or axis == data.ndim - 1 or n >= parts:
        ranges, deeper = parallel.spans(n, parts), 1
    else:
        ranges, deeper = [(i, i + 1) for i in range(n)], -(-parts // n)
    s = totals.get(axis, 0)
    rest = {a: t for a, t in totals.items() if a != axis}
    lead = (slice(None),) * axis
    result = []
    for lo, hi in ranges:
        # output [0, s) reads data [n-s, n); output [s, n) reads data [0, n-s)
        for start, stop in ((lo, min(hi, s)), (max(lo, s), hi)):
            if start < stop:
                src = start - s + (n if start < s else 0)
                piece = out[lead + (slice(start, stop),)], data[lead + (slice(src, src + stop - start),)], rest
                result += _split(*piece, deeper, axis + 1) if deeper > 1 else [piece]
    return result


def _roll_blocks(out: np.ndarray, data: np.ndarray, totals: dict[int, int]) -> None:
    """``out[...] = data`` rolled by ``totals`` (each shift in (0, n)), for
    same-shape views of any strides."""
    if not totals:
        copy_runs(out, data)
        return
    # Along each rolled axis the tensor splits into two blocks that swap
    # places: data[:n-s] lands at out[s:] and data[n-s:] wraps round to out[:s].
    small = out.nbytes <= _SMALL_BYTES  # Python overhead dominates: plain slice copies
    last = -1 if small else max(totals)
    moves = [
        [(axis, slice(s, None), slice(0, n - s)), (axis, slice(0, s), slice(n - s, None))]
        for axis, s in totals.items()
        if axis != last
        for n in [data.shape[axis]]
    ]
    full = [slice(None)] * data.ndim
    for combo in itertools.product(*moves):
        dst, src = list(full), list(full)
        for axis, d, s in combo:
            dst[axis], src[axis] = d, s
        if small:
            out[tuple(dst)] = data[tuple(src)]
        else:
            _roll_axis(out[tuple(dst)], data[tuple(src)], last, totals[last])


# A roll whose innermost rolled rows are shorter than this is done in tiles.
_TILED_ROW_BYTES = 16 << 10
# Such a roll is done in parts of about this size (also on one thread).
_TILE_BYTES = 4 << 20
# Below this size a tensor is rolled with the fewest NumPy calls.
_SMALL_BYTES = 1 << 16
# Rows shorter than this are rolled by one long shifted copy plus a fix-up of
# the wrapped part; longer ones by two block copies (each element written once).
_SHORT_ROW_BYTES = 4096


def _roll_axis(dst: np.ndarray, src: np.ndarray, axis: int, shift: int) -> None:
    """``dst[...] = src`` rolled by ``shift`` (0 < shift < n) along ``axis``."""
    n = src.shape[axis]
    if axis == src.ndim - 1 and axis > 0 and n * src.itemsize < _SHORT_ROW_BYTES:
        flat_dst, flat_src = merge_trailing(dst, src)
        if flat_dst.ndim < dst.ndim:
            # One long copy moves every row by the shift, spilling each row's
            # end into the next row's start; then the short wrapped part of
            # every row is written over the spill.
            back, length = n - shift, flat_dst.shape[-1]
            if shift <= back:
                np.copyto(flat_dst[..., shift:], flat_src[..., : length - shift])
                copy_runs(dst[..., :shift], src[..., back:])
            else:
                np.copyto(flat_dst[..., : length - back], flat_src[..., back:])
                copy_runs(dst[..., shift:], src[..., :back])
            return
    lead = (slice(None),) * axis
    copy_runs(dst[lead + (slice(shift, None),)], src[lead + (slice(0, n - shift),)])
    copy_runs(dst[lead + (slice(0, shift),)], src[lead + (slice(n - shift, None),)])
