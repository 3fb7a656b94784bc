"""ExperimentalDetectronROIFeatureExtractor-6: ROIAlign of each ROI on the
level of a feature pyramid its size picks (Mask R-CNN's FPN).

As OpenVINO's reference: ROI [x0, y0, x1, y1] of area A > 0 goes to level
floor(log2(sqrt(A) / 224 + 1e-6) + 2) clipped to [0, levels - 1] (f32); a
ROI of area <= 0 has no level and its features are 0.  On its level the ROI
is average-ROIAligned (ROIAlign-3's sampling, sizes at least 1) with
spatial_scale 1 / pyramid_scales[level] and, with aligned, half a pixel
subtracted after scaling; every level is image 0.  Outputs: the features
[NUM_ROIS, C, output_size, output_size] in the ROIs' order and the ROIs.
Sampled in f64 and rounded once, as irexec's ROIAlign.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base.shapes import DYNAMIC, Dim, PartialShape
from ..framework.base import REAL, Attr, In, Inference, Op, TensorInfo, op_error, same_as
from ..framework.registry import register
from .nms_roi_align import _ROIAlign

f32 = np.float32


class _LevelAlign(_ROIAlign):
    """Average ROIAlign with the extractor's half-pixel shift (not registered)."""

    def __init__(self, size: int, ratio: int, scale: float, aligned: bool):
        super().__init__(None, {"pooled_h": size, "pooled_w": size, "sampling_ratio": ratio, "spatial_scale": scale,
                                "mode": "avg"})
        self.aligned = aligned

    def offsets(self) -> tuple[float, float, bool]:
        return 0.0, -0.5 if self.aligned else 0.0, True


def levels(rois: np.ndarray, count: int) -> np.ndarray:
    """The pyramid level of each ROI (``count`` for a ROI of no area)."""
    r = rois.astype(np.float32)
    area = (r[:, 2] - r[:, 0]) * (r[:, 3] - r[:, 1])
    with np.errstate(all="ignore"):
        scaled = np.log2((np.sqrt(area) / f32(224) + f32(1e-6)).astype(np.float64)).astype(np.float32)
        level = np.clip(np.floor(scaled + f32(2)), 0, count - 1)
    return np.where(area > 0, level, count).astype(np.int64)


@register
class ExperimentalDetectronROIFeatureExtractor6(Op):
    type, version = "ExperimentalDetectronROIFeatureExtractor", 6
    family = "detection"
    summary = "ROIAlign of each ROI on the feature-pyramid level its size picks"
    inputs = (In("input_rois", REAL, rank=2), In("pyramid", same_as("input_rois"), rank=4, variadic=True))
    outputs = 2
    attributes = {
        "output_size": Attr("int", 0, doc="side of each ROI's feature grid, > 0"),
        "sampling_ratio": Attr("int", 0, doc="samples per bin and axis; 0: ceil(bin size)"),
        "pyramid_scales": Attr("ints", (), doc="the stride of each pyramid level"),
        "aligned": Attr("bool", False, doc="subtract half a pixel from the scaled ROI"),
    }

    def validate(self) -> list:
        errors = []
        if self.output_size < 1:
            errors.append(op_error(f"output_size={self.output_size} must be positive", "bad-attribute"))
        if self.sampling_ratio < 0:
            errors.append(op_error(f"sampling_ratio={self.sampling_ratio} must not be negative", "bad-attribute"))
        if any(s <= 0 for s in self.pyramid_scales):
            errors.append(op_error(f"pyramid_scales {list(self.pyramid_scales)} must be positive", "bad-attribute"))
        return errors

    def infer(self, rois: TensorInfo, *pyramid: TensorInfo) -> Inference:
        r = rois.shape
        if r.dims is not None and not r[1].contains(4):
            raise op_error(f"input_rois must be [N, 4], got shape {r}", "incompatible-inputs", 0)
        if len(pyramid) > len(self.pyramid_scales):
            raise op_error(f"{len(pyramid)} pyramid levels but {len(self.pyramid_scales)} pyramid_scales",
                           "incompatible-inputs", len(self.pyramid_scales) + 1)
        n = r[0] if r.dims is not None else DYNAMIC
        channels: Dim | None = None
        for k, level in enumerate(pyramid, 1):
            s = level.shape
            if s.dims is None:
                continue
            if not s[0].contains(1):
                raise op_error(f"pyramid level {s} must have batch 1", "incompatible-inputs", k)
            if channels is None:
                channels = s[1]
            else:
                merged = channels.intersect(s[1])
                if merged is None:
                    raise op_error(f"pyramid level {s} has {s[1]} channels, the others {channels}",
                                   "incompatible-inputs", k)
                channels = merged
        size = Dim(self.output_size, self.output_size)
        return Inference([TensorInfo(PartialShape((n, channels or DYNAMIC, size, size)), rois.etype),
                          TensorInfo(PartialShape((n, Dim(4, 4))), rois.etype)])

    def compute(self, plan: None, rois: np.ndarray, *pyramid: np.ndarray) -> Sequence[np.ndarray]:
        n, c = rois.shape[0], pyramid[0].shape[1]
        size = self.output_size
        out = np.zeros((n, c, size, size), np.float64)
        level = levels(rois, len(pyramid))
        for k, fmap in enumerate(pyramid):
            sel = np.flatnonzero(level == k)
            if not sel.size:
                continue
            align = _LevelAlign(size, self.sampling_ratio, float(f32(1) / f32(self.pyramid_scales[k])), self.aligned)
            out[sel] = align.compute(None, fmap.astype(np.float64), rois[sel].astype(np.float64),
                                     np.zeros(sel.size, np.int64))[0]
        return [out.astype(rois.dtype), rois.copy()]
