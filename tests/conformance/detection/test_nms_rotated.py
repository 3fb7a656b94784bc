"""Conformance table of NMSRotated-13.  The reference measures each pair's
intersection by sampling-free geometry of its own: the intersection polygon's
vertices (edge crossings and corners inside the other box) ordered by angle."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from conformance.harness import OV_VALUE_UNCHECKED, Case, ErrorCase, OpTable, Tol, conformance, table_rng

f32 = np.float32


def verts(b: np.ndarray, clockwise: bool) -> list[tuple[float, float]]:
    xc, yc, w, h, a = (float(v) for v in b)
    a = a if clockwise else -a
    ux, uy = math.cos(a), math.sin(a)  # the box's width axis (clockwise in image coordinates: y down)
    vx, vy = -math.sin(a), math.cos(a)
    return [(xc + sx * w / 2 * ux + sy * h / 2 * vx, yc + sx * w / 2 * uy + sy * h / 2 * vy)
            for sx, sy in ((-1, 1), (-1, -1), (1, -1), (1, 1))]


def inside(p: tuple[float, float], poly: list[tuple[float, float]]) -> bool:
    signs = []
    for k in range(4):
        a, b = poly[k], poly[(k + 1) % 4]
        signs.append((b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]))
    return all(s >= -1e-9 for s in signs) or all(s <= 1e-9 for s in signs)


def inter_area(pa: list, pb: list) -> float:
    pts = [p for p in pa if inside(p, pb)] + [p for p in pb if inside(p, pa)]
    for i in range(4):
        a1, a2 = pa[i], pa[(i + 1) % 4]
        for j in range(4):
            b1, b2 = pb[j], pb[(j + 1) % 4]
            d = (a2[0] - a1[0]) * (b2[1] - b1[1]) - (a2[1] - a1[1]) * (b2[0] - b1[0])
            if abs(d) < 1e-14:
                continue
            t = ((b1[0] - a1[0]) * (b2[1] - b1[1]) - (b1[1] - a1[1]) * (b2[0] - b1[0])) / d
            u = ((b1[0] - a1[0]) * (a2[1] - a1[1]) - (b1[1] - a1[1]) * (a2[0] - a1[0])) / d
            if 0 <= t <= 1 and 0 <= u <= 1:
                pts.append((a1[0] + t * (a2[0] - a1[0]), a1[1] + t * (a2[1] - a1[1])))
    if len(pts) < 3:
        return 0.0
    cx, cy = sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts)
    pts.sort(key=lambda p: math.atan2(p[1] - cy, p[0] - cx))
    return abs(sum(pts[k][0] * pts[(k + 1) % len(pts)][1] - pts[(k + 1) % len(pts)][0] * pts[k][1]
                   for k in range(len(pts)))) / 2


def riou(a: np.ndarray, b: np.ndarray, clockwise: bool) -> float:
    if a[2] * a[3] <= 0 or b[2] * b[3] <= 0:
        return 0.0
    i = inter_area(verts(a, clockwise), verts(b, clockwise))
    return i / (float(a[2] * a[3]) + float(b[2] * b[3]) - i)


def ref_nms_rotated(x: list[np.ndarray], a: dict[str, Any]) -> list[np.ndarray]:
    boxes, scores = x[0].astype(np.float32), x[1].astype(np.float32)
    limit, iou_t, score_t = int(x[2].reshape(-1)[0]), float(f32(x[3].reshape(-1)[0])), f32(x[4].reshape(-1)[0])
    cw = a.get("clockwise", True)
    rows = []
    for bi in range(scores.shape[0]):
        for ci in range(scores.shape[1]):
            s = scores[bi, ci]
            kept: list[int] = []
            for j in sorted((j for j in range(len(s)) if s[j] > score_t), key=lambda j: (-s[j], j)):
                if len(kept) < limit and all(riou(boxes[bi, j], boxes[bi, k], cw) <= iou_t for k in kept):
                    kept.append(j)
            rows += [(bi, ci, k, s[k]) for k in kept]
    if a.get("sort_result_descending", True):
        rows.sort(key=lambda r: (-r[3], r[0], r[1], r[2]))
    it = np.int32 if a.get("output_type", "i64") == "i32" else np.int64
    return [np.array([r[:3] for r in rows], it).reshape(-1, 3),
            np.array([(r[0], r[1], r[3]) for r in rows], np.float32).reshape(-1, 3), np.array([len(rows)], it)]


def rboxes(n: int, m: int, c: int) -> list[np.ndarray]:
    ctr = rng.uniform(10, 40, (n, m, 2))
    size = rng.uniform(4, 16, (n, m, 2))
    angle = rng.uniform(-1.5, 1.5, (n, m, 1))
    boxes = np.concatenate([ctr, size, angle], -1).astype(np.float32)
    return [boxes, rng.uniform(0, 1, (n, c, m)).astype(np.float32)]


def th(limit: int, iou: float, score: float) -> list[np.ndarray]:
    return [np.array(limit, np.int64), np.array(iou, np.float32), np.array(score, np.float32)]


rng = table_rng("NMSRotated-13")
NMS_ROTATED = OpTable("NMSRotated", "opset13", reference=ref_nms_rotated, tol=Tol.EXACT, cases=[
    Case("basic", [*rboxes(1, 20, 2), *th(5, 0.3, 0.1)], const=(2, 3, 4)),
    Case("batches-unsorted-i32", [*rboxes(2, 15, 2), *th(4, 0.2, 0.2)],
         attrs={"sort_result_descending": False, "output_type": "i32"}, const=(2, 3, 4)),
    Case("counterclockwise", [*rboxes(1, 18, 1), *th(10, 0.1, 0.0)], attrs={"clockwise": False}, const=(2, 3, 4)),
    Case("same-centre-turned", [np.array([[[20, 20, 10, 4, 0], [20, 20, 10, 4, 1.5707964], [20, 20, 10, 4, 0.3],
                                           [40, 40, 6, 6, 0.7]]], np.float32),
                                np.array([[[0.9, 0.8, 0.7, 0.6]]], np.float32), *th(4, 0.3, 0.0)], const=(2, 3, 4)),
], errors=[
    ErrorCase("box-dim-4", [np.zeros((1, 4, 4), np.float32), np.zeros((1, 1, 4), np.float32), *th(2, 0.5, 0)],
              const=(2, 3, 4), code="incompatible-inputs"),
    ErrorCase("box-count", [np.zeros((1, 4, 5), np.float32), np.zeros((1, 1, 5), np.float32), *th(2, 0.5, 0)],
              const=(2, 3, 4), code="incompatible-inputs"),
    ErrorCase("negative-limit", [*rboxes(1, 4, 1), *th(-1, 0.5, 0)], const=(2, 3, 4), code="bad-value", ov=OV_VALUE_UNCHECKED),
    ErrorCase("limit-two-values", [*rboxes(1, 4, 1), np.array([2, 3], np.int64), *th(2, 0.5, 0)[1:]],
              const=(2, 3, 4), code="bad-input-rank"),
])

TABLES = [NMS_ROTATED]
test_conformance = conformance(TABLES)
