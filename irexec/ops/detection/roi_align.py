"""ROIAlign-3 and ROIAlign-9: average or max pooling of feature-map regions, bilinearly sampled."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...shapes import DYNAMIC, Dim, PartialShape
from ..base import INDEX, REAL, Attr, Enum, In, Inference, Op, TensorInfo, op_error, same_as
from ..registry import register

ROI_DATA, ROIS, BATCH_INDICES = 0, 1, 2


class _ROIAlign(Op):
    """Bilinear samples on a regular grid in each output bin of each ROI,
    averaged or maxed.  As OpenVINO's reference: a sample more than one pixel
    outside the map contributes 0 (and counts in the average); coordinates
    are clamped to the map; sampling_ratio 0 takes ceil(bin size) samples per
    bin and axis.  As the spec says, max mode is the maximum of the samples
    (OpenVINO's reference starts its maximum at 0).  Computed in f64, one
    rounding to the element type."""

    family = "detection"
    inputs = (In("data", REAL, rank=4), In("rois", same_as("data"), rank=2),
              In("batch_indices", INDEX, rank=1, value=True))
    base_attributes = {
        "pooled_h": Attr("int", required=True, doc="output bins along y, > 0"),
        "pooled_w": Attr("int", required=True, doc="output bins along x, > 0"),
        "sampling_ratio": Attr("int", required=True, doc="samples per bin and axis; 0: ceil(bin size)"),
        "spatial_scale": Attr("float", required=True, doc="multiplies the ROI coordinates, > 0"),
        "mode": Enum("avg", "max", doc="pooling of the samples of a bin"),
    }
    attributes = base_attributes

    def validate(self) -> list:
        errors = []
        for name in ("pooled_h", "pooled_w"):
            if getattr(self, name) <= 0:
                errors.append(op_error(f"{name}={getattr(self, name)} must be positive", "bad-attribute"))
        if self.sampling_ratio < 0:
            errors.append(op_error(f"sampling_ratio={self.sampling_ratio} must not be negative", "bad-attribute"))
        if not self.spatial_scale > 0:
            errors.append(op_error(f"spatial_scale={self.spatial_scale} must be positive", "bad-attribute"))
        return errors

    def infer(self, data: TensorInfo, rois: TensorInfo, indices: TensorInfo) -> Inference:
        d, r, b = data.shape, rois.shape, indices.shape
        if r.rank is not None and not r[1].contains(4):
            raise op_error(f"rois must be [NUM_ROIS, 4] (x1, y1, x2, y2), got shape {r}", "incompatible-inputs", ROIS)
        n = r[0] if r.rank is not None else DYNAMIC
        if b.rank is not None:
            merged = n.intersect(b[0])
            if merged is None:
                raise op_error(f"rois {r} and batch_indices {b} must have the same first dim", "incompatible-inputs",
                               BATCH_INDICES)
            n = merged
        v = indices.value()
        if v is not None and d.rank is not None and d[0].hi is not None and v.size:
            bad = (v < 0) | (v >= d[0].hi)
            if bad.any():
                k = int(np.flatnonzero(bad.reshape(-1))[0])
                raise op_error(f"batch_indices[{k}] = {int(v.reshape(-1)[k])} is outside [0, {d[0].hi - 1}] "
                               f"(data shape {d})", "bad-value", BATCH_INDICES)
        channels = d[1] if d.rank is not None else DYNAMIC
        out = PartialShape((n, channels, Dim(self.pooled_h, self.pooled_h), Dim(self.pooled_w, self.pooled_w)))
        return Inference([TensorInfo(out, data.etype)])

    def offsets(self) -> tuple[float, float, bool]:
        """(added before scaling, added after, whether ROI sizes are at least 1)."""
        return 0.0, 0.0, True

    def compute(self, plan: None, data: np.ndarray, rois: np.ndarray, indices: np.ndarray) -> Sequence[np.ndarray]:
        n, c, h, w = data.shape
        r = rois.shape[0]
        ph, pw = self.pooled_h, self.pooled_w
        out = np.zeros((r, c, ph, pw), np.float64)
        if r == 0:
            return [out.astype(data.dtype)]
        bad = (indices < 0) | (indices >= n)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise op_error(f"batch_indices[{k}] = {int(indices[k])} is outside [0, {n - 1}]", "bad-value", BATCH_INDICES)
        if c == 0 or h == 0 or w == 0:
            return [out.astype(data.dtype)]
        before, after, at_least_one = self.offsets()
        box = (rois.astype(np.float64) + before) * float(self.spatial_scale) + after
        x1, y1 = box[:, 0], box[:, 1]
        width, height = box[:, 2] - x1, box[:, 3] - y1
        if at_least_one:
            width, height = np.maximum(width, 1.0), np.maximum(height, 1.0)
        bin_w, bin_h = width / pw, height / ph
        if self.sampling_ratio > 0:
            sx = np.full(r, self.sampling_ratio)
            sy = sx
        else:
            sx, sy = np.ceil(bin_w).astype(np.int64), np.ceil(bin_h).astype(np.int64)
        avg = self.mode == "avg"
        if avg:
            # The average of bilinear samples on a separable grid is separable: out[r] = Wy[r] @ map @ Wx[r]^T
            # with Wy [PH, H] and Wx [PW, W] the per-row and per-column sample weights (invalid samples weigh 0).
            wy_all, wx_all = np.zeros((r, ph, h)), np.zeros((r, pw, w))
        else:
            feat = np.ascontiguousarray(data.transpose(0, 2, 3, 1), np.float64)  # NHWC: a sample's channels together
        # ROIs grouped by their sample counts: one vectorised pass per group
        keys = sx * (int(sy.max()) + 1) + sy
        for key in np.unique(keys).tolist():
            sel = np.flatnonzero(keys == key)
            nx, ny = int(sx[sel[0]]), int(sy[sel[0]])
            if nx == 0 or ny == 0:
                continue  # no samples: the bin stays 0
            ys = (y1[sel, None, None] + np.arange(ph)[None, :, None] * bin_h[sel, None, None]
                  + (bin_h[sel] / ny)[:, None, None] * (np.arange(ny)[None, None, :] + 0.5))  # [R, PH, NY]
            xs = (x1[sel, None, None] + np.arange(pw)[None, :, None] * bin_w[sel, None, None]
                  + (bin_w[sel] / nx)[:, None, None] * (np.arange(nx)[None, None, :] + 0.5))  # [R, PW, NX]
            vy, yl, yh, ly = _axis_samples(ys, h)
            vx, xl, xh, lx = _axis_samples(xs, w)
            if avg:
                _accumulate(wy_all, sel, yl, yh, ly, vy, ny)
                _accumulate(wx_all, sel, xl, xh, lx, vx, nx)
                continue
            b = indices[sel].astype(np.int64)[:, None, None, None, None]
            shape6 = (slice(None), slice(None), slice(None), None, None)  # [R, PH, NY] -> [R, PH, NY, 1, 1]
            shape6x = (slice(None), None, None, slice(None), slice(None))  # [R, PW, NX] -> [R, 1, 1, PW, NX]
            value = np.zeros((len(sel), ph, ny, pw, nx, c))
            for yi, wy in ((yl, 1.0 - ly), (yh, ly)):
                for xi, wx in ((xl, 1.0 - lx), (xh, lx)):
                    weight = (wy[shape6] * wx[shape6x] * (vy[shape6] & vx[shape6x]))[..., None]
                    value += weight * feat[b, yi[shape6], xi[shape6x]]
            out[sel] = value.max(axis=(2, 4)).transpose(0, 3, 1, 2)  # [R, PH, PW, C] -> [R, C, PH, PW]
        if avg:
            for batch in np.unique(indices).tolist():
                rows = np.flatnonzero(indices == batch)
                fmap = data[batch].astype(np.float64).transpose(1, 0, 2).reshape(h, c * w)  # [H, C*W]
                t = (wy_all[rows].reshape(-1, h) @ fmap).reshape(len(rows), ph * c, w)  # one GEMM over the rows
                pooled = t @ np.ascontiguousarray(wx_all[rows].transpose(0, 2, 1))  # [R, PH*C, PW] (BLAS needs contiguous)
                out[rows] = pooled.reshape(len(rows), ph, c, pw).transpose(0, 2, 1, 3)
        return [out.astype(data.dtype)]


def _accumulate(weights: np.ndarray, rois: np.ndarray, low: np.ndarray, high: np.ndarray, frac: np.ndarray,
                valid: np.ndarray, count: int) -> None:
    """Add each sample's two bilinear weights (divided by the samples per
    axis) to weights[roi, bin, pixel]; samples outside the map add nothing."""
    r_idx = np.broadcast_to(rois[:, None, None], low.shape)
    b_idx = np.broadcast_to(np.arange(low.shape[1])[None, :, None], low.shape)
    scale = valid / count
    np.add.at(weights, (r_idx, b_idx, low), (1.0 - frac) * scale)
    np.add.at(weights, (r_idx, b_idx, high), frac * scale)


def _axis_samples(pos: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Along one axis of ``size`` pixels: whether each sample is inside
    [-1, size], its low and high pixel and the weight of the high one."""
    valid = (pos >= -1.0) & (pos <= size)
    p = np.maximum(pos, 0.0)
    low = np.minimum(np.floor(p), size - 1).astype(np.int64)
    at_edge = low >= size - 1
    high = np.where(at_edge, low, low + 1)
    p = np.where(at_edge, low, p)
    frac = np.where(valid, p - low, 0.0)
    return valid, np.where(valid, low, 0), np.where(valid, high, 0), frac


@register
class ROIAlign3(_ROIAlign):
    type, version = "ROIAlign", 3
    summary = "bilinear-sampled average or maximum over bins of each ROI"


@register
class ROIAlign9(_ROIAlign):
    type, version = "ROIAlign", 9
    summary = "ROIAlign-3 with aligned_mode (asymmetric, half_pixel_for_nn, half_pixel)"
    attributes = {**_ROIAlign.base_attributes,
                  "aligned_mode": Enum("asymmetric", "half_pixel_for_nn", "half_pixel",
                                       doc="pixel-centre convention of the ROI coordinates")}

    def offsets(self) -> tuple[float, float, bool]:
        if self.aligned_mode == "half_pixel_for_nn":
            return 0.0, -0.5, False
        if self.aligned_mode == "half_pixel":
            return 0.5, -0.5, False
        return 0.0, 0.0, True
