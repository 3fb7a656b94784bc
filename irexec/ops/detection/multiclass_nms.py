"""MulticlassNms-8 and -9 (PaddlePaddle's multiclass NMS).

Boxes are [xmin, ymin, xmax, ymax] (normalized, else pixels counted
inclusively); scores [N, C, M] share each image's boxes among the classes,
or with -9's third input [C, M] scores and [C, M, 4] boxes hold the images
one after another, roisnum boxes each.  As OpenVINO's reference, in f32:
per image and class (but background_class), boxes scoring >= score_threshold,
the nms_top_k best (ties: lower box first), are taken best first; one is
dropped when its IoU with a kept box (newest first) is >= iou_threshold,
and checking stops early once its score is <= score_threshold; after each
kept box an iou_threshold above 0.5 is multiplied by nms_eta (< 1).  Per
image the kept boxes are ordered by score (ties: class, box), cut to
keep_top_k, then ordered by class with sort_result_type classid; with
sort_result_across_batch all images are ordered together (score: score,
image, class, box; classid: class, image, score, box).  Outputs hold exactly
the kept boxes: [class, score, box] rows, their flat indices
(image * M + box; with roisnum (first box of the image + box) * C + class)
and the count per image.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base import limits
from ...base.shapes import DYNAMIC, Dim, PartialShape
from ..framework.base import INDEX, REAL, Attr, Enum, In, IndexType, Inference, Op, TensorInfo, op_error, same_as
from ..framework.registry import register

f32 = np.float32
BOXES, SCORES, ROISNUM = range(3)


def iou_row(box: np.ndarray, others: np.ndarray, normalized: bool) -> np.ndarray:
    """IoU of ``box`` [x1, y1, x2, y2] with each row of ``others``, as OpenVINO's nms_common (f32)."""
    norm = f32(0 if normalized else 1)
    area = (box[3] - box[1] + norm) * (box[2] - box[0] + norm)
    areas = (others[:, 3] - others[:, 1] + norm) * (others[:, 2] - others[:, 0] + norm)
    ih = np.maximum(np.minimum(box[3], others[:, 3]) - np.maximum(box[1], others[:, 1]) + norm, f32(0))
    iw = np.maximum(np.minimum(box[2], others[:, 2]) - np.maximum(box[0], others[:, 0]) + norm, f32(0))
    inter = ih * iw
    with np.errstate(all="ignore"):
        iou = inter / (area + areas - inter)
    return np.where((area <= 0) | (areas <= 0), f32(0), iou).astype(np.float32)


def nms_infer(op: Op, boxes: TensorInfo, scores: TensorInfo, rois: TensorInfo | None) -> Inference:
    """OpenVINO's shape inference of MulticlassNms and MatrixNms."""
    b, s = boxes.shape, scores.shape
    if rois is None and s.dims is not None and len(s.dims) != 3:
        raise op_error(f"scores must be [N, C, M] (3-D), got shape {s}", "bad-input-rank", SCORES)
    if rois is not None and s.dims is not None and len(s.dims) != 2:
        raise op_error(f"with roisnum, scores must be [C, M] (2-D), got shape {s}", "bad-input-rank", SCORES)
    rows, count = DYNAMIC, DYNAMIC
    if b.dims is not None:
        if s.dims is not None and not b[0].compatible(s[0]):
            raise op_error(f"boxes {b} and scores {s} differ in dim 0", "incompatible-inputs", SCORES)
        if not b[2].contains(4):
            raise op_error(f"the last dim of boxes must be 4, got shape {b}", "incompatible-inputs", BOXES)
        r = rois.shape if rois is not None else None
        if s.dims is not None and not b[1].compatible(s[1] if rois is not None else s[2]):
            raise op_error(f"boxes {b} and scores {s} differ in the number of boxes", "incompatible-inputs", SCORES)
        if s.dims is not None and (r is None or r.dims is not None):
            classes = b[0] if r is not None else s[1]
            images = r[0] if r is not None else s[0]
            top, keep = op.nms_top_k, op.keep_top_k
            if top > -1:
                per = Dim(min(b[1].hi, top), min(b[1].hi, top)) if b[1].hi is not None else DYNAMIC
            else:
                per = b[1]
            per = per * classes
            if keep > -1 and (per.hi is None or keep < per.hi):
                per = Dim(keep, keep)
            per = per * images
            rows = Dim(0, per.hi)
            count = images
    return Inference([TensorInfo(PartialShape((rows, Dim(6, 6))), boxes.etype),
                      TensorInfo(PartialShape((rows, Dim(1, 1))), op.output_type),
                      TensorInfo(PartialShape((count,)), op.output_type)])


def images_of(boxes: np.ndarray, scores: np.ndarray, rois: np.ndarray | None):
    """Per image: (boxes per class [C, M, 4], scores [C, M], first box index)."""
    if rois is None:
        for i in range(scores.shape[0]):
            yield np.broadcast_to(boxes[i], (scores.shape[1], *boxes[i].shape)), scores[i], 0
        return
    head = 0
    for n in rois.reshape(-1).tolist():
        n = max(int(n), 0)
        yield boxes[:, head:head + n], scores[:, head:head + n], head
        head += n


