"""Conformance tables of Proposal-1 and -4.  The reference builds each
proposal with f32 scalars, anchor by anchor, then sorts (stably) and runs the
greedy NMS box against box."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from conformance.harness import OV_DIMS_UNCHECKED, OV_READS_DEFAULT, Case, ErrorCase, OpTable, Tol, conformance, table_rng

f32 = np.float32


def _rnd(v: float) -> float:
    return math.copysign(math.floor(abs(v) + 0.5), v)


def ref_proposal(version: int):
    def ref(x: list[np.ndarray], a: dict[str, Any]) -> list[np.ndarray]:
        probs, deltas, image = x
        n, c, h, w = probs.shape
        tf = a.get("framework", "") == "tensorflow"
        off = f32(0 if tf else 1)
        base = int(a["base_size"])
        img_h, img_w, sh = f32(image[0]), f32(image[1]), f32(image[2])
        sw = f32(image[3]) if image.size > 3 else sh
        anchors = []
        for r in a["ratio"]:
            rw = f32(math.sqrt(f32(f32(base * base) / f32(r))))
            rh = f32(rw * f32(r))
            if not tf:
                rw = f32(_rnd(float(rw)))
                rh = f32(_rnd(float(f32(rw * f32(r)))))
            for s in a["scale"]:
                hw, hh = f32(f32(0.5) * (rw * f32(s) - off)), f32(f32(0.5) * (rh * f32(s) - off))
                ctr = f32(f32(0.5) * (f32(base) - off))
                box = [ctr - hw, ctr - hh, ctr + hw, ctr + hh]
                anchors.append([v - f32(base * 0.5) for v in box] if tf else box)
        top = int(a["post_nms_topn"])
        rois, scores = np.zeros((n, top, 5), np.float32), np.zeros((n, top), np.float32)
        for b in range(n):
            props = []
            for i in range(h):
                for j in range(w):
                    gx, gy = (i, j) if tf else (j, i)
                    for k, anc in enumerate(anchors):
                        px, py = f32(gx * int(a["feat_stride"])), f32(gy * int(a["feat_stride"]))
                        x0, y0, x1, y1 = px + anc[0], py + anc[1], px + anc[2], py + anc[3]
                        if tf:
                            x0, x1 = (max(f32(0), min(v, img_w)) for v in (x0, x1))
                            y0, y1 = (max(f32(0), min(v, img_h)) for v in (y0, y1))
                        d = [f32(deltas[b, k * 4 + q, i, j]) for q in range(4)]
                        dx, dy = d[0] / f32(a.get("box_coordinate_scale", 1)), d[1] / f32(a.get("box_coordinate_scale", 1))
                        dw, dh = d[2] / f32(a.get("box_size_scale", 1)), d[3] / f32(a.get("box_size_scale", 1))
                        ww, hh = x1 - x0 + off, y1 - y0 + off
                        cx, cy = dx * ww + (x0 + f32(0.5) * ww), dy * hh + (y0 + f32(0.5) * hh)
                        pw, ph = f32(math.exp(dw)) * ww, f32(math.exp(dh)) * hh
                        x0, y0, x1, y1 = cx - f32(0.5) * pw, cy - f32(0.5) * ph, cx + f32(0.5) * pw, cy + f32(0.5) * ph
                        if a.get("clip_before_nms", True):
                            x0, x1 = (max(f32(0), min(v, img_w - off)) for v in (x0, x1))
                            y0, y1 = (max(f32(0), min(v, img_h - off)) for v in (y0, y1))
                        big = f32(int(a["min_size"])) * sw <= x1 - x0 + off and f32(int(a["min_size"])) * sh <= y1 - y0 + off
                        props.append(([x0, y0, x1, y1], f32(probs[b, len(anchors) + k, i, j]) * f32(big)))
            order = sorted(range(len(props)), key=lambda q: -props[q][1])[: int(a["pre_nms_topn"])]
            kept: list[int] = []
            dead: set[int] = set()
            for pos, q in enumerate(order):
                if pos in dead or len(kept) == top:
                    continue
                kept.append(q)
                A = props[q][0]
                for pos2 in range(pos + 1, len(order)):
                    B = props[order[pos2]][0]
                    iou = f32(0)
                    if A[0] <= B[2] and A[1] <= B[3] and B[0] <= A[2] and B[1] <= A[3]:
                        iw = max(f32(0), min(A[2], B[2]) - max(A[0], B[0]) + off)
                        ih = max(f32(0), min(A[3], B[3]) - max(A[1], B[1]) + off)
                        areas = (A[2] - A[0] + off) * (A[3] - A[1] + off) + (B[2] - B[0] + off) * (B[3] - B[1] + off)
                        iou = f32(iw * ih / (areas - iw * ih))
                    if f32(a["nms_thresh"]) < iou:
                        dead.add(pos2)
            for r, q in enumerate(kept):
                box = props[q][0]
                if a.get("clip_after_nms", False):
                    box = [max(f32(0), min(box[0], img_w)), max(f32(0), min(box[1], img_h)),
                           max(f32(0), min(box[2], img_w)), max(f32(0), min(box[3], img_h))]
                if a.get("normalize", False):
                    box = [box[0] / img_w, box[1] / img_h, box[2] / img_w, box[3] / img_h]
                rois[b, r] = [b, *box]
                scores[b, r] = props[q][1]
            if len(kept) < top:
                rois[b, len(kept), 0] = -1
        out = [rois.reshape(-1, 5).astype(probs.dtype)]
        return out + [scores.reshape(-1).astype(probs.dtype)] if version == 4 else out
    return ref


def rpn(n: int, anchors: int, h: int, w: int, scale: float = 1.0, four: bool = False) -> list[np.ndarray]:
    probs = rng.uniform(0, 1, (n, 2 * anchors, h, w)).astype(np.float32)
    deltas = (rng.standard_normal((n, 4 * anchors, h, w)) * 0.2).astype(np.float32)
    image = np.array([h * 16, w * 16, scale] + ([scale * 1.5] if four else []), np.float32)
    return [probs, deltas, image]


def attrs(**kw: Any) -> dict[str, Any]:
    return {"base_size": 16, "pre_nms_topn": 40, "post_nms_topn": 12, "nms_thresh": 0.6, "feat_stride": 16,
            "min_size": 4, "ratio": [0.5, 1.0, 2.0], "scale": [2.0, 4.0], **kw}


UNSET = "OpenVINO CPU leaves the scores of the unused rows uninitialised (the reference writes 0)"


def cases(version: int) -> list[Case]:
    return [
        Case("caffe", rpn(1, 6, 4, 5), attrs=attrs()),
        Case("batch-2-normalized", rpn(2, 6, 3, 4), attrs=attrs(normalize=True, clip_after_nms=True)),
        Case("tensorflow", rpn(1, 6, 4, 4), attrs=attrs(framework="tensorflow", clip_before_nms=False,
                                                        clip_after_nms=True)),
        Case("scales-4-few-rows", rpn(1, 2, 3, 3, 0.8, four=True), attrs=attrs(ratio=[1.0], scale=[4.0, 8.0],
                                                                               post_nms_topn=30, nms_thresh=0.3,
                                                                               box_size_scale=2.0,
                                                                               box_coordinate_scale=5.0),
             ov=UNSET if version == 4 else True),
        Case("image-const", rpn(1, 6, 3, 3), attrs=attrs(), const=(2,)),
        Case("f16", [x.astype(np.float16) for x in rpn(1, 6, 3, 4)], attrs=attrs()),
    ]


def errors() -> list[ErrorCase]:
    good = rpn(1, 6, 3, 3)
    return [
        ErrorCase("deltas-channels", [good[0], good[1][:, :20], good[2]], attrs=attrs(), code="incompatible-inputs"),
        ErrorCase("image-2", [good[0], good[1], good[2][:2]], attrs=attrs(), code="incompatible-inputs"),
        ErrorCase("batch", [good[0], np.concatenate([good[1]] * 2), good[2]], attrs=attrs(), code="incompatible-inputs"),
        ErrorCase("anchors", good, attrs=attrs(scale=[2.0]), code="incompatible-inputs", ov=OV_DIMS_UNCHECKED),
        ErrorCase("deltas-height", [good[0], good[1][:, :, :2], good[2]], attrs=attrs(), code="incompatible-inputs", ov=OV_DIMS_UNCHECKED),
        ErrorCase("probs-rank-3", [good[0][0], good[1], good[2]], attrs=attrs(), code="bad-input-rank"),
        ErrorCase("no-ratio", good, attrs={k: v for k, v in attrs().items() if k != "ratio"}, code="bad-attribute", ov=OV_READS_DEFAULT),
    ]


TOL = Tol(rtol=1e-5, atol=1e-4)  # f32 steps: vector and scalar orders, pixel coordinates
rng = table_rng("Proposal-1")
PROPOSAL1 = OpTable("Proposal", "opset1", reference=ref_proposal(1), tol=TOL, cases=cases(1), errors=errors())
rng = table_rng("Proposal-4")
PROPOSAL4 = OpTable("Proposal", "opset4", reference=ref_proposal(4), tol=TOL, cases=cases(4), errors=errors())

TABLES = [PROPOSAL1, PROPOSAL4]
test_conformance = conformance(TABLES)
