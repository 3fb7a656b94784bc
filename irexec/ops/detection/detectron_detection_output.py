"""ExperimentalDetectronDetectionOutput-6: Mask R-CNN's box head
post-processing.

As OpenVINO (its CPU plugin and reference agree but for the ROI count: the
reference takes max_detections_per_image ROIs, the CPU plugin and irexec every
ROI), in f32: each ROI of positive size is refined per class c >= 1 by its
deltas divided by deltas_weights (size deltas capped at max_delta_log_wh,
pixel sizes counted inclusively, corners clipped below at 0); per class,
boxes scoring above score_threshold go best first (ties: lower ROI) through
greedy NMS (IoU above nms_threshold suppresses) and the first post_nms_count
stay; past max_detections_per_image detections, the best are kept (ties:
lower ROI).  Outputs: boxes [max_detections_per_image, 4], classes (i32) and
scores, in class order (or score order once cut), zero-padded.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base import dtypes
from ...base.shapes import Dim, PartialShape
from ..framework.base import REAL, Attr, In, Inference, Op, TensorInfo, op_error, same_as
from ..framework.registry import register

f32 = np.float32
ROIS, DELTAS, SCORES, IM_INFO = range(4)
_I32 = dtypes.get("i32")


@register
class ExperimentalDetectronDetectionOutput6(Op):
    type, version = "ExperimentalDetectronDetectionOutput", 6
    family = "detection"
    summary = "Mask R-CNN box refinement, per-class NMS and the best detections per image"
    inputs = (In("input_rois", REAL, rank=2), In("input_deltas", same_as("input_rois"), rank=2),
              In("input_scores", same_as("input_rois"), rank=2), In("input_im_info", same_as("input_rois"), rank=2))
    outputs = 3
    attributes = {
        "score_threshold": Attr("float", 0.0, doc="scores at or below it are no candidates"),
        "nms_threshold": Attr("float", 0.0, doc="IoU above which a box is suppressed"),
        "max_delta_log_wh": Attr("float", 0.0, doc="cap of the size deltas"),
        "num_classes": Attr("int", 0, doc="classes, background (0) included"),
        "post_nms_count": Attr("int", 0, doc="boxes kept per class"),
        "max_detections_per_image": Attr("int", 0, doc="output rows"),
        "class_agnostic_box_regression": Attr("bool", False, doc="(not used by the computation)"),
        "deltas_weights": Attr("floats", (), doc="divisors of dx, dy, dw, dh"),
    }

    def validate(self) -> list:
        errors = []
        if len(self.deltas_weights) != 4:
            errors.append(op_error(f"deltas_weights must hold 4 values, got {len(self.deltas_weights)}",
                                   "bad-attribute"))
        if self.max_detections_per_image < 0 or self.num_classes < 0:
            errors.append(op_error("max_detections_per_image and num_classes must not be negative", "bad-attribute"))
        return errors

    def infer(self, rois: TensorInfo, deltas: TensorInfo, scores: TensorInfo, im_info: TensorInfo) -> Inference:
        r, d, s, im = rois.shape, deltas.shape, scores.shape, im_info.shape
        k = self.num_classes
        if r.dims is not None and not r[1].contains(4):
            raise op_error(f"input_rois must be [N, 4], got shape {r}", "incompatible-inputs", ROIS)
        if d.dims is not None and not d[1].contains(4 * k):
            raise op_error(f"input_deltas {d} must have num_classes * 4 = {4 * k} columns", "incompatible-inputs",
                           DELTAS)
        if s.dims is not None and not s[1].contains(k):
            raise op_error(f"input_scores {s} must have num_classes = {k} columns", "incompatible-inputs", SCORES)
        if im.dims is not None and not (im[0].contains(1) and im[1].contains(3)):
            raise op_error(f"input_im_info must be [1, 3], got shape {im}", "incompatible-inputs", IM_INFO)
        if r.dims is not None and d.dims is not None and s.dims is not None:
            merged = r[0].intersect(d[0])
            if merged is None or merged.intersect(s[0]) is None:
                raise op_error(f"input_rois {r}, input_deltas {d} and input_scores {s} differ in ROI count",
                               "incompatible-inputs", DELTAS)
        n = Dim(self.max_detections_per_image, self.max_detections_per_image)
        return Inference([TensorInfo(PartialShape((n, Dim(4, 4))), rois.etype), TensorInfo(PartialShape((n,)), _I32),
                          TensorInfo(PartialShape((n,)), rois.etype)])

    def compute(self, plan: None, rois: np.ndarray, deltas: np.ndarray, scores: np.ndarray,
                im_info: np.ndarray) -> Sequence[np.ndarray]:
        k, top = self.num_classes, self.max_detections_per_image
        boxes, areas, refined = self._refine(rois.astype(np.float32), deltas.astype(np.float32),
                                             scores.astype(np.float32))
        found: list[tuple[np.float32, int, int]] = []  # (score, class, roi)
        for c in range(1, k):
            s = refined[c]
            cand = np.flatnonzero(s > f32(self.score_threshold))
            cand = cand[np.argsort(-s[cand], kind="stable")]
            kept: list[int] = []
            for idx in cand.tolist():
                if not kept or (_overlap(boxes[c], areas[c], idx, np.array(kept)) <= f32(self.nms_threshold)).all():
                    kept.append(idx)
            if self.post_nms_count != -1:
                kept = kept[: max(self.post_nms_count, 0)]
            found += [(s[i], c, i) for i in kept]
        if len(found) > top:
            order = sorted(range(len(found)), key=lambda q: (-float(found[q][0]), found[q][2], q))[:top]
            found = [found[q] for q in order]
        out_boxes = np.zeros((top, 4), np.float32)
        out_classes = np.zeros(top, np.int32)
        out_scores = np.zeros(top, np.float32)
        for q, (score, c, i) in enumerate(found):
            out_boxes[q], out_classes[q], out_scores[q] = boxes[c, i], c, score
        return [out_boxes.astype(rois.dtype), out_classes, out_scores.astype(rois.dtype)]

    def _refine(self, rois: np.ndarray, deltas: np.ndarray,
                scores: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per class: refined boxes [K, N, 4], their areas and scores [K, N] (0 for class 0 and empty ROIs)."""
        k, n = self.num_classes, rois.shape[0]
        one = f32(1)
        x0, y0, x1, y1 = rois.T
        valid = ~((x1 - x0 <= 0) | (y1 - y0 <= 0))
        ww, hh = x1 - x0 + one, y1 - y0 + one
        cx, cy = x0 + f32(0.5) * ww, y0 + f32(0.5) * hh
        d = deltas.reshape(n, k, 4) / np.array(self.deltas_weights, np.float32)
        cap = f32(self.max_delta_log_wh)
        pcx, pcy = d[..., 0] * ww[:, None] + cx[:, None], d[..., 1] * hh[:, None] + cy[:, None]
        with np.errstate(over="ignore"):
            pw = np.exp(np.minimum(d[..., 2], cap).astype(np.float64)).astype(np.float32) * ww[:, None]
            ph = np.exp(np.minimum(d[..., 3], cap).astype(np.float64)).astype(np.float32) * hh[:, None]
        nx0 = np.maximum(f32(0), pcx - f32(0.5) * pw)
        ny0 = np.maximum(f32(0), pcy - f32(0.5) * ph)
        nx1 = np.maximum(f32(0), pcx + f32(0.5) * pw - one)
        ny1 = np.maximum(f32(0), pcy + f32(0.5) * ph - one)
        keep = valid[:, None] & (np.arange(k) >= 1)[None, :]
        boxes = np.where(keep[..., None], np.stack([nx0, ny0, nx1, ny1], -1), f32(0)).astype(np.float32)
        areas = np.where(keep, (nx1 - nx0 + one) * (ny1 - ny0 + one), f32(0)).astype(np.float32)
        refined = np.where(keep, scores, f32(0)).astype(np.float32)
        return boxes.transpose(1, 0, 2), areas.T, refined.T


def _overlap(boxes: np.ndarray, areas: np.ndarray, idx: int, kept: np.ndarray) -> np.ndarray:
    """The reference's JaccardOverlap (inclusive pixels) of box ``idx`` with each kept box."""
    a, b = boxes[idx], boxes[kept]
    apart = (b[:, 0] > a[2]) | (b[:, 2] < a[0]) | (b[:, 1] > a[3]) | (b[:, 3] < a[1])
    iw = np.minimum(a[2], b[:, 2]) - np.maximum(a[0], b[:, 0]) + f32(1)
    ih = np.minimum(a[3], b[:, 3]) - np.maximum(a[1], b[:, 1]) + f32(1)
    inter = iw * ih
    with np.errstate(all="ignore"):
        iou = inter / (areas[idx] + areas[kept] - inter)
    return np.where(apart | (iw <= 0) | (ih <= 0), f32(0), iou).astype(np.float32)
