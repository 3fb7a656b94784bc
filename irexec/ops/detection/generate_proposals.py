"""RPN proposals from given anchors: ExperimentalDetectronGenerateProposals-
SingleImage-6 and GenerateProposals-9 (batched, data-dependent output).

As OpenVINO's reference, in f32: anchor k of cell (h, w) (anchors row
(h * W + w) * A + k) is moved by deltas channels 4k..4k+3 (size deltas
capped at log(1000 / 16)), clipped to the image, and marked small when its
side is below min_size (GenerateProposals-9: times the image scale).  The
pre_nms_count best (a stable sort: equal scores keep their anchor order) go
through greedy NMS (a box dies when its IoU with a kept one exceeds
nms_threshold; small boxes never survive) up to post_nms_count.
ExperimentalDetectron counts pixels inclusively when refining and not in NMS;
GenerateProposals-9 counts them inclusively in both unless normalized.
ExperimentalDetectron outputs post_nms_count rows (zero-padded);
GenerateProposals-9 outputs exactly the kept proposals of every image, in
image order, and their count per image.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ...base import limits
from ...base.shapes import DYNAMIC, Dim, PartialShape
from ..framework.base import REAL, Attr, In, IndexType, Inference, Op, TensorInfo, op_error, same_as
from ..framework.registry import register

f32 = np.float32
IM_INFO, ANCHORS, DELTAS, SCORES = range(4)
_CAP = f32(math.log(1000.0 / 16.0))


def proposals_of(anchors: np.ndarray, deltas: np.ndarray, scores: np.ndarray, img_h: np.float32, img_w: np.float32,
                 min_h: np.float32, min_w: np.float32, offset: np.float32) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Refined boxes [N, 4], scores [N] and whether each is big enough, in
    (h, w, anchor) order, from deltas [A * 4, H, W] and scores [A, H, W]."""
    a, h, w = scores.shape
    box = anchors.astype(np.float32).reshape(h, w, a, 4)
    d = deltas.astype(np.float32).reshape(a, 4, h, w).transpose(2, 3, 0, 1)  # [h, w, a, 4]
    ww = box[..., 2] - box[..., 0] + offset
    hh = box[..., 3] - box[..., 1] + offset
    cx, cy = box[..., 0] + f32(0.5) * ww, box[..., 1] + f32(0.5) * hh
    pcx, pcy = d[..., 0] * ww + cx, d[..., 1] * hh + cy
    with np.errstate(over="ignore"):
        pw = np.exp(np.minimum(d[..., 2], _CAP).astype(np.float64)).astype(np.float32) * ww
        ph = np.exp(np.minimum(d[..., 3], _CAP).astype(np.float64)).astype(np.float32) * hh
    x0 = np.maximum(f32(0), np.minimum(pcx - f32(0.5) * pw, f32(img_w - offset)))
    y0 = np.maximum(f32(0), np.minimum(pcy - f32(0.5) * ph, f32(img_h - offset)))
    x1 = np.maximum(f32(0), np.minimum(pcx + f32(0.5) * pw - offset, f32(img_w - offset)))
    y1 = np.maximum(f32(0), np.minimum(pcy + f32(0.5) * ph - offset, f32(img_h - offset)))
    big = (min_w <= x1 - x0 + offset) & (min_h <= y1 - y0 + offset)
    boxes = np.stack([x0, y0, x1, y1], -1).astype(np.float32).reshape(-1, 4)
    return boxes, scores.astype(np.float32).transpose(1, 2, 0).reshape(-1), big.reshape(-1)


def select(boxes: np.ndarray, scores: np.ndarray, alive: np.ndarray, pre: int, post: int, threshold: float,
           offset: np.float32) -> np.ndarray:
    """Indices (into ``boxes``) of the kept proposals, best first."""
    order = np.argsort(-scores, kind="stable")[:pre]
    b, dead = boxes[order], ~alive[order]
    x0, y0, x1, y1 = b.T
    area = (x1 - x0 + offset) * (y1 - y0 + offset)
    kept: list[int] = []
    t = f32(threshold)
    for i in range(len(order)):
        if len(kept) == post:
            break
        if dead[i]:
            continue
        kept.append(i)
        rest = slice(i + 1, None)
        iw = np.maximum(f32(0), np.minimum(x1[i], x1[rest]) - np.maximum(x0[i], x0[rest]) + offset)
        ih = np.maximum(f32(0), np.minimum(y1[i], y1[rest]) - np.maximum(y0[i], y0[rest]) + offset)
        inter = iw * ih
        with np.errstate(all="ignore"):
            iou = inter / (area[i] + area[rest] - inter)
        touching = (x0[i] <= x1[rest]) & (y0[i] <= y1[rest]) & (x0[rest] <= x1[i]) & (y0[rest] <= y1[i])
        dead[rest] |= (t < iou) & touching
    return order[np.array(kept, np.int64)]


