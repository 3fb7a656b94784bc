"""Conformance tables of NonMaxSuppression-5 and -9.  The reference follows
the spec's steps literally with Python lists, box by box, in f32."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, Tol, conformance

rng = np.random.default_rng(20261128)
f32 = np.float32


def _corner(b: np.ndarray, center: bool) -> tuple[f32, f32, f32, f32]:
    b = [f32(v) for v in b]
    if center:
        xc, yc, w, h = b
        return yc - h / f32(2), xc - w / f32(2), yc + h / f32(2), xc + w / f32(2)
    y1, x1, y2, x2 = b
    return min(y1, y2), min(x1, x2), max(y1, y2), max(x1, x2)


def _iou(a: tuple, b: tuple) -> f32:
    area_a = (a[2] - a[0]) * (a[3] - a[1])
    area_b = (b[2] - b[0]) * (b[3] - b[1])
    if area_a <= 0 or area_b <= 0:
        return f32(0)
    inter = max(min(a[2], b[2]) - max(a[0], b[0]), f32(0)) * max(min(a[3], b[3]) - max(a[1], b[1]), f32(0))
    return inter / (area_a + area_b - inter)


def ref_nms(version: int):
    def ref(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
        boxes, scores = x[0], x[1]
        limit = int(np.asarray(x[2]).reshape(-1)[0]) if len(x) > 2 else 0
        iou_t, score_t, sigma = (f32(np.asarray(x[i]).reshape(-1)[0]) if len(x) > i else f32(0) for i in (3, 4, 5))
        center = attrs.get("box_encoding", "corner") == "center"
        rows = []
        for b in range(scores.shape[0]):
            for c in range(scores.shape[1]):
                cand = {i: f32(scores[b, c, i]) for i in range(scores.shape[2]) if f32(scores[b, c, i]) >= score_t}
                picked = 0
                while cand and picked < limit:
                    i = max(cand, key=lambda k: (cand[k], -k))
                    s = cand.pop(i)
                    if s < score_t:
                        break
                    rows.append((b, c, i, s))
                    picked += 1
                    for j in list(cand):
                        iou = _iou(_corner(boxes[b, j], center), _corner(boxes[b, i], center))
                        if sigma > 0:
                            if version == 5 and iou > iou_t:
                                del cand[j]
                                continue
                            cand[j] = f32(cand[j] * f32(math.exp(f32(-0.5) / sigma * iou * iou)))
                        elif iou > iou_t:
                            del cand[j]
                            continue
                        if cand[j] < score_t:
                            del cand[j]
        if attrs.get("sort_result_descending", True):
            rows.sort(key=lambda r: (-r[3], r[0], r[1], r[2]))
        it = {"i32": np.int32, "i64": np.int64}[attrs.get("output_type", "i64")]
        idx = np.array([r[:3] for r in rows], it).reshape(-1, 3)
        sc = np.array([(r[0], r[1], r[3]) for r in rows], np.float32).reshape(-1, 3)
        return [idx, sc, np.array([len(rows)], it)]
    return ref


def boxes_scores(batches: int, n: int, classes: int, dtype: Any = np.float32) -> list[np.ndarray]:
    corner = rng.uniform(0, 10, (batches, n, 2))
    size = rng.uniform(1, 4, (batches, n, 2))
    boxes = np.concatenate([corner, corner + size], axis=-1).astype(dtype)
    scores = rng.uniform(0, 1, (batches, classes, n)).astype(dtype)
    return [boxes, scores]


def th(v: float, dtype: Any = np.float32) -> np.ndarray:
    return np.array(v, dtype)


def i64(v: Any) -> np.ndarray:
    return np.array(v, np.int64)


overlap = np.array([[[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11], [0, 10.1, 1, 11.1],
                     [0, 100, 1, 101]]], np.float32)
overlap_scores = np.array([[[0.9, 0.75, 0.6, 0.95, 0.5, 0.3]]], np.float32)
centers = np.array([[[0.5, 0.5, 1, 1], [0.5, 0.6, 1, 1], [0.5, 0.4, 1, 1], [0.5, 10.5, 1, 1], [0.5, 10.6, 1, 1],
                     [0.5, 100.5, 1, 1]]], np.float32)
flipped = overlap[..., [2, 3, 0, 1]].copy()  # the other diagonal's corners
SOFT = "OpenVINO CPU decays soft-NMS scores in another order of f32 products"


def cases(version: int) -> list[Case]:
    return [
        Case("basic", [overlap, overlap_scores, i64(3), th(0.5), th(0.0)], const=(2, 3, 4)),
        Case("center", [centers, overlap_scores, i64(3), th(0.5), th(0.0)], attrs={"box_encoding": "center"},
             const=(2, 3, 4)),
        Case("flipped-corners", [flipped, overlap_scores, i64(3), th(0.5)], const=(2, 3)),
        Case("random-multi", [*boxes_scores(2, 20, 3), i64(5), th(0.3), th(0.2)], const=(2, 3, 4)),
        Case("unsorted-i32", [*boxes_scores(2, 12, 2), i64(4), th(0.4), th(0.1)],
             attrs={"sort_result_descending": False, "output_type": "i32"}, const=(2, 3, 4)),
        Case("score-threshold", [overlap, overlap_scores, i64(10), th(0.9), th(0.55)], const=(2, 3, 4)),
        Case("soft-nms", [*boxes_scores(1, 15, 2), i64(6), th(0.5), th(0.05), th(0.5)], const=(2, 3, 4, 5),
             ov=SOFT if version == 5 else True),
        Case("max-zero", [overlap, overlap_scores, i64(0), th(0.5)], const=(2, 3),
             ov="OpenVINO CPU selects boxes when max_output_boxes_per_class is 0; the spec selects none"),
        Case("no-optional-inputs", [overlap, overlap_scores],
             ov="OpenVINO CPU fails to run NMS without max_output_boxes_per_class (non-static shape in a Convert)"),
        Case("limit-param", [overlap, overlap_scores, np.array([2], np.int32), th(0.5), th(0.0)]),
        Case("f16", [*boxes_scores(1, 10, 2, np.float16), i64(3), th(0.5, np.float16)], const=(2, 3)),
        Case("iou-threshold-zero", [overlap, overlap_scores, i64(6), th(0.0)], const=(2, 3),
             ov="OpenVINO CPU removes boxes whose IoU equals iou_threshold (here disjoint boxes at 0); the spec keeps them"),
        Case("zero-boxes", [np.zeros((1, 0, 4), np.float32), np.zeros((1, 2, 0), np.float32), i64(3)], const=(2,),
             ov="OpenVINO CPU does not run zero-size NMS inputs"),
    ]


def errors() -> list[ErrorCase]:
    return [
        ErrorCase("box-dim-3", [np.zeros((1, 4, 3), np.float32), np.zeros((1, 1, 4), np.float32), i64(2)], const=(2,),
                  code="incompatible-inputs"),
        ErrorCase("box-count", [np.zeros((1, 4, 4), np.float32), np.zeros((1, 1, 5), np.float32), i64(2)], const=(2,),
                  code="incompatible-inputs"),
        ErrorCase("batch", [np.zeros((2, 4, 4), np.float32), np.zeros((1, 1, 4), np.float32), i64(2)], const=(2,),
                  code="incompatible-inputs"),
        ErrorCase("limit-two-values", [overlap, overlap_scores, i64([2, 3])], const=(2,), code="bad-input-rank"),
        ErrorCase("negative-limit", [overlap, overlap_scores, i64(-1)], const=(2,), code="bad-value"),
        ErrorCase("integer-boxes", [overlap.astype(np.int32), overlap_scores, i64(2)], const=(2,), code="bad-input-type"),
        ErrorCase("boxes-rank-2", [overlap[0], overlap_scores, i64(2)], const=(2,), code="bad-input-rank"),
        ErrorCase("output-type-f32", [overlap, overlap_scores, i64(2)], attrs={"output_type": "f32"}, const=(2,),
                  code="bad-attribute"),
    ]


# selected indices are exact; soft-NMS scores are f32 products (OpenVINO CPU: its own order)
NMS5 = OpTable("NonMaxSuppression", "opset5", reference=ref_nms(5), tol=Tol.EXACT, ov_tol=Tol(rtol=1e-5, atol=1e-6),
               cases=cases(5), errors=errors())
NMS9 = OpTable("NonMaxSuppression", "opset9", reference=ref_nms(9), tol=Tol.EXACT, ov_tol=Tol(rtol=1e-5, atol=1e-6),
               cases=cases(9), errors=errors())

TABLES = [NMS5, NMS9]
test_conformance = conformance(TABLES)
