"""NMSRotated-13: greedy NMS of rotated boxes [x_ctr, y_ctr, w, h, angle].

As OpenVINO's reference: per batch and class, boxes scoring above
score_threshold are taken best first (ties: lower box); a box is dropped
when its IoU with a kept box exceeds iou_threshold; at most
max_output_boxes_per_class per class.  The angle is in radians, clockwise
(with clockwise false it is negated).  The IoU is the area of the two
rectangles' intersection (a convex polygon, clipped in f64) over the union,
0 when either area is not positive.  Outputs as NonMaxSuppression-9: exactly
the selected boxes as [batch, class, box] and [batch, class, score] (f32),
and their count; with sort_result_descending ordered by score across batches
and classes (ties: batch, class, box).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base import dtypes, limits
from ...base.shapes import DYNAMIC, Dim, PartialShape
from ..framework.base import INTEGRAL, REAL, Attr, In, IndexType, Inference, Op, TensorInfo, op_error, same_as
from ..framework.registry import register

f32 = np.float32
BOXES, SCORES, MAX_OUT, IOU, SCORE_T = range(5)
_F32 = dtypes.get("f32")


def corners(box: np.ndarray, clockwise: bool) -> np.ndarray:
    """The four vertices [4, 2] of a rotated box, as OpenVINO's reference orders them."""
    xc, yc, w, h, a = (float(v) for v in box)
    if not clockwise:
        a = -a
    c, s = float(f32(np.cos(f32(a)))) * 0.5, float(f32(np.sin(f32(a)))) * 0.5
    p0 = (xc - s * h - c * w, yc + c * h - s * w)
    p1 = (xc + s * h - c * w, yc - c * h - s * w)
    return np.array([p0, p1, (2 * xc - p0[0], 2 * yc - p0[1]), (2 * xc - p1[0], 2 * yc - p1[1])])


def _clip(poly: list[tuple[float, float]], a: np.ndarray, b: np.ndarray, sign: float) -> list[tuple[float, float]]:
    """The part of ``poly`` on the inner side of the edge a->b (Sutherland-Hodgman)."""
    out: list[tuple[float, float]] = []

    def side(p: tuple[float, float]) -> float:
        return sign * ((b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]))

    for k, p in enumerate(poly):
        q = poly[(k + 1) % len(poly)]
        sp, sq = side(p), side(q)
        if sp >= 0:
            out.append(p)
        if (sp >= 0) != (sq >= 0) and sp != sq:
            t = sp / (sp - sq)
            out.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
    return out


def _area(poly: Sequence[tuple[float, float]] | np.ndarray) -> float:
    n = len(poly)
    return abs(sum(poly[k][0] * poly[(k + 1) % n][1] - poly[(k + 1) % n][0] * poly[k][1] for k in range(n))) / 2


def _polygon_iou(pa: np.ndarray, pb: np.ndarray, area_a: float, area_b: float) -> float:
    """IoU of two rectangles given by their corners [4, 2] and areas."""
    orient = 1.0 if _signed(pb) >= 0 else -1.0
    poly = [tuple(p) for p in pa]
    for k in range(4):
        if not poly:
            return 0.0
        poly = _clip(poly, pb[k], pb[(k + 1) % 4], orient)
    inter = _area(poly) if len(poly) > 2 else 0.0
    return inter / (area_a + area_b - inter)


class _Rects:
    """An image's rotated boxes: corners, areas and bounding rectangles computed once; pairs whose
    bounding rectangles are apart have IoU 0 without their polygon."""

    def __init__(self, boxes: np.ndarray, clockwise: bool):
        self.pts = [corners(box, clockwise) for box in boxes]
        self.area = np.array([float(f32(box[2]) * f32(box[3])) for box in boxes])
        self.lo = np.array([p.min(axis=0) for p in self.pts]).reshape(-1, 2)
        self.hi = np.array([p.max(axis=0) for p in self.pts]).reshape(-1, 2)

    def suppressed(self, i: int, kept: list[int], threshold: float) -> bool:
        """Whether box ``i``'s IoU with a kept box exceeds ``threshold``."""
        if not kept or self.area[i] <= 0:
            return False
        k = np.array(kept)
        near = k[(self.area[k] > 0) & (self.lo[k] <= self.hi[i]).all(axis=1) & (self.hi[k] >= self.lo[i]).all(axis=1)]
        return any(_polygon_iou(self.pts[i], self.pts[j], self.area[i], self.area[j]) > threshold for j in near.tolist())


