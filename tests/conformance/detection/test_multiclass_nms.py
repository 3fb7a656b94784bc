"""Conformance tables of MulticlassNms-8 and -9.  The reference runs the
spec's greedy NMS with Python lists, box against box, in f32."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, Tol, conformance, table_rng

f32 = np.float32


def iou(a: np.ndarray, b: np.ndarray, normalized: bool) -> f32:
    n = f32(0 if normalized else 1)
    area_a, area_b = (a[3] - a[1] + n) * (a[2] - a[0] + n), (b[3] - b[1] + n) * (b[2] - b[0] + n)
    if area_a <= 0 or area_b <= 0:
        return f32(0)
    inter = max(min(a[3], b[3]) - max(a[1], b[1]) + n, f32(0)) * max(min(a[2], b[2]) - max(a[0], b[0]) + n, f32(0))
    return f32(inter / (area_a + area_b - inter))


def ref_multiclass(x: list[np.ndarray], a: dict[str, Any]) -> list[np.ndarray]:
    boxes, scores = x[0].astype(np.float32), x[1].astype(np.float32)
    rois = x[2] if len(x) > 2 else None
    norm, thr0 = a.get("normalized", True), f32(a.get("iou_threshold", 0))
    floor, eta = f32(a.get("score_threshold", 0)), f32(a.get("nms_eta", 1))
    top, keep, bg = int(a.get("nms_top_k", -1)), int(a.get("keep_top_k", -1)), int(a.get("background_class", -1))
    images = []
    if rois is None:
        for i in range(scores.shape[0]):
            images.append(([boxes[i]] * scores.shape[1], scores[i], 0))
    else:
        head = 0
        for n in rois:
            images.append(([boxes[c, head:head + n] for c in range(boxes.shape[0])], scores[:, head:head + n], head))
            head += int(n)
    rows, counts = [], []
    for i, (bx, sc, head) in enumerate(images):
        kept_all = []
        for c in range(sc.shape[0]):
            if c == bg:
                continue
            cand = sorted((j for j in range(sc.shape[1]) if sc[c, j] >= floor), key=lambda j: (-sc[c, j], j))
            cand = cand[:top] if top > -1 else cand
            thr, kept = thr0, []
            for j in cand:
                ok = True
                for k in reversed(kept):
                    if iou(bx[c][j], bx[c][k], norm) >= thr:
                        ok = False
                        break
                    if sc[c, j] <= floor:
                        break
                if ok:
                    if eta < 1 and thr > 0.5:
                        thr = f32(thr * eta)
                    kept.append(j)
            kept_all += [(sc[c, j], c, j, bx[c][j]) for j in kept]
        kept_all.sort(key=lambda t: (-t[0], t[1], t[2]))
        kept_all = kept_all[:keep] if keep > -1 else kept_all
        if not a.get("sort_result_across_batch", False) and a.get("sort_result_type", "none") == "classid":
            kept_all.sort(key=lambda t: (t[1], -t[0], t[2]))
        counts.append(len(kept_all))
        flat = [(j * 1 + i * bx[0].shape[0]) if rois is None else (head + j) * sc.shape[0] + c for (_, c, j, _) in kept_all]
        rows += [(i, s, c, j, b, f) for (s, c, j, b), f in zip(kept_all, flat)]
    if a.get("sort_result_across_batch", False):
        if a.get("sort_result_type", "none") == "score":
            rows.sort(key=lambda r: (-r[1], r[0], r[2], r[3]))
        elif a.get("sort_result_type", "none") == "classid":
            rows.sort(key=lambda r: (r[2], r[0], -r[1], r[3]))
    it = np.int32 if a.get("output_type", "i64") == "i32" else np.int64
    out = np.array([[c, s, *b] for (_, s, c, _, b, _) in rows], np.float32).reshape(-1, 6)
    return [out.astype(x[0].dtype), np.array([r[5] for r in rows], it).reshape(-1, 1), np.array(counts, it)]


def shared(n: int, m: int, c: int) -> list[np.ndarray]:
    xy = rng.uniform(0, 0.7, (n, m, 2))
    boxes = np.concatenate([xy, xy + rng.uniform(0.05, 0.3, (n, m, 2))], -1).astype(np.float32)
    return [boxes, rng.uniform(0, 1, (n, c, m)).astype(np.float32)]


def per_class(c: int, counts: list[int]) -> list[np.ndarray]:
    m = sum(counts)
    xy = rng.uniform(0, 0.7, (c, m, 2))
    boxes = np.concatenate([xy, xy + rng.uniform(0.05, 0.3, (c, m, 2))], -1).astype(np.float32)
    return [boxes, rng.uniform(0, 1, (c, m)).astype(np.float32), np.array(counts, np.int32)]


def attrs(**kw: Any) -> dict[str, Any]:
    return {"iou_threshold": 0.4, "score_threshold": 0.2, "sort_result_type": "score", **kw}


def cases(version: int) -> list[Case]:
    extra = [
        Case("roisnum", per_class(3, [6, 9]), attrs=attrs(keep_top_k=8)),
        Case("roisnum-classid-i32", per_class(2, [5, 0, 7]), attrs=attrs(sort_result_type="classid",
                                                                          output_type="i32")),
    ] if version == 9 else []
    return [
        Case("score", shared(2, 12, 3), attrs=attrs()),
        Case("classid-background", shared(2, 10, 4), attrs=attrs(sort_result_type="classid", background_class=0)),
        Case("across-batch-score", shared(3, 8, 2), attrs=attrs(sort_result_across_batch=True, keep_top_k=5)),
        Case("across-batch-classid", shared(2, 8, 3), attrs=attrs(sort_result_across_batch=True,
                                                                  sort_result_type="classid", nms_top_k=4)),
        Case("pixels-eta", [shared(1, 15, 2)[0] * 50, shared(1, 15, 2)[1]],
             attrs=attrs(normalized=False, nms_eta=0.8, iou_threshold=0.7)),
        Case("none-order", shared(2, 9, 3), attrs=attrs(sort_result_type="none")),
        *extra,
    ]


def errors() -> list[ErrorCase]:
    good = shared(2, 6, 3)
    return [
        ErrorCase("box-dim-5", [np.zeros((2, 6, 5), np.float32), good[1]], code="incompatible-inputs"),
        ErrorCase("boxes-count", [good[0], np.zeros((2, 3, 7), np.float32)], code="incompatible-inputs"),
        ErrorCase("batch", [good[0], np.zeros((3, 3, 6), np.float32)], code="incompatible-inputs"),
        ErrorCase("integer-boxes", [good[0].astype(np.int32), good[1].astype(np.int32)], code="bad-input-type"),
        ErrorCase("top-k", good, attrs={"nms_top_k": -2}, code="bad-attribute"),
        ErrorCase("output-type", good, attrs={"output_type": "f32"}, code="bad-attribute"),
    ]


rng = table_rng("MulticlassNms-8")
MULTICLASS8 = OpTable("MulticlassNms", "opset8", reference=ref_multiclass, tol=Tol.EXACT, cases=cases(8), errors=errors())
rng = table_rng("MulticlassNms-9")
MULTICLASS9 = OpTable("MulticlassNms", "opset9", reference=ref_multiclass, tol=Tol.EXACT, cases=cases(9), errors=errors())

TABLES = [MULTICLASS8, MULTICLASS9]
test_conformance = conformance(TABLES)
