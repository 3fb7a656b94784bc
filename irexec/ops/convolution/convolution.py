"""Convolution-1 and GroupConvolution-1 on 1-D, 2-D and 3-D data: im2col
tiles multiplied through BLAS (``irexec.kernels.windows.conv_nd``).

f32 is computed in f32 (f16/bf16 accumulate in f32 and round once, f64 in
f64); integer data in its own type with wrap-around.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...base.shapes import DYNAMIC, Dim, PartialShape
from ...kernels.windows import conv_nd
from ..framework.base import NUMERIC, Attr, In, Inference, Op, TensorInfo, op_error, same_as
from ..framework.registry import register
from ..framework.spatial import AUTO_PAD, auto_pad_count, check_spatial, dilated, same_pads, spatial_axes, window_count

DATA, FILTERS = 0, 1


@dataclass(frozen=True)
class ConvPlan:
    pads_begin: tuple[int, ...]
    pads_end: tuple[int, ...]
    out_spatial: tuple[int, ...]
    groups: int


class _ConvBase(Op):
    family = "convolution"
    attributes = {
        "strides": Attr("ints", required=True, doc="one positive stride per spatial axis"),
        "dilations": Attr("ints", required=True, doc="one positive dilation per spatial axis"),
        "pads_begin": Attr("ints", (), doc="pads before each spatial axis (explicit auto_pad)"),
        "pads_end": Attr("ints", (), doc="pads after each spatial axis (explicit auto_pad)"),
        "auto_pad": AUTO_PAD,
    }
    grouped = False

    def _spatial_count(self, data: TensorInfo, filters: TensorInfo) -> int:
        n = spatial_axes(data, filters, self.grouped, self.strides, self.dilations, "convolution")
        if self.auto_pad in ("explicit", "notset"):
            check_spatial("pads_begin", self.pads_begin, n, positive=False, port=None)
            check_spatial("pads_end", self.pads_end, n, positive=False, port=None)
        return n

    def infer(self, data: TensorInfo, filters: TensorInfo) -> Inference:
        n = self._spatial_count(data, filters)
        etype = data.etype if data.known_type else filters.etype
        dd = data.shape.dims or (DYNAMIC,) * (n + 2)
        fd = filters.shape.dims or (DYNAMIC,) * (n + 2 + (1 if self.grouped else 0))
        if self.grouped:
            g, og, cg = fd[0], fd[1], fd[2]
            c_out = g * og
            c_in_need = g * cg
        else:
            g, c_out, c_in_need = Dim(1, 1), fd[0], fd[1]
        c_in = dd[1]
        if self.grouped and c_in.is_static and cg.is_static and g.is_static:
            if c_in.value != g.value * cg.value:
                raise op_error(f"data has {c_in.value} channels but filters {filters.shape} expect "
                               f"{g.value} groups x {cg.value} = {g.value * cg.value}", "incompatible-inputs", FILTERS)
        elif not self.grouped and not c_in.compatible(c_in_need):
            raise op_error(f"data {data.shape} has {c_in} input channels but filters {filters.shape} expect {c_in_need}",
                           "incompatible-inputs", FILTERS)
        if self.grouped and g.is_static and g.value == 0:
            raise op_error(f"filters {filters.shape} have zero groups", "bad-shape", FILTERS)
        ksp = fd[-n:]
        out: list[Dim] = [dd[0], c_out]
        pb: list[int] = []
        pe: list[int] = []
        for i in range(n):
            dim, s, d = dd[2 + i], self.strides[i], self.dilations[i]
            if self.auto_pad in ("same_upper", "same_lower"):
                out.append(auto_pad_count(dim, s))
                if dim.is_static and ksp[i].is_static:
                    b, e = same_pads(dim.value, ksp[i].value, s, d, self.auto_pad == "same_upper")
                    pb.append(b)
                    pe.append(e)
                continue
            b, e = (0, 0) if self.auto_pad == "valid" else (self.pads_begin[i], self.pads_end[i])
            pb.append(b)
            pe.append(e)
            out.append(window_count(dim, dilated(ksp[i], d), s, b, e, "floor", i, "filter"))
        shape = PartialShape(tuple(out))
        plan = None
        if shape.is_static and len(pb) == n and data.shape.is_static and filters.shape.is_static:
            groups = fd[0].value if self.grouped else 1
            plan = ConvPlan(tuple(pb), tuple(pe), shape.to_tuple()[2:], groups)
        return Inference([TensorInfo(shape, etype)], plan)

    def fold_work(self, inputs: Sequence[TensorInfo], inference: Inference) -> int | None:
        """The pads size the padded copy and the windows the im2col tiles, not
        the inputs: a 2x2 map with pads 10000 is a 20002x20002 copy."""
        plan, base = inference.plan, super().fold_work(inputs, inference)
        if not isinstance(plan, ConvPlan) or base is None:
            return None
        data, filters = (i.shape.to_tuple() for i in inputs)
        n, c = data[:2]
        padded = math.prod(max(0, d + b + e) for d, b, e in zip(data[2:], plan.pads_begin, plan.pads_end))
        windows = math.prod(plan.out_spatial) * math.prod(filters[-len(plan.out_spatial):])
        return base + n * c * (padded + windows)

    def compute(self, plan: ConvPlan, data: np.ndarray, filters: np.ndarray) -> list[np.ndarray]:
        return [self.compute_into(plan, data, filters)]

    def compute_into(self, plan: ConvPlan, data: np.ndarray, filters: np.ndarray, into: np.ndarray | None = None,
                     relu: bool = False) -> np.ndarray:
        """The output written into ``into`` when given, followed by a ReLU when
        ``relu`` (float data): what a run's fused steps call (executor/fusions.py)."""
        w = filters if self.grouped else filters[None]
        return conv_nd(data, w, plan.groups, self.strides, self.dilations, plan.out_spatial, data.dtype,
                       (plan.pads_begin, plan.pads_end), into=into, relu=relu)


@register
class Convolution1(_ConvBase):
    type, version = "Convolution", 1
    summary = "N-D convolution of data [N,C_IN,...] with filters [C_OUT,C_IN,...]"
    inputs = (In("data", NUMERIC, rank=(3, 5)), In("filters", same_as("data"), rank=(3, 5)))


@register
class GroupConvolution1(_ConvBase):
    type, version = "GroupConvolution", 1
    summary = "grouped convolution: filters [GROUPS,C_OUT/G,C_IN/G,...]"
    inputs = (In("data", NUMERIC, rank=(3, 5)), In("filters", same_as("data"), rank=(4, 6)))
    grouped = True

