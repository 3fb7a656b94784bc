"""Conformance tables of DetectionOutput-1 and -8.  The reference follows the
spec's steps box by box with f32 scalars: decode, per-class (or MXNet-style
per-prior) NMS, keep_top_k, rows padded after a -1 marker."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from conformance.harness import OV_DIMS_UNCHECKED, Case, ErrorCase, OpTable, Tol, conformance, table_rng

f32 = np.float32
CENTER, CORNER = "caffe.PriorBoxParameter.CENTER_SIZE", "caffe.PriorBoxParameter.CORNER"


def _iou(a: list, b: list) -> f32:
    if b[0] > a[2] or b[2] < a[0] or b[1] > a[3] or b[3] < a[1]:
        return f32(0)
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if not (w > 0 and h > 0):
        return f32(0)

    def size(x: list) -> f32:
        return f32(0) if x[2] < x[0] or x[3] < x[1] else (x[2] - x[0]) * (x[3] - x[1])

    return f32(w * h / (size(a) + size(b) - w * h))


def ref_detection_output(version: int):
    def ref(x: list[np.ndarray], a: dict[str, Any]) -> list[np.ndarray]:
        loc, conf, pri = x[0], x[1], x[2]
        arm = x[3:] if len(x) == 5 else None
        norm = a.get("normalized", False)
        size = 4 if norm else 5
        n_pri = pri.shape[2] // size
        classes = int(a["num_classes"]) if version == 1 else conf.shape[1] // n_pri
        share = a.get("share_location", True)
        bg, top_k, keep = int(a.get("background_label_id", 0)), int(a.get("top_k", -1)), int(a["keep_top_k"][0])
        conf_t, nms_t = f32(a.get("confidence_threshold", 0.0)), f32(a["nms_threshold"])
        encoded, code = a.get("variance_encoded_in_target", False), a.get("code_type", CORNER)
        mx = a.get("decrease_label_id", False)
        rows = loc.shape[0] * keep if keep > 0 else (loc.shape[0] * top_k * classes if keep == -1 and top_k > 0
                                                     else loc.shape[0] * n_pri * classes)
        out: list[list[f32]] = []

        def decode(p: list, v: list, d: list) -> list:
            if code == CORNER:
                r = [p[k] + (d[k] if encoded else v[k] * d[k]) for k in range(4)]
            else:
                s = d if encoded else [v[k] * d[k] for k in range(4)]
                w, h = p[2] - p[0], p[3] - p[1]
                cx, cy = (p[0] + p[2]) / f32(2), (p[1] + p[3]) / f32(2)
                dcx, dcy = s[0] * w + cx, s[1] * h + cy
                dw, dh = f32(math.exp(s[2])) * w, f32(math.exp(s[3])) * h
                r = [dcx - dw / f32(2), dcy - dh / f32(2), dcx + dw / f32(2), dcy + dh / f32(2)]
            if a.get("clip_before_nms", False):
                r = [max(f32(0), min(f32(1), t)) for t in r]
            return [f32(t) for t in r]

        for i in range(loc.shape[0]):
            flat = pri[i if pri.shape[0] > 1 else 0].reshape(-1)
            boxes, score = {}, {}
            for c in range(classes):
                score[c] = [f32(conf[i, p * classes + c]) for p in range(n_pri)]
            if arm is not None:
                for p in range(n_pri):
                    if f32(arm[0][i, p * 2 + 1]) < f32(a.get("objectness_score", 0.0)):
                        for c in range(classes):
                            score[c][p] = f32(1 if c == bg else 0)
            for lc in range(1 if share else classes):
                label = -1 if share else lc
                if bg > -1 and label == bg:
                    continue
                boxes[label] = []
                for p in range(n_pri):
                    pb = [f32(flat[p * size + size - 4 + k]) for k in range(4)]
                    if not norm:
                        pb = [pb[0] / f32(a.get("input_width", 1)), pb[1] / f32(a.get("input_height", 1)),
                              pb[2] / f32(a.get("input_width", 1)), pb[3] / f32(a.get("input_height", 1))]
                    v = [] if encoded else [f32(flat[n_pri * size + p * 4 + k]) for k in range(4)]
                    nc = 1 if share else classes
                    if arm is not None:
                        pb = decode(pb, v, [f32(arm[1][i, (p * nc + lc) * 4 + k]) for k in range(4)])
                    boxes[label].append(decode(pb, v, [f32(loc[i, (p * nc + lc) * 4 + k]) for k in range(4)]))
            kept: dict[int, list[int]] = {}
            if not mx:
                for c in range(classes):
                    if c == bg or (-1 if share else c) not in boxes:
                        continue
                    bx = boxes[-1 if share else c]
                    cand = sorted((p for p in range(n_pri) if score[c][p] > conf_t), key=lambda p: (-score[c][p], p))
                    if top_k > -1:
                        cand = cand[:top_k]
                    kept[c] = []
                    for p in cand:
                        if all(_iou(bx[p], bx[q]) <= nms_t for q in kept[c]):
                            kept[c].append(p)
            else:
                pairs = []
                for p in range(n_pri):
                    best, bc = f32(-1), 0
                    for c in range(1, classes):
                        if c != bg and score[c][p] > best:
                            best, bc = score[c][p], c
                    if bc > 0 and best >= conf_t:
                        pairs.append((best, bc, p))
                pairs.sort(key=lambda t: (-t[0], t[2]))
                for _, c, p in pairs[:top_k] if top_k != -1 else pairs:
                    bx = boxes[-1 if share else c]
                    if all(_iou(bx[p], bx[q]) <= nms_t for q in kept.get(c, [])):
                        kept.setdefault(c, []).append(p)
            total = sum(len(v) for v in kept.values())
            if keep > -1 and total > keep:
                best = sorted(((score[c][p], c, p) for c in sorted(kept) for p in kept[c]),
                              key=lambda t: (-t[0], t[2]))[:keep]
                kept = {}
                for _, c, p in best:
                    kept.setdefault(c, []).append(p)
            for c in sorted(kept):
                for p in kept[c]:
                    b = boxes[-1 if share else c][p]
                    if a.get("clip_after_nms", False):
                        b = [max(f32(0), min(f32(1), t)) for t in b]
                    out.append([f32(i), f32(c - 1 if mx else c), score[c][p], *b])
        result = np.zeros((rows, 7), np.float32)
        for k, r in enumerate(out[:rows]):
            result[k] = r
        if len(out) < rows:
            result[len(out), 0] = -1
        return [result.reshape(1, 1, rows, 7).astype(loc.dtype)]
    return ref


def ssd_inputs(images: int, priors: int, classes: int, share: bool = True, normalized: bool = True,
               encoded: bool = False, prior_batch: int = 1, five: bool = False, dtype: Any = np.float32) -> list:
    loc_classes = 1 if share else classes
    loc = (rng.standard_normal((images, priors * loc_classes * 4)) * 0.3).astype(dtype)
    logits = rng.standard_normal((images, priors, classes)) * 2
    conf = (np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)).reshape(images, -1).astype(dtype)
    xy = rng.uniform(0, 0.8, (prior_batch, priors, 2))
    wh = rng.uniform(0.05, 0.4, (prior_batch, priors, 2))
    boxes = np.concatenate([xy, xy + wh], -1)
    if not normalized:
        boxes = np.concatenate([np.zeros((prior_batch, priors, 1)), boxes * 300], -1)
    rows = [boxes.reshape(prior_batch, 1, -1)]
    if not encoded:
        var = np.tile([0.1, 0.1, 0.2, 0.2], (prior_batch, priors))
        pad = np.zeros((prior_batch, priors * (1 if not normalized else 0)))
        rows.append(np.concatenate([var, pad], -1).reshape(prior_batch, 1, -1))
    pri = np.concatenate(rows, 1).astype(dtype)
    out = [loc, conf, pri]
    if five:
        out += [rng.uniform(0, 1, (images, priors * 2)).astype(dtype),
                (rng.standard_normal((images, priors * loc_classes * 4)) * 0.2).astype(dtype)]
    return out


def attrs(version: int, classes: int, **kw: Any) -> dict[str, Any]:
    base = {"keep_top_k": [10], "nms_threshold": 0.45, "confidence_threshold": 0.05, "top_k": 20,
            "code_type": CENTER, "normalized": True, **kw}
    return {"num_classes": classes, **base} if version == 1 else base


def cases(version: int) -> list[Case]:
    return [
        Case("ssd-center", ssd_inputs(1, 30, 4), attrs=attrs(version, 4)),
        Case("batch-2-corner", ssd_inputs(2, 25, 3), attrs=attrs(version, 3, code_type=CORNER, clip_after_nms=True)),
        Case("not-shared", ssd_inputs(2, 20, 3, share=False), attrs=attrs(version, 3, share_location=False,
                                                                          clip_before_nms=True)),
        Case("pixels", ssd_inputs(1, 20, 3, normalized=False), attrs=attrs(version, 3, normalized=False,
                                                                            input_height=300, input_width=300)),
        Case("encoded-keep-all", ssd_inputs(1, 16, 3, encoded=True),
             attrs=attrs(version, 3, variance_encoded_in_target=True, keep_top_k=[-1], top_k=-1)),
        Case("top-k-rows", ssd_inputs(1, 16, 3), attrs=attrs(version, 3, keep_top_k=[-1], top_k=5)),
        Case("mxnet", ssd_inputs(2, 24, 4), attrs=attrs(version, 4, decrease_label_id=True)),
        Case("no-background", ssd_inputs(1, 12, 3, prior_batch=1), attrs=attrs(version, 3, background_label_id=-1)),
        Case("priors-per-image", ssd_inputs(2, 12, 3, prior_batch=2), attrs=attrs(version, 3)),
        Case("refinedet", ssd_inputs(1, 16, 3, five=True), attrs=attrs(version, 3, objectness_score=0.4)),
        Case("f16", ssd_inputs(1, 16, 3, dtype=np.float16), attrs=attrs(version, 3)),
        Case("few-detections", ssd_inputs(1, 10, 3), attrs=attrs(version, 3, confidence_threshold=0.6,
                                                                  keep_top_k=[50])),
    ]


def errors(version: int) -> list[ErrorCase]:
    good = ssd_inputs(1, 10, 3)
    return [
        ErrorCase("loc-not-multiple", [good[0][:, :38], good[1], good[2]], attrs=attrs(version, 3),
                  code="incompatible-inputs"),
        ErrorCase("no-box-logits", [good[0][:, :0], good[1], good[2]], attrs=attrs(version, 3),
                  code="incompatible-inputs", ov=OV_DIMS_UNCHECKED),
        ErrorCase("conf-count", [good[0], good[1][:, :27], good[2]], attrs=attrs(version, 3),
                  code="incompatible-inputs"),
        ErrorCase("prior-rows", [good[0], good[1], good[2][:, :1]], attrs=attrs(version, 3),
                  code="incompatible-inputs"),
        ErrorCase("integer-logits", [good[0].astype(np.int32), good[1].astype(np.int32), good[2]],
                  attrs=attrs(version, 3), code="bad-input-type"),
        ErrorCase("types-differ", [good[0], good[1].astype(np.float16), good[2]], attrs=attrs(version, 3),
                  code="bad-input-type"),
        ErrorCase("bad-code-type", good, attrs=attrs(version, 3, code_type="CENTER"), code="bad-attribute"),
        ErrorCase("no-keep-top-k", good, attrs={k: v for k, v in attrs(version, 3).items() if k != "keep_top_k"},
                  code="bad-attribute", ov="OpenVINO's IR reader crashes (segmentation fault) on a DetectionOutput without keep_top_k"),
        ErrorCase("priors-rank-2", [good[0], good[1], good[2][:, 0]], attrs=attrs(version, 3), code="bad-input-rank"),
    ]


TOL = Tol(rtol=1e-6, atol=1e-6)  # f32 steps in another order (vector and scalar)
rng = table_rng("DetectionOutput-1")
DETECTION_OUTPUT1 = OpTable("DetectionOutput", "opset1", reference=ref_detection_output(1), tol=TOL, cases=cases(1),
                            errors=errors(1))
rng = table_rng("DetectionOutput-8")
DETECTION_OUTPUT8 = OpTable("DetectionOutput", "opset8", reference=ref_detection_output(8), tol=TOL, cases=cases(8),
                            errors=errors(8))

TABLES = [DETECTION_OUTPUT1, DETECTION_OUTPUT8]
test_conformance = conformance(TABLES)
