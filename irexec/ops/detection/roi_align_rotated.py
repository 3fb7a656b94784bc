"""ROIAlignRotated-15: average ROIAlign over rotated ROIs
[x_ctr, y_ctr, width, height, angle].

As OpenVINO's reference: the centre is scaled by spatial_scale and moved
half a pixel back, the sizes scaled (no minimum size); the bins and their
sampling_ratio^2 sample points (0: ceil(bin size) per axis) are laid on the
unrotated ROI around its centre, then turned by the angle (radians;
clockwise_mode negates it) onto the map.  A sample more than one pixel
outside the map contributes 0 and counts in the average; coordinates are
clamped to the map and interpolated bilinearly.  Computed in f64, one
rounding to the element type.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ...base import limits
from ...base.shapes import DYNAMIC, Dim, PartialShape
from ..framework.base import INDEX, REAL, Attr, In, Inference, Op, TensorInfo, op_error, same_as
from ..framework.registry import register
from .nms_roi_align import roi_bin_errors
from .roi_pooling import finite_rois

DATA, ROIS, BATCH_INDICES = range(3)


@register
class ROIAlignRotated15(Op):
    type, version = "ROIAlignRotated", 15
    family = "detection"
    summary = "average ROIAlign over rotated ROIs"
    inputs = (In("data", REAL, rank=4), In("rois", same_as("data"), rank=2, value=True),
              In("batch_indices", INDEX, rank=1, value=True))
    attributes = {
        "pooled_h": Attr("int", required=True, doc="output bins along y, > 0"),
        "pooled_w": Attr("int", required=True, doc="output bins along x, > 0"),
        "sampling_ratio": Attr("int", required=True, doc="samples per bin and axis; 0: ceil(bin size)"),
        "spatial_scale": Attr("float", required=True, doc="multiplies the ROI coordinates, > 0"),
        "clockwise_mode": Attr("bool", False, doc="negate the angles"),
    }

    def validate(self) -> list:
        return roi_bin_errors(self)

    def infer(self, data: TensorInfo, rois: TensorInfo, indices: TensorInfo) -> Inference:
        d, r, b = data.shape, rois.shape, indices.shape
        if r.dims is not None and not r[1].contains(5):
            raise op_error(f"rois must be [NUM_ROIS, 5] (x_ctr, y_ctr, width, height, angle), got shape {r}",
                           "incompatible-inputs", ROIS)
        n = r[0] if r.dims is not None else DYNAMIC
        if b.dims is not None:
            merged = n.intersect(b[0])
            if merged is None:
                raise op_error(f"rois {r} and batch_indices {b} must have the same first dim", "incompatible-inputs",
                               BATCH_INDICES)
            n = merged
        finite_rois(rois.value())
        v = indices.value()
        if v is not None and v.size and d.dims is not None and d[0].hi is not None:
            bad = np.flatnonzero(((v < 0) | (v >= d[0].hi)).reshape(-1))
            if bad.size:
                k = int(bad[0])
                raise op_error(f"batch_indices[{k}] = {int(v.reshape(-1)[k])} is outside [0, {d[0].hi - 1}] "
                               f"(data shape {d})", "bad-value", BATCH_INDICES)
        channels = d[1] if d.dims is not None else DYNAMIC
        out = PartialShape((n, channels, Dim(self.pooled_h, self.pooled_h), Dim(self.pooled_w, self.pooled_w)))
        return Inference([TensorInfo(out, data.etype)])

    def compute(self, plan: None, data: np.ndarray, rois: np.ndarray, indices: np.ndarray) -> Sequence[np.ndarray]:
        _, c, h, w = data.shape
        ph, pw = self.pooled_h, self.pooled_w
        out = np.zeros((rois.shape[0], c, ph, pw))
        if c == 0 or h == 0 or w == 0:
            return [out.astype(data.dtype)]  # no pixel to sample: every bin is 0
        scale = float(np.float32(self.spatial_scale))
        for r, roi in enumerate(rois.astype(np.float64)):
            cx, cy = roi[0] * scale - 0.5, roi[1] * scale - 0.5
            rw, rh = roi[2] * scale, roi[3] * scale
            angle = -roi[4] if self.clockwise_mode else roi[4]
            cos, sin = math.cos(angle), math.sin(angle)
            bw, bh = rw / pw, rh / ph
            nx = self.sampling_ratio or max(math.ceil(bw), 0)
            ny = self.sampling_ratio or max(math.ceil(bh), 0)
            if nx == 0 or ny == 0:
                continue
            limits.require(8 * 8 * ph * ny * pw * nx * (c + 1), f"ROIAlignRotated's samples ({ny}x{nx} per bin)")
            py = -rh / 2 + np.arange(ph)[:, None] * bh + (bh / ny) * (np.arange(ny)[None, :] + 0.5)  # [PH, NY]
            px = -rw / 2 + np.arange(pw)[:, None] * bw + (bw / nx) * (np.arange(nx)[None, :] + 0.5)  # [PW, NX]
            gy, gx = py[:, :, None, None], px[None, None, :, :]
            y = gy * cos - gx * sin + cy  # [PH, NY, PW, NX]
            x = gy * sin + gx * cos + cx
            valid = (x >= -1) & (x <= w) & (y >= -1) & (y <= h)
            y, x = np.where(valid, np.maximum(y, 0.0), 0.0), np.where(valid, np.maximum(x, 0.0), 0.0)
            yl, xl = np.minimum(np.floor(y), h - 1).astype(np.int64), np.minimum(np.floor(x), w - 1).astype(np.int64)
            y = np.where(yl >= h - 1, yl, y)
            x = np.where(xl >= w - 1, xl, x)
            yh, xh = np.minimum(yl + 1, h - 1), np.minimum(xl + 1, w - 1)
            ly, lx = (y - yl) * valid, (x - xl) * valid
            hy, hx = (1 - (y - yl)) * valid, (1 - (x - xl)) * valid
            fmap = data[int(indices[r])].astype(np.float64)
            value = (hy * hx * fmap[:, yl, xl] + hy * lx * fmap[:, yl, xh] + ly * hx * fmap[:, yh, xl]
                     + ly * lx * fmap[:, yh, xh])  # [C, PH, NY, PW, NX]
            out[r] = value.mean(axis=(2, 4))
        return [out.astype(data.dtype)]
