"""DeformablePSROIPooling-1: position-sensitive ROI pooling whose bins are
moved by learned offsets (Deformable R-FCN).

As OpenVINO's reference: ROI corners are rounded (half away from zero),
scaled and shifted by half a pixel, each side at least 0.1; bin (i, j) of
output channel c reads input channel (c * group + i) * group + j; with the
offsets input [NUM_ROIS, 2 * k, part_size, part_size] a bin moves by
trans_std * offset * the ROI's size (x from channel 2m, y from 2m + 1, m the
class group of c).  A bin averages its spatial_bins_y x spatial_bins_x
sub-bin corners that lie within half a pixel of the map (clamped to it,
bilinearly interpolated); a bin with none is 0, and so is every bin of a ROI
whose batch id is negative.  Coordinates in f32 as the reference; the
interpolation in f32 and the average in f64, rounded once.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base import limits
from ...base.shapes import DYNAMIC, Dim, PartialShape
from ..framework.base import REAL, Attr, Enum, In, Inference, Op, TensorInfo, op_error, same_as
from ..framework.registry import register
from .roi_pooling import finite_rois

f32 = np.float32
DATA, ROIS, OFFSETS = range(3)


def _round(v: np.ndarray) -> np.ndarray:
    return np.copysign(np.floor(np.abs(v) + f32(0.5)), v).astype(np.float32)


@register
class DeformablePSROIPooling1(Op):
    type, version = "DeformablePSROIPooling", 1
    family = "detection"
    summary = "position-sensitive ROI pooling with bins moved by offsets (deformable R-FCN)"
    inputs = (In("data", REAL, rank=4), In("rois", same_as("data"), rank=2, value=True),
              In("offsets", same_as("data"), rank=4, optional=True))
    attributes = {
        "output_dim": Attr("int", required=True, doc="output channels, > 0"),
        "spatial_scale": Attr("float", required=True, doc="multiplies the ROI coordinates"),
        "group_size": Attr("int", 1, doc="output bins per side, > 0"),
        "mode": Enum("bilinear_deformable", "bilinear", doc="bilinear sub-bins (both modes compute alike)"),
        "spatial_bins_x": Attr("int", 1, doc="sub-bins along x, > 0"),
        "spatial_bins_y": Attr("int", 1, doc="sub-bins along y, > 0"),
        "trans_std": Attr("float", 1.0, doc="multiplies the offsets"),
        "part_size": Attr("int", 1, doc="side of the offsets' grid, > 0"),
    }

    def validate(self) -> list:
        errors = []
        for name in ("output_dim", "group_size", "spatial_bins_x", "spatial_bins_y", "part_size"):
            if getattr(self, name) < 1:
                errors.append(op_error(f"{name}={getattr(self, name)} must be positive", "bad-attribute"))
        return errors

    def infer(self, data: TensorInfo, rois: TensorInfo, *offsets: TensorInfo) -> Inference:
        d, r = data.shape, rois.shape
        g = self.group_size
        if d.dims is not None and not d[1].contains(self.output_dim * g * g):
            raise op_error(f"data {d} must have output_dim * group_size^2 = {self.output_dim * g * g} channels",
                           "incompatible-inputs", DATA)
        if r.dims is not None and not r[1].contains(5):
            raise op_error(f"rois must be [NUM_ROIS, 5] (batch id, x1, y1, x2, y2), got shape {r}",
                           "incompatible-inputs", ROIS)
        n = r[0] if r.dims is not None else DYNAMIC
        if offsets and offsets[0].shape.dims is not None:
            o = offsets[0].shape
            p = self.part_size
            if not (o[0].compatible(n) and o[2].contains(p) and o[3].contains(p)):
                raise op_error(f"offsets {o} must be [NUM_ROIS ({n}), 2 * k, part_size ({p}), part_size]",
                               "incompatible-inputs", OFFSETS)
            if o[1].is_static and (o[1].value < 2 or o[1].value % 2 or self.output_dim % (o[1].value // 2)):
                raise op_error(f"offsets {o}: dim 1 must be 2 * k with k dividing output_dim {self.output_dim}",
                               "incompatible-inputs", OFFSETS)
        v = rois.value()
        finite_rois(v)
        if v is not None and v.size and d.dims is not None and d[0].hi is not None:
            ids = np.trunc(np.asarray(v, np.float64)[:, 0])
            bad = np.flatnonzero(ids >= d[0].hi)
            if bad.size:
                k = int(bad[0])
                raise op_error(f"rois[{k}] has batch id {v[k, 0]}, past the data's {d[0]} images", "bad-value", ROIS)
        dim = Dim(self.output_dim, self.output_dim)
        return Inference([TensorInfo(PartialShape((n, dim, Dim(g, g), Dim(g, g))), data.etype)])

    def compute(self, plan: None, data: np.ndarray, rois: np.ndarray, *offsets: np.ndarray) -> Sequence[np.ndarray]:
        g, dim = self.group_size, self.output_dim
        _, _, h, w = data.shape
        x = data.astype(np.float32)
        out = np.zeros((rois.shape[0], dim, g, g), np.float64)
        if h == 0 or w == 0:
            return [out.astype(data.dtype)]  # no pixel to sample: every bin is 0
        scale = f32(self.spatial_scale)
        bx, by = self.spatial_bins_x, self.spatial_bins_y
        off = offsets[0].astype(np.float32) if offsets else None
        # sub-bins are sampled one bin at a time: their count bounds the work (and the sample arrays)
        limits.require(8 * rois.shape[0] * g * g * bx * by * dim, f"DeformablePSROIPooling's {bx}x{by} sub-bins per bin")
        for r, roi in enumerate(rois.astype(np.float32)):
            b = int(roi[0])
            if b < 0:
                continue
            x1, y1 = (_round(roi[k]) * scale - f32(0.5) for k in (1, 2))
            x2, y2 = ((_round(roi[k]) + f32(1)) * scale - f32(0.5) for k in (3, 4))
            rw, rh = max(f32(x2 - x1), f32(0.1)), max(f32(y2 - y1), f32(0.1))
            bw, bh = f32(rw / f32(g)), f32(rh / f32(g))
            sbw, sbh = f32(bw / f32(bx)), f32(bh / f32(by))
            chans = np.arange(dim)
            for i in range(g):
                for j in range(g):
                    sx = np.full(dim, f32(x1 + f32(j) * bw), np.float32)
                    sy = np.full(dim, f32(y1 + f32(i) * bh), np.float32)
                    if off is not None:
                        k = off.shape[1] // 2
                        group = chans // (dim // k)
                        pi, pj = i * self.part_size // g, j * self.part_size // g
                        ox = off[r, 2 * group, pi, pj] * f32(self.trans_std)
                        oy = off[r, 2 * group + 1, pi, pj] * f32(self.trans_std)
                        sx = (sx + ox * rw).astype(np.float32)
                        sy = (sy + oy * rh).astype(np.float32)
                    fmap = x[b, (chans * g + i) * g + j]  # [dim, h, w]
                    total = np.zeros(dim)
                    count = np.zeros(dim)
                    for u in range(by):
                        py = (sy + f32(u) * sbh).astype(np.float32)
                        for t in range(bx):
                            px = (sx + f32(t) * sbw).astype(np.float32)
                            ok = (py >= -0.5) & (py <= h - 0.5) & (px >= -0.5) & (px <= w - 0.5)
                            cx = np.clip(px, f32(0), f32(w - 1))
                            cy = np.clip(py, f32(0), f32(h - 1))
                            left, top = np.floor(cx).astype(np.int64), np.floor(cy).astype(np.int64)
                            right, bottom = np.ceil(cx).astype(np.int64), np.ceil(cy).astype(np.int64)
                            fx, fy = (cx - left).astype(np.float32), (cy - top).astype(np.float32)
                            tl, tr = fmap[chans, top, left], fmap[chans, top, right]
                            bl, br = fmap[chans, bottom, left], fmap[chans, bottom, right]
                            ti = tl + (tr - tl) * fx
                            bi = bl + (br - bl) * fx
                            value = ti + (bi - ti) * fy
                            total += np.where(ok, value, 0)
                            count += ok
                    with np.errstate(all="ignore"):
                        out[r, :, i, j] = np.where(count > 0, total / np.maximum(count, 1), 0)
        return [out.astype(data.dtype)]