def _check_maps(deltas: PartialShape, scores: PartialShape, first: int) -> None:
    """Deltas [.., A * 4, H, W] and scores [.., A, H, W] agree (``first``: the axis of A)."""
    if deltas.dims is None or scores.dims is None:
        return
    rules = ((first, scores[first] * 4, "4 channels per anchor"), (first + 1, scores[first + 1], "height"),
             (first + 2, scores[first + 2], "width"))
    for axis, want, what in rules:
        if not deltas[axis].compatible(want):
            raise op_error(f"input_deltas {deltas} and input_scores {scores} differ in {what}", "incompatible-inputs",
                           DELTAS)


@register
class ExperimentalDetectronGenerateProposalsSingleImage6(Op):
    type, version = "ExperimentalDetectronGenerateProposalsSingleImage", 6
    family = "detection"
    summary = "RPN proposals of one image from given anchors: refine, NMS, post_nms_count rows"
    inputs = (In("input_im_info", REAL, rank=1), In("input_anchors", same_as("input_im_info"), rank=2),
              In("input_deltas", same_as("input_im_info"), rank=3), In("input_scores", same_as("input_im_info"), rank=3))
    outputs = 2
    attributes = {
        "min_size": Attr("float", 0.0, doc="smallest proposal side"),
        "nms_threshold": Attr("float", 0.0, doc="IoU above which a proposal is suppressed"),
        "post_nms_count": Attr("int", 0, doc="proposals kept (output rows)"),
        "pre_nms_count": Attr("int", 0, doc="best proposals NMS looks at"),
    }

    def validate(self) -> list:
        if self.post_nms_count < 0 or self.pre_nms_count < 0:
            return [op_error("pre_nms_count and post_nms_count must not be negative", "bad-attribute")]
        return []

    def infer(self, im_info: TensorInfo, anchors: TensorInfo, deltas: TensorInfo, scores: TensorInfo) -> Inference:
        im, an = im_info.shape, anchors.shape
        if im.dims is not None and not im[0].contains(3):
            raise op_error(f"input_im_info must hold 3 values (height, width, scale), got shape {im}",
                           "incompatible-inputs", IM_INFO)
        if an.dims is not None and not an[1].contains(4):
            raise op_error(f"input_anchors must be [N, 4], got shape {an}", "incompatible-inputs", ANCHORS)
        _check_maps(deltas.shape, scores.shape, 0)
        s = scores.shape
        if an.dims is not None and s.dims is not None and an[0].is_static and all(d.is_static for d in s.dims):
            cells = s[0].value * s[1].value * s[2].value
            if an[0].value != cells:
                raise op_error(f"input_anchors {an} must hold one anchor per score ({cells} for scores {s})",
                               "incompatible-inputs", ANCHORS)
        n = Dim(self.post_nms_count, self.post_nms_count)
        return Inference([TensorInfo(PartialShape((n, Dim(4, 4))), im_info.etype),
                          TensorInfo(PartialShape((n,)), im_info.etype)])

    def compute(self, plan: None, im_info: np.ndarray, anchors: np.ndarray, deltas: np.ndarray,
                scores: np.ndarray) -> Sequence[np.ndarray]:
        info = im_info.astype(np.float32)
        m = f32(self.min_size)
        boxes, sc, big = proposals_of(anchors, deltas, scores, info[0], info[1], m, m, f32(1))
        kept = select(boxes, sc, big, self.pre_nms_count, self.post_nms_count, self.nms_threshold, f32(0))
        rois = np.zeros((self.post_nms_count, 4), np.float32)
        out = np.zeros(self.post_nms_count, np.float32)
        rois[: len(kept)], out[: len(kept)] = boxes[kept], sc[kept]
        return [rois.astype(im_info.dtype), out.astype(im_info.dtype)]


