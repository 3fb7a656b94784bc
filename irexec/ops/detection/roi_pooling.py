"""Pooling over regions of interest: ROIPooling-0 (read as opset1/opset2) and
PSROIPooling-1 (position-sensitive, R-FCN).

ROIs are [NUM_ROIS, 5] rows [batch_id, x1, y1, x2, y2].  Bin bounds and
sample points follow OpenVINO's reference in f32, so which pixels a bin reads
is exact; max pooling is exact, averages and bilinear interpolations are
computed in f32 (f16/bf16 widened) as the reference orders them.

ROIPooling max: coordinates scaled by spatial_scale and rounded (half away
from zero), at least 1x1; bin [floor(i*h/ph), ceil((i+1)*h/ph)) clipped to
the map; an empty bin is 0.  ROIPooling bilinear: normalised coordinates,
the corners of the output grid on the ROI's corners.

PSROIPooling average: output channel c, bin (i, j) averages input channel
(c * group + i) * group + j over the bin of the rounded ROI (x2, y2
inclusive); bilinear: spatial_bins_x * spatial_bins_y samples, each from
input channel (bin * output_dim + c), averaged.  A bin start past the map is
clamped to its last pixel, as the reference's unsigned arithmetic does for
ROIs inside the map.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ...base import limits
from ...base.shapes import DYNAMIC, Dim, PartialShape
from ..framework.base import REAL, Attr, Enum, In, Inference, Op, TensorInfo, op_error
from ..framework.registry import register

f32 = np.float32
DATA, ROIS = 0, 1


def _round_half_away(x: np.float32) -> float:
    v = min(max(float(x), -2.0 ** 62), 2.0 ** 62)  # a coordinate scaled past f32's range is infinite
    return float(math.copysign(math.floor(abs(v) + 0.5), v))


def _check_rois(rois: TensorInfo, data: TensorInfo) -> Dim:
    """The ROI count; the batch ids checked when the ROIs are known."""
    r = rois.shape
    if r.dims is None:
        return DYNAMIC
    if not r[1].contains(5):
        raise op_error(f"rois must be [NUM_ROIS, 5] (batch id, x1, y1, x2, y2), got shape {r}", "incompatible-inputs",
                       ROIS)
    v = rois.value()
    d = data.shape
    finite_rois(v)
    if v is not None and v.size and d.dims is not None and d[0].hi is not None:
        ids = np.trunc(np.asarray(v, np.float64)[:, 0])
        bad = np.flatnonzero((ids < 0) | (ids >= d[0].hi))
        if bad.size:
            k = int(bad[0])
            raise op_error(f"rois[{k}] has batch id {v[k, 0]}, outside [0, {d[0].hi - 1}] (data shape {d})",
                           "bad-value", ROIS)
    return r[0]


def _floor(v: float) -> int:
    """math.floor clamped to +-2^62 (an f32 bin bound past f32's range is infinite)."""
    return math.floor(min(max(float(v), -2.0 ** 62), 2.0 ** 62))


def _ceil(v: float) -> int:
    return math.ceil(min(max(float(v), -2.0 ** 62), 2.0 ** 62))


def finite_rois(v: np.ndarray | None) -> None:
    """ROI coordinates (known) must be numbers: a bin of NaN or infinite bounds has no pixels to read."""
    if v is not None and v.size and not np.isfinite(np.asarray(v, np.float64)).all():
        k = int(np.flatnonzero(~np.isfinite(np.asarray(v, np.float64)).all(axis=-1))[0])
        raise op_error(f"rois[{k}] = {np.asarray(v)[k].tolist()} is not finite", "bad-value", ROIS)


def _scale_ok(scale: float) -> list:
    if not (math.isfinite(scale) and scale > 0 and abs(scale) >= np.finfo(np.float32).tiny):
        return [op_error(f"spatial_scale={scale} must be a positive normal number", "bad-attribute")]
    return []


@register
class ROIPooling0(Op):
    type, version = "ROIPooling", 0
    since_opset = 1
    family = "detection"
    summary = "max or bilinear pooling of each ROI to a fixed grid"
    inputs = (In("data", REAL, rank=4), In("rois", REAL, rank=2, value=True))
    attributes = {
        "output_size": Attr("ints", (), doc="[pooled_h, pooled_w] (also output_roi; pooled_h/pooled_w win)"),
        "output_roi": Attr("ints", (), doc="the same as output_size"),
        "pooled_h": Attr("int", None, doc="output bins along y"),
        "pooled_w": Attr("int", None, doc="output bins along x"),
        "spatial_scale": Attr("float", 0.0, doc="multiplies the ROI coordinates, > 0"),
        "method": Enum("max", "bilinear", doc="max over the bin, or bilinear at the grid points"),
    }

    def pooled(self) -> list[int]:
        size = [0, 0]
        if self.output_size:
            size = list(self.output_size)
        if self.output_roi:
            size = list(self.output_roi)
        if self.pooled_h is not None and size:
            size[0] = self.pooled_h
        if self.pooled_w is not None and len(size) > 1:
            size[1] = self.pooled_w
        return size

    def validate(self) -> list:
        size = self.pooled()
        errors = _scale_ok(self.spatial_scale)
        if len(size) != 2 or min(size) < 1:
            errors.append(op_error(f"the pooled size {size} must be two positive values (pooled_h, pooled_w)",
                                   "bad-attribute"))
        return errors

    def infer(self, data: TensorInfo, rois: TensorInfo) -> Inference:
        n = _check_rois(rois, data)
        ph, pw = self.pooled()
        c = data.shape[1] if data.shape.dims is not None else DYNAMIC
        return Inference([TensorInfo(PartialShape((n, c, Dim(ph, ph), Dim(pw, pw))), data.etype)])

    def compute(self, plan: None, data: np.ndarray, rois: np.ndarray) -> Sequence[np.ndarray]:
        ph, pw = self.pooled()
        _, c, h, w = data.shape
        x = data.astype(np.float32)
        out = np.zeros((rois.shape[0], c, ph, pw), np.float32)
        for r, roi in enumerate(rois.astype(np.float32)):
            b = int(roi[0])
            if self.method == "max":
                self._max(out[r], x[b], roi, h, w, ph, pw)
            else:
                self._bilinear(out[r], x[b], roi, h, w, ph, pw)
        return [out.astype(data.dtype)]

    def _max(self, out: np.ndarray, fmap: np.ndarray, roi: np.ndarray, h: int, w: int, ph: int, pw: int) -> None:
        scale = f32(self.spatial_scale)
        x1, y1, x2, y2 = (int(_round_half_away(f32(v * scale))) for v in roi[1:])
        bin_h = f32(f32(max(y2 - y1 + 1, 1)) / f32(ph))
        bin_w = f32(f32(max(x2 - x1 + 1, 1)) / f32(pw))
        for i in range(ph):
            hs = min(max(_floor(f32(i) * bin_h) + y1, 0), h)
            he = min(max(_ceil(f32(i + 1) * bin_h) + y1, 0), h)
            for j in range(pw):
                ws = min(max(_floor(f32(j) * bin_w) + x1, 0), w)
                we = min(max(_ceil(f32(j + 1) * bin_w) + x1, 0), w)
                if he > hs and we > ws:
                    out[:, i, j] = fmap[:, hs:he, ws:we].max(axis=(1, 2))

    def _bilinear(self, out: np.ndarray, fmap: np.ndarray, roi: np.ndarray, h: int, w: int, ph: int, pw: int) -> None:
        x1, y1, x2, y2 = roi[1:]
        hm1, wm1 = f32(h - 1), f32(w - 1)
        rh, rw = f32((y2 - y1) * hm1), f32((x2 - x1) * wm1)
        sh = f32(rh / f32(ph - 1)) if ph > 1 else f32(0)
        sw = f32(rw / f32(pw - 1)) if pw > 1 else f32(0)
        for i in range(ph):
            if ph > 1:
                y = f32(hm1 * y2) if i == ph - 1 else f32(f32(i) * sh + f32(y1 * hm1))
            else:
                y = f32(0.5 * float(f32(y1 + y2)) * float(hm1))
            for j in range(pw):
                if pw > 1:
                    xx = f32(wm1 * x2) if j == pw - 1 else f32(f32(j) * sw + f32(x1 * wm1))
                else:
                    xx = f32(0.5 * float(f32(x2 + x1)) * float(wm1))
                if y < 0 or y > hm1 or xx < 0 or xx > wm1:
                    continue
                top, left = _floor(y), _floor(xx)
                bottom, right = min(_ceil(y), h - 1), min(_ceil(xx), w - 1)
                fx, fy = f32(xx - f32(left)), f32(y - f32(top))
                tl, tr, bl, br = fmap[:, top, left], fmap[:, top, right], fmap[:, bottom, left], fmap[:, bottom, right]
                t = tl + (tr - tl) * fx
                bt = bl + (br - bl) * fx
                out[:, i, j] = t + (bt - t) * fy


@register
class PSROIPooling1(Op):
    type, version = "PSROIPooling", 1
    since_opset = 1
    family = "detection"
    summary = "position-sensitive ROI pooling: each output bin from its own group of channels"
    inputs = (In("data", REAL, rank=4), In("rois", REAL, rank=2, value=True))
    attributes = {
        "output_dim": Attr("int", required=True, doc="output channels"),
        "group_size": Attr("int", 1, doc="output bins per side (average mode), > 0"),
        "spatial_scale": Attr("float", required=True, doc="multiplies the ROI coordinates, > 0"),
        "mode": Enum("average", "bilinear", doc="bin average or bilinear samples"),
        "spatial_bins_x": Attr("int", 1, doc="samples along x (bilinear)"),
        "spatial_bins_y": Attr("int", 1, doc="samples along y (bilinear)"),
    }

    def validate(self) -> list:
        errors = _scale_ok(self.spatial_scale)
        if self.group_size < 1:
            errors.append(op_error(f"group_size={self.group_size} must be positive", "bad-attribute"))
        if self.mode == "bilinear" and min(self.spatial_bins_x, self.spatial_bins_y) < 1:
            errors.append(op_error("spatial_bins_x and spatial_bins_y must be positive", "bad-attribute"))
        if self.output_dim < 0:
            errors.append(op_error(f"output_dim={self.output_dim} must not be negative", "bad-attribute"))
        return errors

    def infer(self, data: TensorInfo, rois: TensorInfo) -> Inference:
        d = data.shape
        if d.dims is not None:
            area = self.group_size ** 2 if self.mode == "average" else self.spatial_bins_x * self.spatial_bins_y
            if not d[1].contains(area * self.output_dim):
                raise op_error(f"data {d} must have output_dim * {'group_size^2' if self.mode == 'average' else 'bins'}"
                               f" = {area * self.output_dim} channels", "incompatible-inputs", DATA)
        n = _check_rois(rois, data)
        g = Dim(self.group_size, self.group_size)
        return Inference([TensorInfo(PartialShape((n, Dim(self.output_dim, self.output_dim), g, g)), data.etype)])

    def compute(self, plan: None, data: np.ndarray, rois: np.ndarray) -> Sequence[np.ndarray]:
        g, dim = self.group_size, self.output_dim
        _, _, h, w = data.shape
        x = data.astype(np.float32)
        out = np.zeros((rois.shape[0], dim, g, g), np.float32)
        scale = f32(self.spatial_scale)
        for r, roi in enumerate(rois.astype(np.float32)):
            fmap = x[int(roi[0])]
            if self.mode == "average":
                sw, sh = (f32(_round_half_away(roi[k]) * scale) for k in (1, 2))
                ew, eh = (f32(f32(_round_half_away(roi[k]) + 1) * scale) for k in (3, 4))
                bw, bh = f32(f32(ew - sw) / f32(g)), f32(f32(eh - sh) / f32(g))
                for i in range(g):
                    hs = min(max(_floor(f32(sh + f32(i) * bh)), 0), h - 1)
                    he = min(_ceil(f32(sh + f32(i + 1) * bh)), h)
                    for j in range(g):
                        ws = min(max(_floor(f32(sw + f32(j) * bw)), 0), w - 1)
                        we = min(_ceil(f32(sw + f32(j + 1) * bw)), w)
                        chans = np.arange(dim) * g * g + i * g + j
                        region = fmap[chans, hs:he, ws:we].astype(np.float64)
                        with np.errstate(all="ignore"):
                            out[r, :, i, j] = region.sum(axis=(1, 2)) / max((he - hs) * (we - ws), 0)
            else:
                self._bilinear(out[r], fmap, roi, h, w)
        return [out.astype(data.dtype)]

    def _bilinear(self, out: np.ndarray, fmap: np.ndarray, roi: np.ndarray, h: int, w: int) -> None:
        g, dim, bx, by = self.group_size, self.output_dim, self.spatial_bins_x, self.spatial_bins_y
        limits.require(8 * g * g * bx * by * dim, f"PSROIPooling's {bx}x{by} samples per bin")
        scale = f32(self.spatial_scale)
        sw, sh, ew, eh = (f32(v * scale) for v in roi[1:])
        bin_w, bin_h = f32(f32(ew - sw) / f32(bx)), f32(f32(eh - sh) / f32(by))
        ws = f32(f32(bin_w * f32(w - 1)) / f32(g - 1)) if g > 1 else f32(0)
        hs = f32(f32(bin_h * f32(h - 1)) / f32(g - 1)) if g > 1 else f32(0)
        for i in range(g):
            for j in range(g):
                acc = np.zeros(dim, np.float32)
                for sy in range(by):
                    for sx in range(bx):
                        start_w, start_h = f32(sw + f32(sx) * bin_w), f32(sh + f32(sy) * bin_h)
                        px = f32(f32(j) * ws + f32(start_w * f32(w - 1))) if g > 1 else \
                            f32(f32(f32(start_w + start_w) + bin_w) * f32(w - 1) / f32(2))
                        py = f32(f32(i) * hs + f32(start_h * f32(h - 1))) if g > 1 else \
                            f32(f32(f32(start_h + start_h) + bin_h) * f32(h - 1) / f32(2))
                        if px < w and py < h and px >= 0 and py >= 0:
                            left, top = _floor(px), _floor(py)
                            right, bottom = min(_ceil(px), w - 1), min(_ceil(py), h - 1)
                            chans = (sy * bx + sx) * dim + np.arange(dim)
                            fx, fy = f32(px - f32(left)), f32(py - f32(top))
                            tl, tr = fmap[chans, top, left], fmap[chans, top, right]
                            bl, br = fmap[chans, bottom, left], fmap[chans, bottom, right]
                            t = tl + (tr - tl) * fx
                            b = bl + (br - bl) * fx
                            acc = acc + (t + (b - t) * fy)
                out[:, i, j] = acc / f32(bx * by)
