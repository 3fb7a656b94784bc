"""StridedSlice-1: begin/end/stride windows with TensorFlow-style masks.

Entry ``i`` of begin/end/stride is, in this order of precedence: an ellipsis
(``ellipsis_mask``: as many whole dims as the other entries leave), a new
axis of 1 (``new_axis_mask``), one element taken and its dim removed
(``shrink_axis_mask``), else a slice whose begin (``begin_mask``) or end
(``end_mask``) may be ignored for the whole range.  Dims past the entries are
kept whole.  Output dims of dynamic inputs follow Slice-8's (and OpenVINO's)
interval rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...base.shapes import Dim, PartialShape
from ...kernels.blocks import copy_parallel
from ..framework.base import INTEGRAL, Attr, In, Inference, Op, TensorInfo, op_error
from ..framework.helpers import const_ints
from ..framework.registry import register
from .slice import _int_bounds, _py_slice, _slice_dim

DATA, BEGIN, END, STRIDE = 0, 1, 2, 3
_MAX = (1 << 63) - 1
_MIN = -(1 << 63)


def _bits(mask: tuple[int, ...]) -> set[int]:
    return {i for i, v in enumerate(mask) if v == 1}


@register
class StridedSlice1(Op):
    type, version = "StridedSlice", 1
    family = "movement"
    summary = "strided window per axis with begin/end/new-axis/shrink/ellipsis masks"
    inputs = (In("data"), In("begin", INTEGRAL, rank=1, value=True), In("end", INTEGRAL, rank=1, value=True),
              In("stride", INTEGRAL, rank=1, optional=True, value=True))
    attributes = {m: Attr("ints", (), required=m in ("begin_mask", "end_mask"), doc="1: set for that entry")
                  for m in ("begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask")}
    moves_values = (DATA,)

    def validate(self) -> list:
        errors = []
        for name in self.attributes:
            values = getattr(self, name)
            if any(v not in (0, 1) for v in values):
                errors.append(op_error(f"{name} {list(values)} must hold only 0 and 1", "bad-attribute"))
        sizes = {len(getattr(self, name)) for name in self.attributes} - {0}
        if len(sizes) > 1:
            errors.append(op_error("begin_mask, end_mask, new_axis_mask, shrink_axis_mask and ellipsis_mask must have the "
                                   f"same length (or be empty), got lengths {sorted(sizes)}", "bad-attribute"))
        if len(_bits(self.ellipsis_mask)) > 1:
            errors.append(op_error(f"ellipsis_mask {list(self.ellipsis_mask)} sets more than one ellipsis", "bad-attribute"))
        return errors

    def infer(self, data: TensorInfo, begin: TensorInfo, end: TensorInfo, stride: TensorInfo | None = None) -> Inference:
        lengths = [(i.shape[0], name) for i, name in ((begin, "begin"), (end, "end"), (stride, "stride"))
                   if i is not None and i.shape.rank == 1]
        for (a, na), (b, nb) in zip(lengths, lengths[1:]):
            if not a.compatible(b):
                raise op_error(f"{na} ({a} elements) and {nb} ({b} elements) must have the same length", "incompatible-inputs", END)
        strides = const_ints(stride, "stride", STRIDE) if stride is not None else None
        if strides is not None and 0 in strides:
            raise op_error(f"stride {strides} holds 0", "bad-value", STRIDE)
        begins, ends = _int_bounds(begin), _int_bounds(end)
        count = next((len(v) for v in (begins, ends, strides) if v is not None), None)
        if count is None:
            n = next((a for a, _ in lengths if a.is_static), None)
            count = n.value if n is not None else None
        rank = data.shape.rank
        if rank is None or count is None:
            return Inference([TensorInfo(PartialShape(None), data.etype)])
        if stride is None:
            strides = [1] * count
        dims = data.shape.dims
        assert dims is not None
        bm, em, nm, sm, xm = (_bits(m) for m in (self.begin_mask, self.end_mask, self.new_axis_mask,
                                                 self.shrink_axis_mask, self.ellipsis_mask))
        ellipsis = next((i for i in range(count) if i in xm), None)
        if ellipsis is not None:
            used = sum(1 for i in range(count) if i != ellipsis and i not in nm)
            if used > rank:
                raise op_error(f"{used} entries index data {data.shape} of rank {rank}", "incompatible-inputs", BEGIN)
        out: list[Dim] = []
        index: list[Any] = []
        axis = 0
        for i in range(count):
            if i == ellipsis:
                span = rank - axis - sum(1 for j in range(i + 1, count) if j not in nm)
                out.extend(dims[axis:axis + span])
                index.append(Ellipsis)
                axis += span
                continue
            if i in nm:
                out.append(Dim(1, 1))
                index.append(None)
                continue
            if axis >= rank:
                raise op_error(f"entry {i} of begin/end/stride indexes axis {axis} of data {data.shape} of rank {rank}",
                               "incompatible-inputs", BEGIN)
            d = dims[axis]
            if i in sm:
                if begins is not None and begins[i][0] == begins[i][1] and d.is_static:
                    shrunk = begins[i][0]
                    if not -d.value <= shrunk < d.value:
                        raise op_error(f"shrunk index {shrunk} is out of range [{-d.value}, {d.value - 1}] for axis {axis} "
                                       f"of data {data.shape}", "bad-value", BEGIN)
                    index.append(shrunk)
                else:
                    index.append(None if begins is None else begins[i][0])
                axis += 1
                continue
            step = strides[i] if strides is not None else None
            if step is None:
                out.append(Dim(0, d.hi))
                index.append(None)
                axis += 1
                continue
            start = (0, 0) if step > 0 else (_MAX, _MAX)
            if i not in bm:
                start = begins[i] if begins is not None else (_MIN, _MAX)
            stop = (_MAX, _MAX) if step > 0 else (_MIN, _MIN)
            if i not in em:
                stop = ends[i] if ends is not None else (_MIN, _MAX)
            if begins is None and i not in bm or ends is None and i not in em:
                out.append(Dim(0, d.hi))
                index.append(None)
            else:
                out.append(_slice_dim(d, start, stop, step))
                index.append(_py_slice(start[0], stop[0], step, d.value) if d.is_static else None)
            axis += 1
        out.extend(dims[axis:])
        shape = PartialShape(tuple(out))
        plan = None
        if data.shape.is_static and strides is not None and begins is not None and ends is not None \
                and all(lo == hi for lo, hi in begins + ends):
            plan = (tuple(index), shape.to_tuple())
        return Inference([TensorInfo(shape, data.etype)], plan)

    def compute(self, plan: tuple[tuple[Any, ...], tuple[int, ...]], data: np.ndarray, *rest: np.ndarray) -> Sequence[np.ndarray]:
        index, shape = plan
        out = np.empty(shape, data.dtype)
        view = data[index]
        if view.shape == out.shape:
            copy_parallel(out, view)  # reversed or strided windows of big tensors on the thread pool
        else:
            np.copyto(out, view.reshape(shape))
        return [out]
