"""Conformance table of ExperimentalDetectronDetectionOutput-6.  The
reference refines and compares boxes one at a time with f32 scalars."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, Tol, conformance, table_rng

f32 = np.float32


def _iou(a: list, b: list, area_a: f32, area_b: f32) -> f32:
    if b[0] > a[2] or b[2] < a[0] or b[1] > a[3] or b[3] < a[1]:
        return f32(0)
    iw = min(a[2], b[2]) - max(a[0], b[0]) + f32(1)
    ih = min(a[3], b[3]) - max(a[1], b[1]) + f32(1)
    if iw <= 0 or ih <= 0:
        return f32(0)
    return f32(iw * ih / (area_a + area_b - iw * ih))


def ref_detectron_output(x: list[np.ndarray], a: dict[str, Any]) -> list[np.ndarray]:
    rois, deltas, scores = x[0], x[1], x[2]
    k, top = int(a["num_classes"]), int(a["max_detections_per_image"])
    wts = [f32(v) for v in a["deltas_weights"]]
    cap = f32(a["max_delta_log_wh"])
    found = []
    for c in range(1, k):
        cand = []
        for i, r in enumerate(rois.astype(np.float32)):
            if r[2] - r[0] <= 0 or r[3] - r[1] <= 0 or not f32(scores[i, c]) > f32(a["score_threshold"]):
                continue
            ww, hh = r[2] - r[0] + f32(1), r[3] - r[1] + f32(1)
            d = [f32(deltas[i, c * 4 + q]) / wts[q] for q in range(4)]
            cx, cy = d[0] * ww + (r[0] + f32(0.5) * ww), d[1] * hh + (r[1] + f32(0.5) * hh)
            pw, ph = f32(math.exp(min(d[2], cap))) * ww, f32(math.exp(min(d[3], cap))) * hh
            box = [max(f32(0), cx - f32(0.5) * pw), max(f32(0), cy - f32(0.5) * ph),
                   max(f32(0), cx + f32(0.5) * pw - f32(1)), max(f32(0), cy + f32(0.5) * ph - f32(1))]
            cand.append((f32(scores[i, c]), i, box, (box[2] - box[0] + f32(1)) * (box[3] - box[1] + f32(1))))
        cand.sort(key=lambda t: (-t[0], t[1]))
        kept = []
        for t in cand:
            if all(_iou(t[2], q[2], t[3], q[3]) <= f32(a["nms_threshold"]) for q in kept):
                kept.append(t)
        found += [(t[0], c, t[1], t[2]) for t in kept[: int(a["post_nms_count"])]]
    if len(found) > top:
        found = sorted(found, key=lambda t: (-t[0], t[2]))[:top]
    boxes, classes, out_scores = np.zeros((top, 4), np.float32), np.zeros(top, np.int32), np.zeros(top, np.float32)
    for q, (s, c, _, box) in enumerate(found):
        boxes[q], classes[q], out_scores[q] = box, c, s
    return [boxes, classes, out_scores]


def inputs(n: int, k: int) -> list[np.ndarray]:
    xy = rng.uniform(0, 200, (n, 2))
    rois = np.concatenate([xy, xy + rng.uniform(5, 80, (n, 2))], 1).astype(np.float32)
    rois[n // 3] = [50, 50, 40, 60]  # no width: skipped
    deltas = (rng.standard_normal((n, 4 * k)) * 0.5).astype(np.float32)
    scores = rng.uniform(0, 1, (n, k)).astype(np.float32)
    return [rois, deltas, scores, np.array([[300, 320, 1]], np.float32)]


def attrs(**kw: Any) -> dict[str, Any]:
    return {"score_threshold": 0.3, "nms_threshold": 0.5, "max_delta_log_wh": 1.5, "num_classes": 4,
            "post_nms_count": 6, "max_detections_per_image": 12, "class_agnostic_box_regression": False,
            "deltas_weights": [10.0, 10.0, 5.0, 5.0], **kw}


rng = table_rng("ExperimentalDetectronDetectionOutput-6")
DETECTRON_OUTPUT = OpTable("ExperimentalDetectronDetectionOutput", "opset6", reference=ref_detectron_output,
                           tol=Tol(rtol=1e-5, atol=1e-4), cases=[
    Case("cut-to-max", inputs(30, 4), attrs=attrs()),
    Case("fewer-than-max", inputs(12, 3), attrs=attrs(num_classes=3, score_threshold=0.6, max_detections_per_image=20)),
    Case("capped-sizes", inputs(20, 2), attrs=attrs(num_classes=2, max_delta_log_wh=0.1, deltas_weights=[1, 1, 1, 1],
                                                    nms_threshold=0.3)),
], errors=[
    ErrorCase("deltas-columns", [inputs(5, 4)[0], np.zeros((5, 15), np.float32), *inputs(5, 4)[2:]], attrs=attrs(),
              code="incompatible-inputs"),
    ErrorCase("scores-columns", [*inputs(5, 4)[:2], np.zeros((5, 3), np.float32), inputs(5, 4)[3]], attrs=attrs(),
              code="incompatible-inputs"),
    ErrorCase("im-info", [*inputs(5, 4)[:3], np.zeros((1, 4), np.float32)], attrs=attrs(), code="incompatible-inputs"),
    ErrorCase("weights-3", inputs(5, 4), attrs=attrs(deltas_weights=[1, 1, 1]), code="bad-attribute",
              ov="OpenVINO's shape inference does not check how many deltas_weights there are"),
    ErrorCase("count", [inputs(5, 4)[0], *inputs(6, 4)[1:]], attrs=attrs(), code="incompatible-inputs"),
])

TABLES = [DETECTRON_OUTPUT]
test_conformance = conformance(TABLES)
