"""DeformableConvolution-1 and -8: 2-D convolution whose every tap samples the
input at its position plus a learned offset (bilinear interpolation), -8 with
an optional mask weighting each sample and the choice of reading zeros around
the border (bilinear_interpolation_pad).  The kernel is
irexec/kernels/deformable.py; f64 sums, rounded once to the data type."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ...base.shapes import DYNAMIC, Dim, PartialShape
from ...kernels.deformable import deformable_conv2d
from ..framework.base import REAL, Attr, In, Inference, Op, TensorInfo, op_error, same_as
from ..framework.registry import register
from ..framework.spatial import AUTO_PAD, auto_pad_count, check_spatial, dilated, same_pads, window_count

DATA, OFFSETS, FILTERS, MASK = range(4)


@dataclass(frozen=True)
class DeformPlan:
    pads_begin: tuple[int, int]
    out_hw: tuple[int, int]


class _Deformable(Op):
    family = "convolution"
    inputs: ClassVar[tuple[In, ...]] = (In("data", REAL, rank=4), In("offsets", same_as("data"), rank=4),
                                        In("filters", same_as("data"), rank=4))
    attributes = {
        "strides": Attr("ints", (1, 1), doc="one positive stride per spatial axis"),
        "dilations": Attr("ints", (1, 1), doc="one positive dilation per spatial axis"),
        "pads_begin": Attr("ints", (0, 0), doc="pads before each spatial axis (explicit auto_pad)"),
        "pads_end": Attr("ints", (0, 0), doc="pads after each spatial axis (explicit auto_pad)"),
        "auto_pad": AUTO_PAD,
        "group": Attr("int", 1, required=True, doc="groups of input and output channels"),
        "deformable_group": Attr("int", 1, required=True, doc="groups of input channels sharing one set of offsets"),
    }

    def validate(self) -> list:
        errors = []
        for name in ("group", "deformable_group"):
            if getattr(self, name) < 1:
                errors.append(op_error(f"{name}={getattr(self, name)} must be at least 1", "bad-attribute"))
        return errors

    def infer(self, data: TensorInfo, offsets: TensorInfo, filters: TensorInfo, mask: TensorInfo | None = None) -> Inference:
        check_spatial("strides", self.strides, 2, port=None)
        check_spatial("dilations", self.dilations, 2, port=None)
        if self.auto_pad in ("explicit", "notset"):
            check_spatial("pads_begin", self.pads_begin, 2, positive=False, port=None)
            check_spatial("pads_end", self.pads_end, 2, positive=False, port=None)
        g, dg = self.group, self.deformable_group
        if data.shape.rank is None:  # OpenVINO infers nothing then
            return Inference([TensorInfo(PartialShape(None), data.etype)])
        dd = data.shape.dims or ()  # the rank is known
        od = offsets.shape.dims or (DYNAMIC,) * 4
        fd = filters.shape.dims or (DYNAMIC,) * 4
        md = (mask.shape.dims or (DYNAMIC,) * 4) if mask is not None else None
        if dd[1].is_static and fd[1].is_static and dd[1].value != g * fd[1].value:
            raise op_error(f"data has {dd[1].value} channels but filters {filters.shape} with group={g} expect "
                           f"{g * fd[1].value}", "incompatible-inputs", FILTERS)
        if dd[1].is_static and dd[1].value % dg:
            raise op_error(f"data's {dd[1].value} channels do not divide into deformable_group={dg}",
                           "incompatible-inputs", DATA)
        if fd[0].is_static and fd[0].value % g:
            raise op_error(f"filters' {fd[0].value} output channels do not divide into group={g}",
                           "incompatible-inputs", FILTERS)
        taps = fd[2] * fd[3]
        if not od[1].compatible(taps * (2 * dg)):
            raise op_error(f"offsets {offsets.shape} must have deformable_group x kh x kw x 2 = {taps * (2 * dg)} "
                           f"channels", "incompatible-inputs", OFFSETS)
        if md is not None and not md[1].compatible(taps * dg):
            assert mask is not None
            raise op_error(f"mask {mask.shape} must have deformable_group x kh x kw = {taps * dg} channels",
                           "incompatible-inputs", MASK)
        batch = dd[0]
        for info, dims, port in ((offsets, od, OFFSETS), (mask, md, MASK)):
            if dims is None or info is None:
                continue
            merged = batch.intersect(dims[0])
            if merged is None:
                raise op_error(f"{info.shape} and data {data.shape} differ in the batch dim", "incompatible-inputs", port)
            batch = merged
        out: list[Dim] = [batch, fd[0]]
        pb: list[int] = []
        for i in range(2):
            dim, s, d = dd[2 + i], self.strides[i], self.dilations[i]
            if self.auto_pad in ("same_upper", "same_lower"):
                out.append(auto_pad_count(dim, s))
                if dim.is_static and fd[2 + i].is_static:
                    pb.append(same_pads(dim.value, fd[2 + i].value, s, d, self.auto_pad == "same_upper")[0])
                continue
            b, e = (0, 0) if self.auto_pad == "valid" else (self.pads_begin[i], self.pads_end[i])
            pb.append(b)
            out.append(window_count(dim, dilated(fd[2 + i], d), s, b, e, "floor", i, "filter"))
        for info, dims, port in ((offsets, od, OFFSETS), (mask, md, MASK)):
            if dims is None or info is None:
                continue
            for i in range(2):  # compared, not merged: OpenVINO takes the output's dims from data alone
                if not out[2 + i].compatible(dims[2 + i]):
                    raise op_error(f"{info.shape} must have the output's spatial dims {PartialShape(tuple(out[2:]))}",
                                   "incompatible-inputs", port)
        shape = PartialShape(tuple(out))
        plan = None
        if shape.is_static and len(pb) == 2:
            plan = DeformPlan((pb[0], pb[1]), (out[2].value, out[3].value))
        return Inference([TensorInfo(shape, data.etype)], plan)

    def compute(self, plan: DeformPlan, data: np.ndarray, offsets: np.ndarray, filters: np.ndarray,
                *rest: np.ndarray) -> Sequence[np.ndarray]:
        mask = rest[0] if rest else None
        out = deformable_conv2d(data, offsets, filters, mask, self.strides, self.dilations, plan.pads_begin, plan.out_hw,
                                self.group, self.deformable_group, getattr(self, "bilinear_interpolation_pad", False))
        return [out.astype(data.dtype)]


@register
class DeformableConvolution1(_Deformable):
    type, version = "DeformableConvolution", 1
    summary = "2-D convolution sampling the input at learned offsets (bilinear)"


@register
class DeformableConvolution8(_Deformable):
    type, version = "DeformableConvolution", 8
    summary = "DeformableConvolution with an optional mask and zero padding for the bilinear samples"
    inputs: ClassVar[tuple[In, ...]] = (*_Deformable.inputs, In("mask", REAL, rank=4, optional=True))
    attributes = {**_Deformable.attributes,
                  "bilinear_interpolation_pad": Attr("bool", False, doc="samples near the border read zeros outside")}
