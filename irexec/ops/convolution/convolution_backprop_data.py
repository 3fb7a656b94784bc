"""ConvolutionBackpropData-1 and GroupConvolutionBackpropData-1 (transposed
convolution) on 1-D, 2-D and 3-D data.

The kernel is one (batched) matmul of the filters with the input, giving every
kernel offset's contribution, then one strided add per offset into the full
result of length ``stride * (in - 1) + dilation * (k - 1) + 1`` per axis; the
output is the window of it starting at ``pads_begin`` (zeros past its end, so
``output_padding`` and an ``output_shape`` longer than the full result read
zeros there).  Pads follow OpenVINO's shape inference: explicit pads as given
(also with ``output_shape``), ``valid`` none, and ``same_upper``/``same_lower``
with ``output_shape`` split the total padding with the bigger half at the
begin (same_upper) or the end (same_lower); without ``output_shape`` they pad
nothing.  Sums in f32 (f64 for f64 data), integers in their own type.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...base.shapes import DYNAMIC, Dim, PartialShape
from ...kernels.windows import accumulator
from ..framework.base import INTEGRAL, NUMERIC, Attr, In, Inference, Op, TensorInfo, op_error, same_as
from ..framework.helpers import value_dims
from ..framework.registry import register
from ..framework.spatial import AUTO_PAD, check_spatial, dilated, spatial_axes

DATA, FILTERS, OUTPUT_SHAPE = 0, 1, 2


@dataclass(frozen=True)
class DeconvPlan:
    pads_begin: tuple[int, ...]
    out_spatial: tuple[int, ...]
    groups: int


def _shift(d: Dim, by: int) -> Dim:
    """``d + by`` with both bounds clamped at 0, as OpenVINO pads a dim."""
    return Dim(max(d.lo + by, 0), None if d.hi is None else max(d.hi + by, 0))


def _at_least_one(d: Dim) -> Dim:
    # an unknown filter dim is at least 1 long
    return Dim(max(d.lo, 1), d.hi if d.hi is None else max(d.hi, 1))


class _DeconvBase(Op):
    family = "convolution"
    attributes = {
        "strides": Attr("ints", required=True, doc="one positive stride per spatial axis"),
        "dilations": Attr("ints", required=True, doc="one positive dilation per spatial axis"),
        "pads_begin": Attr("ints", (), doc="pads cut from the begin of each spatial axis (explicit auto_pad)"),
        "pads_end": Attr("ints", (), doc="pads cut from the end of each spatial axis (explicit auto_pad)"),
        "auto_pad": AUTO_PAD,
        "output_padding": Attr("ints", (), doc="extra elements at the end of each spatial axis (default 0)"),
    }
    grouped = False

    def _n(self, data: TensorInfo, filters: TensorInfo, out_shape: TensorInfo | None) -> int:
        n = spatial_axes(data, filters, self.grouped, self.strides, self.dilations, "transposed convolution")
        if self.output_padding:
            check_spatial("output_padding", self.output_padding, n, positive=False, port=None)
            if any(p < 0 for p in self.output_padding):
                raise op_error(f"output_padding {list(self.output_padding)} must not be negative", "bad-attribute")
        if self.auto_pad in ("explicit", "notset"):
            check_spatial("pads_begin", self.pads_begin, n, positive=False, port=None)
            check_spatial("pads_end", self.pads_end, n, positive=False, port=None)
        if out_shape is not None and out_shape.shape.rank is not None:
            if out_shape.shape.rank != 1:
                raise op_error(f"output_shape must be 1-D, got {out_shape.shape}", "bad-input-rank", OUTPUT_SHAPE)
            length = out_shape.shape[0]
            if length.is_static and length.value != n:
                raise op_error(f"output_shape {out_shape.shape} must hold one value per spatial axis ({n})",
                               "bad-shape", OUTPUT_SHAPE)
        return n

    def infer(self, data: TensorInfo, filters: TensorInfo, out_shape: TensorInfo | None = None) -> Inference:
        n = self._n(data, filters, out_shape)
        etype = data.etype if data.known_type else filters.etype
        dd = data.shape.dims or (DYNAMIC,) * (n + 2)
        fd = filters.shape.dims or (DYNAMIC,) * (n + 2 + (1 if self.grouped else 0))
        if self.grouped:
            g, cg, og = fd[0], fd[1], fd[2]
            c_out = g * og
            c_in = dd[1]
            if c_in.is_static and g.is_static and cg.is_static and c_in.value != g.value * cg.value:
                raise op_error(f"data has {c_in.value} channels but filters {filters.shape} expect "
                               f"{g.value} groups x {cg.value} = {g.value * cg.value}", "incompatible-inputs", FILTERS)
            if g.is_static and g.value == 0:
                raise op_error(f"filters {filters.shape} have zero groups", "bad-shape", FILTERS)
        else:
            c_out = fd[1]
            if not dd[1].compatible(fd[0]):
                raise op_error(f"data {data.shape} has {dd[1]} channels but filters {filters.shape} expect {fd[0]}",
                               "incompatible-inputs", FILTERS)
        op_pad = list(self.output_padding) or [0] * n
        ksp = fd[-n:]
        # full (uncut) length per axis
        full = [_shift(dd[2 + i], -1) * self.strides[i] + _at_least_one(dilated(ksp[i], self.dilations[i]))
                for i in range(n)]
        same = self.auto_pad in ("same_upper", "same_lower")
        given: list[Dim | int] | None = None
        if out_shape is not None:
            given = value_dims(out_shape)
            if given is not None and len(given) != n:
                raise op_error(f"output_shape holds {len(given)} values for {n} spatial axes", "bad-shape", OUTPUT_SHAPE)
            if given is not None:
                for v in given:
                    if isinstance(v, int) and v < 0:
                        raise op_error(f"output_shape {given} must not be negative", "bad-value", OUTPUT_SHAPE)
        spatial: list[Dim] = []
        pb: list[int] = []
        for i in range(n):
            if out_shape is not None:
                v = given[i] if given is not None else DYNAMIC
                spatial.append(Dim(v, v) if isinstance(v, int) else v)
                if same:
                    if full[i].is_static and isinstance(v, int):
                        total = max(full[i].value - v + op_pad[i], 0)
                        pb.append(total - total // 2 if self.auto_pad == "same_upper" else total // 2)
                elif self.auto_pad == "valid":
                    pb.append(0)
                else:
                    pb.append(self.pads_begin[i])
                continue
            b, e = (self.pads_begin[i], self.pads_end[i]) if self.auto_pad in ("explicit", "notset") else (0, 0)
            pb.append(b)
            f = full[i]
            dim = _shift(f, op_pad[i] - b - e)
            if dim.hi is not None and dim.hi < 1:
                raise op_error(f"spatial axis {i} of the output would be {dim} long (data {data.shape}, filters "
                               f"{filters.shape}, pads {b},{e}, output_padding {op_pad[i]})", "bad-shape", DATA)
            spatial.append(dim)
        shape = PartialShape((dd[0], c_out, *spatial))
        plan = None
        if shape.is_static and len(pb) == n and data.shape.is_static and filters.shape.is_static:
            plan = DeconvPlan(tuple(pb), shape.to_tuple()[2:], fd[0].value if self.grouped else 1)
        return Inference([TensorInfo(shape, etype)], plan)

    def fold_work(self, inputs: Sequence[TensorInfo], inference: Inference) -> int | None:
        """Every (filter tap, input position) contribution is held at once."""
        plan, base = inference.plan, super().fold_work(inputs, inference)
        if not isinstance(plan, DeconvPlan) or base is None:
            return None
        data, filters = inputs[0].shape.to_tuple(), inputs[1].shape.to_tuple()
        return base + 2 * math.prod(data) * math.prod(filters) + 2 * math.prod(inference.outputs[0].shape.to_tuple())

    def compute(self, plan: DeconvPlan, data: np.ndarray, filters: np.ndarray, *rest: np.ndarray) -> list[np.ndarray]:
        n, c = data.shape[:2]
        w = filters if self.grouped else filters[None]  # [G, Cg, Og, *k]
        g, cg, og = w.shape[:3]
        kernel = w.shape[3:]
        sp = len(kernel)
        ins = data.shape[2:]
        out = np.zeros((n, g * og, *plan.out_spatial), data.dtype)
        if out.size == 0 or data.size == 0 or w.size == 0:
            return [out]
        acc = accumulator(data.dtype)
        k = math.prod(kernel)
        p = math.prod(ins)
        wm = np.ascontiguousarray(np.moveaxis(w.reshape(g, cg, og, k), 1, 3), dtype=acc).reshape(g, og * k, cg)
        xm = np.ascontiguousarray(data.reshape(n, g, cg, p).transpose(1, 2, 0, 3), dtype=acc).reshape(g, cg, n * p)
        contrib = np.matmul(wm, xm).reshape(g, og, k, n, *ins)  # every offset's contribution
        contrib = np.moveaxis(contrib, 3, 0).reshape(n, g * og, k, *ins)
        res = np.zeros((n, g * og, *plan.out_spatial), acc)
        for j, offs in enumerate(np.ndindex(*kernel)):
            # input position i lands at full position i*s + o*d, i.e. output i*s + o*d - pb
            src: list[slice] = []
            dst: list[slice] = []
            for a in range(sp):
                s, start = self.strides[a], offs[a] * self.dilations[a] - plan.pads_begin[a]
                m = plan.out_spatial[a]
                lo = -(start // s) if start < 0 else 0  # first input index landing at >= 0: ceil(-start / s)
                hi = min(ins[a], (m - 1 - start) // s + 1) if m - 1 - start >= 0 else 0
                if hi <= lo:
                    break
                src.append(slice(lo, hi))
                dst.append(slice(lo * s + start, (hi - 1) * s + start + 1, s))
            else:
                res[tuple([slice(None), slice(None), *dst])] += contrib[tuple([slice(None), slice(None), j, *src])]
        out[...] = res
        return [out]


@register
class ConvolutionBackpropData1(_DeconvBase):
    type, version = "ConvolutionBackpropData", 1
    summary = "transposed convolution of data [N,C_IN,...] with filters [C_IN,C_OUT,...]"
    inputs = (In("data", NUMERIC, rank=(3, 5)), In("filters", same_as("data"), rank=(3, 5)),
              In("output_shape", INTEGRAL, optional=True, value=True))


@register
class GroupConvolutionBackpropData1(_DeconvBase):
    type, version = "GroupConvolutionBackpropData", 1
    summary = "grouped transposed convolution: filters [GROUPS,C_IN/G,C_OUT/G,...]"
    inputs = (In("data", NUMERIC, rank=(3, 5)), In("filters", same_as("data"), rank=(4, 6)),
              In("output_shape", INTEGRAL, optional=True, value=True))
    grouped = True
