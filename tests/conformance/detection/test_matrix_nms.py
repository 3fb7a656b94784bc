"""Conformance table of MatrixNms-8.  The reference decays each candidate's
score pair by pair with Python floats (f32 IoU, as the spec's formulas)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, Tol, conformance, table_rng

f32 = np.float32


def iou(a: np.ndarray, b: np.ndarray, normalized: bool) -> f32:
    if b[0] > a[2] or b[2] < a[0] or b[1] > a[3] or b[3] < a[1]:
        return f32(0)
    n = f32(0 if normalized else 1)

    def area(x: np.ndarray) -> f32:
        return f32(0) if x[2] < x[0] or x[3] < x[1] else (x[2] - x[0] + n) * (x[3] - x[1] + n)

    inter = (min(a[2], b[2]) - max(a[0], b[0]) + n) * (min(a[3], b[3]) - max(a[1], b[1]) + n)
    return f32(inter / (area(a) + area(b) - inter))


def ref_matrix(x: list[np.ndarray], a: dict[str, Any]) -> list[np.ndarray]:
    boxes, scores = x[0].astype(np.float32), x[1].astype(np.float32)
    norm, gauss = a.get("normalized", True), a.get("decay_function", "linear") == "gaussian"
    sigma, post = float(a.get("gaussian_sigma", 2.0)), f32(a.get("post_threshold", 0))
    top, keep, bg = int(a.get("nms_top_k", -1)), int(a.get("keep_top_k", -1)), int(a.get("background_class", -1))
    rows, counts = [], []
    for i in range(scores.shape[0]):
        kept = []
        for c in range(scores.shape[1]):
            if c == bg:
                continue
            s = scores[i, c]
            cand = sorted((j for j in range(len(s)) if s[j] > f32(a.get("score_threshold", 0))), key=lambda j: (-s[j], j))
            cand = cand[:top] if top > -1 else cand
            ious = [[iou(boxes[i, cand[p]], boxes[i, cand[q]], norm) for q in range(p)] for p in range(len(cand))]
            max_iou = [max(r, default=f32(0)) for r in ious]
            for p, j in enumerate(cand):
                decay = 1.0
                for q in range(p):
                    if gauss:
                        d = math.exp(float(f32(max_iou[q] * max_iou[q] - ious[p][q] * ious[p][q])) * sigma)
                    else:
                        d = (1.0 - float(ious[p][q])) / (1.0 - float(max_iou[q]) + float(f32(1e-10)))
                    decay = min(decay, float(f32(d)))
                ds = f32(f32(decay) * s[j])
                if ds > post:
                    kept.append((ds, c, j))
        kept.sort(key=lambda t: (-t[0], t[1], t[2]))
        kept = kept[:keep] if keep > -1 else kept
        counts.append(len(kept))
        rows += [(i, *t) for t in kept]
    if a.get("sort_result_across_batch", False):
        if a.get("sort_result_type", "none") == "score":
            rows.sort(key=lambda r: (-r[1], r[0], r[2], r[3]))
        elif a.get("sort_result_type", "none") == "classid":
            rows.sort(key=lambda r: (r[2], r[0], -r[1], r[3]))
    it = np.int32 if a.get("output_type", "i64") == "i32" else np.int64
    out = np.array([[c, s, *boxes[i, j]] for (i, s, c, j) in rows], np.float32).reshape(-1, 6)
    idx = np.array([i * boxes.shape[1] + j for (i, _, _, j) in rows], it).reshape(-1, 1)
    return [out.astype(x[0].dtype), idx, np.array(counts, it)]


def shared(n: int, m: int, c: int) -> list[np.ndarray]:
    xy = rng.uniform(0, 0.7, (n, m, 2))
    boxes = np.concatenate([xy, xy + rng.uniform(0.05, 0.3, (n, m, 2))], -1).astype(np.float32)
    return [boxes, rng.uniform(0, 1, (n, c, m)).astype(np.float32)]


def attrs(**kw: Any) -> dict[str, Any]:
    return {"score_threshold": 0.2, "post_threshold": 0.1, "sort_result_type": "score", **kw}


rng = table_rng("MatrixNms-8")
MATRIX = OpTable("MatrixNms", "opset8", reference=ref_matrix, tol=Tol(rtol=1e-6, atol=1e-7), cases=[
    Case("linear", shared(2, 12, 3), attrs=attrs()),
    Case("gaussian-background", shared(2, 10, 4), attrs=attrs(decay_function="gaussian", background_class=0,
                                                               gaussian_sigma=2.0)),
    Case("across-batch", shared(3, 8, 2), attrs=attrs(sort_result_across_batch=True, keep_top_k=5, nms_top_k=6)),
    Case("across-batch-classid-i32", shared(2, 8, 3), attrs=attrs(sort_result_across_batch=True,
                                                                  sort_result_type="classid", output_type="i32")),
    Case("pixels", [shared(1, 15, 2)[0] * 50, shared(1, 15, 2)[1]], attrs=attrs(normalized=False)),
    Case("empty-first-image", [shared(2, 6, 2)[0], np.concatenate([np.zeros((1, 2, 6), np.float32),
                                                                   shared(1, 6, 2)[1]])], attrs=attrs()),
], errors=[
    ErrorCase("box-dim-5", [np.zeros((2, 6, 5), np.float32), shared(2, 6, 3)[1]], code="incompatible-inputs"),
    ErrorCase("boxes-count", [shared(2, 6, 3)[0], np.zeros((2, 3, 7), np.float32)], code="incompatible-inputs"),
    ErrorCase("decay", shared(2, 6, 3), attrs={"decay_function": "cubic"}, code="bad-attribute"),
    ErrorCase("scores-rank-2", [shared(2, 6, 3)[0], np.zeros((3, 6), np.float32)], code="bad-input-rank"),
])

TABLES = [MATRIX]
test_conformance = conformance(TABLES)
