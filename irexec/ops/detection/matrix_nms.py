"""MatrixNms-8 (SOLOv2's matrix NMS): scores decayed by the IoU with every
better box, instead of boxes removed.

As OpenVINO's reference, in f32: per image and class (but
background_class), boxes scoring above score_threshold, the nms_top_k best
(ties: lower box), are taken best first; box i's score is multiplied by the
smallest decay over the better boxes j: linear (1 - iou_ij) / (1 - max_j +
1e-10), gaussian exp((max_j^2 - iou_ij^2) * gaussian_sigma), max_j the
largest IoU of box j with a box better than it; a box whose decayed score is
<= post_threshold is dropped.  Per image the boxes are ordered by decayed
score (ties: class, box) and cut to keep_top_k; with
sort_result_across_batch all images are ordered together.  An image with no
box counts 0 and the next images go on, as on OpenVINO CPU (its reference
stops there).
Outputs as MulticlassNms: [class, score, box] rows, image * M + box, and the
count per image.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base import limits
from ..framework.base import REAL, Attr, Enum, In, IndexType, Inference, Op, TensorInfo, op_error, same_as
from ..framework.registry import register
from .multiclass_nms import finish, nms_infer

f32 = np.float32


def matrix_iou(boxes: np.ndarray, normalized: bool) -> np.ndarray:
    """IoU of every pair of boxes as OpenVINO's MatrixNms computes it (f32)."""
    b = boxes
    n = f32(0 if normalized else 1)
    w, h = b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]
    area = np.where((b[:, 2] < b[:, 0]) | (b[:, 3] < b[:, 1]), f32(0), (w + n) * (h + n))
    apart = ((b[None, :, 0] > b[:, None, 2]) | (b[None, :, 2] < b[:, None, 0]) | (b[None, :, 1] > b[:, None, 3])
             | (b[None, :, 3] < b[:, None, 1]))
    iw = np.minimum(b[:, None, 2], b[None, :, 2]) - np.maximum(b[:, None, 0], b[None, :, 0]) + n
    ih = np.minimum(b[:, None, 3], b[None, :, 3]) - np.maximum(b[:, None, 1], b[None, :, 1]) + n
    inter = iw * ih
    with np.errstate(all="ignore"):
        iou = inter / (area[:, None] + area[None, :] - inter)
    return np.where(apart, f32(0), iou).astype(np.float32)


@register
class MatrixNms8(Op):
    type, version = "MatrixNms", 8
    family = "detection"
    summary = "matrix NMS: scores decayed by the IoU with better boxes (SOLOv2)"
    inputs = (In("boxes", REAL, rank=3), In("scores", same_as("boxes"), rank=3))
    outputs = 3
    attributes = {
        "sort_result_type": Enum("none", "score", "classid", doc="order across images (sort_result_across_batch)"),
        "output_type": IndexType(doc="i32 or i64: selected_indices and valid_outputs"),
        "nms_top_k": Attr("int", -1, doc="candidates per class (-1: all)"),
        "keep_top_k": Attr("int", -1, doc="boxes kept per image (-1: all)"),
        "sort_result_across_batch": Attr("bool", False, doc="order all images' boxes together"),
        "score_threshold": Attr("float", 0.0, doc="scores at or below it are no candidates"),
        "background_class": Attr("int", -1, doc="class skipped (-1: none)"),
        "decay_function": Enum("linear", "gaussian", doc="score decay from the IoU"),
        "gaussian_sigma": Attr("float", 2.0, doc="gaussian decay factor"),
        "post_threshold": Attr("float", 0.0, doc="decayed scores at or below it are dropped"),
        "normalized": Attr("bool", True, doc="coordinates normalized (else pixels, counted inclusively)"),
    }

    def validate(self) -> list:
        if self.nms_top_k < -1 or self.keep_top_k < -1:
            return [op_error("nms_top_k and keep_top_k must be -1 or more", "bad-attribute")]
        return []

    def infer(self, boxes: TensorInfo, scores: TensorInfo) -> Inference:
        return nms_infer(self, boxes, scores, None)

    def compute(self, plan: None, boxes: np.ndarray, scores: np.ndarray) -> Sequence[np.ndarray]:
        b32, s32 = boxes.astype(np.float32), scores.astype(np.float32)
        found = []
        for i in range(s32.shape[0]):
            kept = []
            for c in range(s32.shape[1]):
                if c == self.background_class:
                    continue
                for box, score in self._decay(b32[i], s32[i, c]):
                    kept.append((score, c, box, b32[i, box]))
            found.append(kept)
        num_boxes = boxes.shape[1]

        def flat(i: int, c: int, box: int) -> int:
            return i * num_boxes + box

        return finish(self, found, boxes.dtype, flat, False)  # per image MatrixNms orders by score only

    def _decay(self, boxes: np.ndarray, scores: np.ndarray) -> list[tuple[int, np.float32]]:
        cand = np.flatnonzero(scores > f32(self.score_threshold))
        cand = cand[np.argsort(-scores[cand], kind="stable")]
        if self.nms_top_k > -1:
            cand = cand[: self.nms_top_k]
        if not cand.size:
            return []
        # the pairwise IoU and decay tables of the candidates (nms_top_k -1: every box above the threshold)
        limits.require(len(cand) ** 2 * 24, f"MatrixNms' IoU table of {len(cand)} boxes")
        iou = np.tril(matrix_iou(boxes[cand], self.normalized), -1)  # iou[i, j] for j < i
        max_iou = iou.max(axis=1)  # each box's largest IoU with a better one (0 for the best)
        if self.decay_function == "gaussian":
            arg = (max_iou[None, :] * max_iou[None, :] - iou * iou) * f32(self.gaussian_sigma)
            decay = np.exp(arg.astype(np.float64)).astype(np.float32)
        else:
            decay = ((1.0 - iou.astype(np.float64)) / (1.0 - max_iou.astype(np.float64)[None, :] + float(f32(1e-10)))
                     ).astype(np.float32)
        lower = np.tri(len(cand), k=-1, dtype=bool)
        min_decay = np.where(lower, decay, f32(1)).min(axis=1)
        decayed = (min_decay * scores[cand]).astype(np.float32)
        keep = decayed > f32(self.post_threshold)
        return [(int(i), d) for i, d in zip(cand[keep], decayed[keep])]
