"""YOLO heads: RegionYolo-0 (read as opset1) and ReorgYolo-2.

RegionYolo takes [N, C, H, W] whose channels are, per region, coords box
entries, one objectness and the class scores.  As OpenVINO's reference: the
first two box entries and the objectness go through a sigmoid; with
do_softmax (YOLO v2, ``num`` regions) the class scores get a softmax over the
classes and the output flattens axis..end_axis; without it (YOLO v3, one
region per ``mask`` entry) the class scores get a sigmoid too and the output
has (coords + classes + 1) * len(mask) channels.  Other entries are copied.
Computed in f64 and rounded once (OpenVINO rounds its f32 exp and sums).

ReorgYolo moves each stride x stride block of the spatial dims into channels,
by OpenVINO's reference index formula (it reads the input as
[N, C / stride^2, H * stride, W * stride]).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base.shapes import Dim, PartialShape
from ..framework.accuracy import EXACT
from ..framework.base import REAL, Attr, In, Inference, Op, TensorInfo, normalize_axis, op_error
from ..framework.registry import register


@register
class RegionYolo0(Op):
    type, version = "RegionYolo", 0
    since_opset = 1
    family = "detection"
    summary = "YOLO region head: sigmoid on box centres and objectness, softmax or sigmoid on class scores"
    inputs = (In("data", REAL, rank=4),)
    attributes = {
        "coords": Attr("uint", required=True, doc="box entries per region"),
        "classes": Attr("uint", required=True, doc="class scores per region"),
        "num": Attr("uint", required=True, doc="regions per cell (do_softmax)"),
        "do_softmax": Attr("bool", required=True, doc="YOLO v2 (softmax over classes) or v3 (sigmoid, mask)"),
        "mask": Attr("ints", (), doc="regions (anchors) of this head when do_softmax is false"),
        "axis": Attr("int", 1, doc="first axis flattened with do_softmax"),
        "end_axis": Attr("int", 3, doc="last axis flattened with do_softmax"),
        "anchors": Attr("floats", (), doc="anchor sizes (not used by the computation)"),
    }

    def regions(self) -> int:
        return self.num if self.do_softmax else len(self.mask)

    def infer(self, data: TensorInfo) -> Inference:
        d = data.shape
        if d.dims is None:
            return Inference([TensorInfo(PartialShape(None), data.etype)])
        per = self.coords + self.classes + 1
        need = per * self.regions()
        if d[1].hi is not None and d[1].hi < need:
            raise op_error(f"data {d} has {d[1]} channels; {self.regions()} regions of {self.coords} coords, "
                           f"{self.classes} classes and 1 objectness need {need}", "incompatible-inputs", 0)
        if not self.do_softmax:
            out = PartialShape((d[0], Dim(need, need), d[2], d[3]))
        else:
            axis = normalize_axis(self.axis, 4, "axis", "axis-out-of-range")
            end = normalize_axis(self.end_axis, 4, "end_axis", "axis-out-of-range")
            merged = d[axis]
            for k in range(axis + 1, end + 1):
                merged = merged * d[k]
            out = PartialShape((*d.dims[:axis], merged, *d.dims[max(end, axis) + 1:]))
        return Inference([TensorInfo(out, data.etype)])

    def compute(self, plan: None, data: np.ndarray) -> Sequence[np.ndarray]:
        n, c, h, w = data.shape
        per, regions = self.coords + self.classes + 1, self.regions()
        x = data.astype(np.float64)
        body = x[:, : per * regions].reshape(n, regions, per, h, w).copy()
        with np.errstate(over="ignore"):
            sig = lambda v: 1.0 / (1.0 + np.exp(-v))  # noqa: E731
            body[:, :, 0:2] = sig(body[:, :, 0:2])
            if self.do_softmax:
                body[:, :, self.coords] = sig(body[:, :, self.coords])
                scores = body[:, :, self.coords + 1:]
                e = np.exp(scores - scores.max(axis=2, keepdims=True))
                body[:, :, self.coords + 1:] = e / e.sum(axis=2, keepdims=True)
            else:
                body[:, :, self.coords:] = sig(body[:, :, self.coords:])
        if self.do_softmax:
            out = x.copy()  # channels past the regions are copied
            out[:, : per * regions] = body.reshape(n, per * regions, h, w)
        else:
            out = body.reshape(n, per * regions, h, w)
        if self.do_softmax:
            axis, end = self.axis % 4, self.end_axis % 4
            dims = data.shape
            out = out.reshape(*dims[:axis], int(np.prod(dims[axis:max(end, axis) + 1])), *dims[max(end, axis) + 1:])
        return [out.astype(data.dtype)]


@register
class ReorgYolo2(Op):
    type, version = "ReorgYolo", 2
    accuracy = EXACT  # moves values
    since_opset = 1  # in OpenVINO's opset2 table, but its IR reader creates it for opset1 too
    family = "detection"
    summary = "YOLO v2 reorganisation: stride x stride spatial blocks into channels"
    inputs = (In("data", rank=4),)
    attributes = {"stride": Attr("ints", required=True, doc="block side (the first value is used), > 0")}
    moves_values = True

    def validate(self) -> list:
        if not self.stride or self.stride[0] < 1:
            return [op_error(f"stride {list(self.stride)} must start with a positive value", "bad-attribute")]
        return []

    def infer(self, data: TensorInfo) -> Inference:
        d = data.shape
        if d.dims is None:
            return Inference([TensorInfo(PartialShape(None), data.etype)])
        s = self.stride[0]
        c = d[1]
        if c.is_static and c.value % (s * s):
            raise op_error(f"channels {c.value} of the data {d} are not a multiple of stride^2 = {s * s}",
                           "incompatible-inputs", 0)
        space = []
        for k in (2, 3):
            lo, hi = -(-d[k].lo // s), None if d[k].hi is None else d[k].hi // s
            if hi is not None and hi < lo:
                raise op_error(f"dim {k} ({d[k]}) of the data {d} is not a multiple of the stride {s}",
                               "incompatible-inputs", 0)
            space.append(Dim(lo, hi))
        out = PartialShape((d[0], c * (s * s), *space))
        return Inference([TensorInfo(out, data.etype)])

    def compute(self, plan: None, data: np.ndarray) -> Sequence[np.ndarray]:
        n, c, h, w = data.shape
        s = self.stride[0]
        oc = c // (s * s)
        v = data.reshape(n, oc, h, s, w, s)  # the input read as [N, C/s^2, H*s, W*s]
        out = np.ascontiguousarray(v.transpose(0, 3, 5, 1, 2, 4)).reshape(n, c, h, w)
        return [out.reshape(n, c * s * s, h // s, w // s)]