def _signed(poly: np.ndarray) -> float:
    return sum(poly[k][0] * poly[(k + 1) % 4][1] - poly[(k + 1) % 4][0] * poly[k][1] for k in range(4))


def _value(info: TensorInfo) -> float | int | None:
    v = info.value()
    if v is None:
        return None
    flat = np.asarray(v).reshape(-1)
    return flat[0].item() if flat.size == 1 else None


@register
class NMSRotated13(Op):
    type, version = "NMSRotated", 13
    family = "detection"
    summary = "greedy NMS of rotated boxes per batch and class"
    inputs = (In("boxes", REAL, rank=3), In("scores", same_as("boxes"), rank=3),
              In("max_output_boxes_per_class", INTEGRAL, rank=(0, 1), elements=1, value=True),
              In("iou_threshold", REAL, rank=(0, 1), elements=1, value=True),
              In("score_threshold", REAL, rank=(0, 1), elements=1, value=True))
    outputs = 3
    attributes = {
        "sort_result_descending": Attr("bool", True, doc="order all selected boxes by score"),
        "output_type": IndexType(doc="i32 or i64: selected_indices and valid_outputs"),
        "clockwise": Attr("bool", True, doc="positive angles turn clockwise"),
    }

    def infer(self, boxes: TensorInfo, scores: TensorInfo, limit_in: TensorInfo, iou: TensorInfo,
              score_t: TensorInfo) -> Inference:
        b, s = boxes.shape, scores.shape
        if b.dims is not None and not b[2].contains(5):
            raise op_error(f"the last dim of boxes must be 5 (x_ctr, y_ctr, w, h, angle), got shape {b}",
                           "incompatible-inputs", BOXES)
        if b.dims is not None and s.dims is not None:
            if not b[0].compatible(s[0]):
                raise op_error(f"boxes {b} and scores {s} differ in batch", "incompatible-inputs", SCORES)
            if not b[1].compatible(s[2]):
                raise op_error(f"boxes {b} and scores {s} differ in the number of boxes", "incompatible-inputs",
                               SCORES)
        limit = _value(limit_in)
        if limit is not None and limit < 0:
            raise op_error(f"max_output_boxes_per_class {limit} must not be negative", "bad-value", MAX_OUT)
        count = DYNAMIC
        if limit is not None and b.dims is not None and b[1].hi is not None:
            per_class = min(b[1].hi, int(limit))
            count = Dim(0, per_class)  # as OpenVINO infers it: times the most batches and classes
            if s.dims is not None and per_class:
                hi = None if s[0].hi is None or s[1].hi is None else per_class * s[0].hi * s[1].hi
                count = Dim(0, hi)
        outs = [TensorInfo(PartialShape((count, Dim(3, 3))), self.output_type),
                TensorInfo(PartialShape((count, Dim(3, 3))), _F32),
                TensorInfo(PartialShape((Dim(1, 1),)), self.output_type)]
        iou_t, score = _value(iou), _value(score_t)
        plan = None if limit is None or iou_t is None or score is None else (int(limit), f32(iou_t), f32(score))
        return Inference(outs, plan)

    def compute(self, plan: tuple, boxes: np.ndarray, scores: np.ndarray, *rest: np.ndarray) -> Sequence[np.ndarray]:
        limit, iou_t, score_t = plan
        b32, s32 = boxes.astype(np.float32), scores.astype(np.float32)
        rows = []
        for bi in range(s32.shape[0]):
            image = _Rects(b32[bi], self.clockwise)
            for ci in range(s32.shape[1]):
                s = s32[bi, ci]
                cand = np.flatnonzero(s > score_t)
                cand = cand[np.argsort(-s[cand], kind="stable")]
                kept: list[int] = []
                for idx in cand.tolist():
                    if len(kept) >= limit:
                        break
                    if not image.suppressed(idx, kept, iou_t):
                        kept.append(idx)
                rows += [(bi, ci, k, s[k]) for k in kept]
        if self.sort_result_descending:
            rows.sort(key=lambda r: (-float(r[3]), r[0], r[1], r[2]))
        total = len(rows)
        limits.require(total * 48, f"NMSRotated's {total} selected boxes")
        it = self.output_type.dtype
        idx = np.array([r[:3] for r in rows], it).reshape(total, 3)
        sc = np.array([(r[0], r[1], r[3]) for r in rows], np.float32).reshape(total, 3)
        return [idx, sc, np.array([total], it)]