@register
class GenerateProposals9(Op):
    type, version = "GenerateProposals", 9
    family = "detection"
    summary = "batched RPN proposals from given anchors; exactly the kept proposals and their count per image"
    inputs = (In("input_im_info", REAL, rank=2), In("input_anchors", same_as("input_im_info"), rank=4),
              In("input_deltas", same_as("input_im_info"), rank=4), In("input_scores", same_as("input_im_info"), rank=4))
    outputs = 3
    attributes = {
        "min_size": Attr("float", required=True, doc="smallest proposal side, times the image scale"),
        "nms_threshold": Attr("float", required=True, doc="IoU above which a proposal is suppressed"),
        "pre_nms_count": Attr("int", required=True, doc="best proposals per image NMS looks at"),
        "post_nms_count": Attr("int", required=True, doc="most proposals kept per image"),
        "normalized": Attr("bool", True, doc="coordinates in [0, 1] (else pixels, counted inclusively)"),
        "nms_eta": Attr("float", 1.0, doc="adaptive NMS factor (1: plain NMS)"),
        "roi_num_type": IndexType(doc="i32 or i64: rois_num"),
    }

    def validate(self) -> list:
        errors = []
        if self.post_nms_count < 0 or self.pre_nms_count < 0:
            errors.append(op_error("pre_nms_count and post_nms_count must not be negative", "bad-attribute"))
        if self.nms_eta != 1.0:
            errors.append(op_error(f"nms_eta={self.nms_eta}: only 1 (plain NMS) is implemented", "bad-attribute"))
        return errors

    def infer(self, im_info: TensorInfo, anchors: TensorInfo, deltas: TensorInfo, scores: TensorInfo) -> Inference:
        im, an, d, s = im_info.shape, anchors.shape, deltas.shape, scores.shape
        batch = DYNAMIC
        if im.dims is not None:
            if not (im[1].contains(3) or im[1].contains(4)):
                raise op_error(f"input_im_info must be [N, 3] or [N, 4], got shape {im}", "incompatible-inputs",
                               IM_INFO)
            batch = im[0]
        for info in (d, s):
            if info.dims is not None:
                batch = batch.intersect(info[0]) or batch
        if an.dims is not None and not an[3].contains(4):
            raise op_error(f"input_anchors must be [H, W, A, 4], got shape {an}", "incompatible-inputs", ANCHORS)
        _check_maps(d, s, 1)
        if d.dims is not None and s.dims is not None and not d[0].compatible(s[0]):
            raise op_error(f"input_deltas {d} and input_scores {s} differ in batch", "incompatible-inputs", SCORES)
        if d.dims is not None and im.dims is not None and not d[0].compatible(im[0]):
            raise op_error(f"input_deltas {d} and input_im_info {im} differ in batch", "incompatible-inputs", DELTAS)
        if s.dims is not None and an.dims is not None:
            for k, (axis, what) in enumerate(((2, "height"), (3, "width"), (1, "anchor count"))):
                if not an[k].compatible(s[axis]):
                    raise op_error(f"input_anchors {an} and input_scores {s} differ in {what}", "incompatible-inputs",
                                   ANCHORS)
        rows = Dim(0, None if batch.hi is None else batch.hi * self.post_nms_count)
        return Inference([TensorInfo(PartialShape((rows, Dim(4, 4))), im_info.etype),
                          TensorInfo(PartialShape((rows,)), im_info.etype),
                          TensorInfo(PartialShape((batch,)), self.roi_num_type)])

    def compute(self, plan: None, im_info: np.ndarray, anchors: np.ndarray, deltas: np.ndarray,
                scores: np.ndarray) -> Sequence[np.ndarray]:
        offset = f32(0 if self.normalized else 1)
        rois, out, counts = [], [], []
        for b in range(scores.shape[0]):
            info = im_info[b].astype(np.float32)
            scale_h = info[2] if info.size > 2 else f32(1)
            scale_w = info[3] if info.size > 3 else scale_h
            boxes, sc, big = proposals_of(anchors, deltas[b], scores[b], info[0], info[1],
                                          f32(f32(self.min_size) * scale_h), f32(f32(self.min_size) * scale_w), offset)
            kept = select(boxes, sc, big, self.pre_nms_count, self.post_nms_count, self.nms_threshold, offset)
            rois.append(boxes[kept])
            out.append(sc[kept])
            counts.append(len(kept))
        total = sum(counts)
        limits.require(total * 20, f"GenerateProposals' {total} proposals")
        dt = im_info.dtype
        return [np.concatenate(rois).reshape(total, 4).astype(dt) if rois else np.zeros((0, 4), dt),
                np.concatenate(out).astype(dt) if out else np.zeros(0, dt),
                np.array(counts, self.roi_num_type.dtype)]