def finish(op: Op, found: list[list[tuple]], boxes_dtype: np.dtype, flat, by_class: bool) -> list[np.ndarray]:
    """Order, cut and write the outputs from each image's (score, class, box, coords) tuples
    (``by_class``: each image's boxes ordered by class after the cut)."""
    per_image = []
    for i, kept in enumerate(found):
        kept.sort(key=lambda t: (-float(t[0]), t[1], t[2]))
        if op.keep_top_k > -1:
            kept = kept[: op.keep_top_k]
        if by_class:
            kept.sort(key=lambda t: (t[1], -float(t[0]), t[2]))
        per_image.append([(i, *t) for t in kept])
    rows = [r for image in per_image for r in image]
    if op.sort_result_across_batch:
        if op.sort_result_type == "score":
            rows.sort(key=lambda r: (-float(r[1]), r[0], r[2], r[3]))
        elif op.sort_result_type == "classid":
            rows.sort(key=lambda r: (r[2], r[0], -float(r[1]), r[3]))
    total = len(rows)
    limits.require(total * 64, f"{op.type}'s {total} selected boxes")
    out = np.zeros((total, 6), np.float32)
    idx = np.zeros((total, 1), np.int64)
    for k, (i, score, c, box, coords) in enumerate(rows):
        out[k] = [c, score, *coords]
        idx[k, 0] = flat(i, c, box)
    it = op.output_type.dtype
    return [out.astype(boxes_dtype), idx.astype(it), np.array([len(p) for p in per_image], it)]


class _MulticlassNms(Op):
    family = "detection"
    outputs = 3
    attributes = {
        "sort_result_type": Enum("none", "score", "classid", doc="order of the kept boxes"),
        "sort_result_across_batch": Attr("bool", False, doc="order all images' boxes together"),
        "output_type": IndexType(doc="i32 or i64: selected_indices and valid_outputs"),
        "iou_threshold": Attr("float", 0.0, doc="IoU at or above which a box is suppressed"),
        "score_threshold": Attr("float", 0.0, doc="lowest score of a candidate"),
        "nms_top_k": Attr("int", -1, doc="candidates per class (-1: all)"),
        "keep_top_k": Attr("int", -1, doc="boxes kept per image (-1: all)"),
        "background_class": Attr("int", -1, doc="class skipped (-1: none)"),
        "nms_eta": Attr("float", 1.0, doc="adaptive threshold factor"),
        "normalized": Attr("bool", True, doc="coordinates normalized (else pixels, counted inclusively)"),
    }

    def validate(self) -> list:
        errors = []
        if self.nms_top_k < -1 or self.keep_top_k < -1:
            errors.append(op_error("nms_top_k and keep_top_k must be -1 or more", "bad-attribute"))
        if not 0 <= self.nms_eta <= 1:
            errors.append(op_error(f"nms_eta={self.nms_eta} must be in [0, 1]", "bad-attribute"))
        return errors

    def infer(self, boxes: TensorInfo, scores: TensorInfo, *rois: TensorInfo) -> Inference:
        return nms_infer(self, boxes, scores, rois[0] if rois else None)

    def compute(self, plan: None, boxes: np.ndarray, scores: np.ndarray, *rois: np.ndarray) -> Sequence[np.ndarray]:
        r = rois[0] if rois else None
        found, heads = [], []
        for image_boxes, image_scores, head in images_of(boxes.astype(np.float32), scores.astype(np.float32), r):
            heads.append(head)
            kept = []
            for c in range(image_scores.shape[0]):
                if c == self.background_class:
                    continue
                for box, score in self._select(image_boxes[c], image_scores[c]):
                    kept.append((score, c, box, image_boxes[c, box]))
            found.append(kept)
        classes, num_boxes = scores.shape[-2], boxes.shape[-2]
        if r is None:
            def flat(i: int, c: int, box: int) -> int:
                return i * num_boxes + box
        else:
            def flat(i: int, c: int, box: int) -> int:
                return (heads[i] + box) * classes + c
        return finish(self, found, boxes.dtype, flat,
                      not self.sort_result_across_batch and self.sort_result_type == "classid")

    def _select(self, boxes: np.ndarray, scores: np.ndarray) -> list[tuple[int, np.float32]]:
        cand = np.flatnonzero(scores >= f32(self.score_threshold))
        cand = cand[np.argsort(-scores[cand], kind="stable")]
        if self.nms_top_k > -1:
            cand = cand[: self.nms_top_k]
        threshold = f32(self.iou_threshold)
        floor = f32(self.score_threshold)
        kept: list[int] = []
        for idx in cand.tolist():
            if kept:
                ious = iou_row(boxes[idx], boxes[np.array(kept[::-1])], self.normalized)  # newest first
                hit = np.flatnonzero(ious >= threshold)
                # an unchanged score <= score_threshold stops the checks after the first kept box
                reach = 1 if scores[idx] <= floor else len(kept)
                if hit.size and hit[0] < reach:
                    continue
            if self.nms_eta < 1 and threshold > 0.5:
                threshold = f32(threshold * f32(self.nms_eta))
            kept.append(idx)
        return [(i, scores[i]) for i in kept]


@register
class MulticlassNms8(_MulticlassNms):
    type, version = "MulticlassNms", 8
    summary = "per-class NMS with top-k per class and per image (PaddlePaddle)"
    inputs = (In("boxes", REAL, rank=3), In("scores", same_as("boxes"), rank=3))


@register
class MulticlassNms9(_MulticlassNms):
    type, version = "MulticlassNms", 9
    summary = "MulticlassNms-8 that also takes per-class boxes of images given by roisnum"
    inputs = (In("boxes", REAL, rank=3), In("scores", same_as("boxes"), rank=(2, 3)),
              In("roisnum", INDEX, rank=1, optional=True))
