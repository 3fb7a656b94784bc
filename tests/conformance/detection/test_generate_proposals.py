"""Conformance tables of ExperimentalDetectronGenerateProposalsSingleImage-6
and GenerateProposals-9.  The reference refines each anchor with f32 scalars
and runs the greedy NMS box against box."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from conformance.harness import OV_DIMS_UNCHECKED, OV_READS_DEFAULT, Case, ErrorCase, OpTable, Tol, conformance, table_rng

f32 = np.float32
CAP = f32(math.log(1000.0 / 16.0))


def single(anchors: np.ndarray, deltas: np.ndarray, scores: np.ndarray, info: np.ndarray, a: dict[str, Any],
           off_refine: f32, off_nms: f32, scale: bool) -> tuple[list, list]:
    na, h, w = scores.shape
    img_h, img_w = f32(info[0]), f32(info[1])
    sh = f32(info[2]) if scale and info.size > 2 else f32(1)
    sw = f32(info[3]) if scale and info.size > 3 else sh
    props = []
    for i in range(h):
        for j in range(w):
            for k in range(na):
                x0, y0, x1, y1 = (f32(v) for v in anchors.reshape(-1, 4)[(i * w + j) * na + k])
                d = [f32(deltas[4 * k + q, i, j]) for q in range(4)]
                ww, hh = x1 - x0 + off_refine, y1 - y0 + off_refine
                cx, cy = d[0] * ww + (x0 + f32(0.5) * ww), d[1] * hh + (y0 + f32(0.5) * hh)
                pw, ph = f32(math.exp(min(d[2], CAP))) * ww, f32(math.exp(min(d[3], CAP))) * hh
                box = [max(f32(0), min(cx - f32(0.5) * pw, img_w - off_refine)),
                       max(f32(0), min(cy - f32(0.5) * ph, img_h - off_refine)),
                       max(f32(0), min(cx + f32(0.5) * pw - off_refine, img_w - off_refine)),
                       max(f32(0), min(cy + f32(0.5) * ph - off_refine, img_h - off_refine))]
                big = (f32(a["min_size"]) * sw <= box[2] - box[0] + off_refine
                       and f32(a["min_size"]) * sh <= box[3] - box[1] + off_refine)
                props.append((f32(scores[k, i, j]), box, big))
    order = sorted(range(len(props)), key=lambda q: -props[q][0])[: int(a["pre_nms_count"])]
    kept: list[int] = []
    dead = {q for q in order if not props[q][2]}
    for q in order:
        if len(kept) == int(a["post_nms_count"]):
            break
        if q in dead:
            continue
        kept.append(q)
        A = props[q][1]
        for r in order:
            if r in dead or r in kept:
                continue
            B = props[r][1]
            if not (A[0] <= B[2] and A[1] <= B[3] and B[0] <= A[2] and B[1] <= A[3]):
                continue
            iw = max(f32(0), min(A[2], B[2]) - max(A[0], B[0]) + off_nms)
            ih = max(f32(0), min(A[3], B[3]) - max(A[1], B[1]) + off_nms)
            areas = (A[2] - A[0] + off_nms) * (A[3] - A[1] + off_nms) + (B[2] - B[0] + off_nms) * (B[3] - B[1] + off_nms)
            if f32(a["nms_threshold"]) < f32(iw * ih / (areas - iw * ih)):
                dead.add(r)
    return [props[q][1] for q in kept], [props[q][0] for q in kept]


def ref_single_image(x: list[np.ndarray], a: dict[str, Any]) -> list[np.ndarray]:
    info, anchors, deltas, scores = x
    boxes, sc = single(anchors, deltas, scores, info, a, f32(1), f32(0), False)
    n = int(a["post_nms_count"])
    rois, out = np.zeros((n, 4), np.float32), np.zeros(n, np.float32)
    for k, (b, s) in enumerate(zip(boxes, sc)):
        rois[k], out[k] = b, s
    return [rois, out]


def ref_generate(x: list[np.ndarray], a: dict[str, Any]) -> list[np.ndarray]:
    info, anchors, deltas, scores = x
    off = f32(0 if a.get("normalized", True) else 1)
    rois, out, counts = [], [], []
    for b in range(scores.shape[0]):
        boxes, sc = single(anchors, deltas[b], scores[b], info[b], a, off, off, True)
        rois += boxes
        out += sc
        counts.append(len(boxes))
    it = np.int32 if a.get("roi_num_type", "i64") == "i32" else np.int64
    return [np.array(rois, np.float32).reshape(-1, 4), np.array(out, np.float32), np.array(counts, it)]


def rpn(a: int, h: int, w: int, batch: int | None = None, img: float = 64.0, stride: float = 8.0,
        scale_cols: int = 1) -> list[np.ndarray]:
    cy, cx = np.meshgrid((np.arange(h) + 0.5) * stride, (np.arange(w) + 0.5) * stride, indexing="ij")
    half = rng.uniform(3, 14, (a, 2))
    anchors = np.stack([cx[..., None] - half[:, 0], cy[..., None] - half[:, 1], cx[..., None] + half[:, 0],
                        cy[..., None] + half[:, 1]], -1).astype(np.float32)  # [h, w, a, 4]
    n = batch or 1
    deltas = (rng.standard_normal((n, 4 * a, h, w)) * 0.3).astype(np.float32)
    scores = rng.uniform(0, 1, (n, a, h, w)).astype(np.float32)
    info = np.array([[img, img * 1.25, 1.0, 0.8][: 2 + scale_cols]] * n, np.float32)
    if batch is None:
        return [info[0, :3], anchors.reshape(-1, 4), deltas[0], scores[0]]
    return [info, anchors, deltas, scores]


def gp_attrs(**kw: Any) -> dict[str, Any]:
    return {"min_size": 2.0, "nms_threshold": 0.6, "pre_nms_count": 40, "post_nms_count": 10, **kw}


TOL = Tol(rtol=1e-5, atol=1e-4)
EDGPSI_NMS = ("OpenVINO keeps proposals below min_size (score 0) and only the latest kept proposal suppresses others; "
              "the spec removes small proposals and applies plain NMS")
rng = table_rng("ExperimentalDetectronGenerateProposalsSingleImage-6")
SINGLE = OpTable("ExperimentalDetectronGenerateProposalsSingleImage", "opset6", reference=ref_single_image, tol=TOL,
                 cases=[
    Case("basic", rpn(3, 4, 5), attrs=gp_attrs()),
    Case("few-kept", rpn(2, 3, 3), attrs=gp_attrs(nms_threshold=0.2, post_nms_count=30, pre_nms_count=18)),
    Case("min-size", rpn(3, 4, 4), attrs=gp_attrs(min_size=14.0), ov=EDGPSI_NMS),
], errors=[
    ErrorCase("im-info-4", [np.zeros(4, np.float32), *rpn(3, 4, 5)[1:]], attrs=gp_attrs(), code="incompatible-inputs"),
    ErrorCase("anchors-5", [rpn(3, 4, 5)[0], np.zeros((60, 5), np.float32), *rpn(3, 4, 5)[2:]], attrs=gp_attrs(),
              code="incompatible-inputs"),
    ErrorCase("height", [*rpn(3, 4, 5)[:3], np.zeros((3, 5, 5), np.float32)], attrs=gp_attrs(),
              code="incompatible-inputs"),
    ErrorCase("anchor-count", [rpn(3, 4, 5)[0], np.zeros((59, 4), np.float32), *rpn(3, 4, 5)[2:]], attrs=gp_attrs(),
              code="incompatible-inputs", ov=OV_DIMS_UNCHECKED),
    ErrorCase("deltas-rank-4", [*rpn(3, 4, 5)[:2], np.zeros((1, 12, 4, 5), np.float32), rpn(3, 4, 5)[3]],
              attrs=gp_attrs(), code="bad-input-rank"),
])

rng = table_rng("GenerateProposals-9")
GENERATE = OpTable("GenerateProposals", "opset9", reference=ref_generate, tol=TOL, cases=[
    Case("pixels", rpn(3, 4, 5, batch=2), attrs=gp_attrs(normalized=False)),
    Case("normalized-i32", rpn(2, 3, 4, batch=1), attrs=gp_attrs(normalized=True, roi_num_type="i32")),
    Case("scales-4", rpn(3, 4, 4, batch=3, scale_cols=2), attrs=gp_attrs(normalized=False, min_size=10.0,
                                                                            post_nms_count=6)),
], errors=[
    ErrorCase("im-info-5", [np.zeros((2, 5), np.float32), *rpn(3, 4, 5, batch=2)[1:]], attrs=gp_attrs(),
              code="incompatible-inputs"),
    ErrorCase("batch", [*rpn(3, 4, 5, batch=2)[:3], np.zeros((3, 3, 4, 5), np.float32)], attrs=gp_attrs(),
              code="incompatible-inputs"),
    ErrorCase("anchor-count", [rpn(3, 4, 5, batch=2)[0], np.zeros((4, 5, 2, 4), np.float32),
                               *rpn(3, 4, 5, batch=2)[2:]], attrs=gp_attrs(), code="incompatible-inputs", ov=OV_DIMS_UNCHECKED),
    ErrorCase("roi-num-f32", rpn(3, 4, 5, batch=2), attrs=gp_attrs(roi_num_type="f32"), code="bad-attribute"),
    ErrorCase("no-min-size", rpn(3, 4, 5, batch=2), attrs={k: v for k, v in gp_attrs().items() if k != "min_size"},
              code="bad-attribute", ov=OV_READS_DEFAULT),
])

TABLES = [SINGLE, GENERATE]
test_conformance = conformance(TABLES)
