"""NumPy references of the detection ops, written from the op specifications (each
takes a case's inputs and attributes and returns its outputs), and the helpers they share."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

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


def ref_roi_align(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, rois, idx = x
    n, c, h, w = data.shape
    ph, pw, ratio = int(attrs["pooled_h"]), int(attrs["pooled_w"]), int(attrs["sampling_ratio"])
    scale = float(attrs["spatial_scale"])
    before, after, at_least_one = {"asymmetric": (0.0, 0.0, True), "half_pixel_for_nn": (0.0, -0.5, False),
                                   "half_pixel": (0.5, -0.5, False)}[attrs.get("aligned_mode", "asymmetric")]
    out = np.zeros((rois.shape[0], c, ph, pw))
    fm = data.astype(np.float64)

    def bilinear(b: int, y: float, x: float) -> np.ndarray:
        if y < -1 or y > h or x < -1 or x > w:
            return np.zeros(c)
        y, x = max(y, 0.0), max(x, 0.0)
        y0, x0 = int(y), int(x)
        if y0 >= h - 1:
            y0 = y1 = h - 1
            y = float(y0)
        else:
            y1 = y0 + 1
        if x0 >= w - 1:
            x0 = x1 = w - 1
            x = float(x0)
        else:
            x1 = x0 + 1
        ly, lx = y - y0, x - x0
        return ((1 - ly) * (1 - lx) * fm[b, :, y0, x0] + (1 - ly) * lx * fm[b, :, y0, x1]
                + ly * (1 - lx) * fm[b, :, y1, x0] + ly * lx * fm[b, :, y1, x1])

    for r in range(rois.shape[0]):
        x1, y1, x2, y2 = ((float(v) + before) * scale + after for v in rois[r])
        rw, rh = x2 - x1, y2 - y1
        if at_least_one:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        bw, bh = rw / pw, rh / ph
        sx = ratio or math.ceil(bw)
        sy = ratio or math.ceil(bh)
        for i in range(ph):
            for j in range(pw):
                samples = [bilinear(int(idx[r]), y1 + i * bh + bh / sy * (a + 0.5), x1 + j * bw + bw / sx * (bb + 0.5))
                           for a in range(sy) for bb in range(sx)]
                if samples:
                    out[r, :, i, j] = np.mean(samples, 0) if attrs.get("mode", "avg") == "avg" else np.max(samples, 0)
    return [out.astype(data.dtype)]


def bilinear_sample(fm: np.ndarray, y: float, x: float) -> np.ndarray:
    """The bilinear sample of every channel at (y, x) as OpenVINO's ROIAlign-like references take it:
    zero more than one pixel outside, the edge value within that pixel."""
    c, h, w = fm.shape
    if y < -1 or y > h or x < -1 or x > w:
        return np.zeros(c)
    y, x = max(y, 0.0), max(x, 0.0)
    yl, xl = int(y), int(x)
    if yl >= h - 1:
        yl = yh = h - 1
        y = float(yl)
    else:
        yh = yl + 1
    if xl >= w - 1:
        xl = xh = w - 1
        x = float(xl)
    else:
        xh = xl + 1
    ly, lx = y - yl, x - xl
    return ((1 - ly) * (1 - lx) * fm[:, yl, xl] + (1 - ly) * lx * fm[:, yl, xh] + ly * (1 - lx) * fm[:, yh, xl]
            + ly * lx * fm[:, yh, xh])


# NonMaxSuppression's inputs, shared by the tables of every version
def boxes_scores(rng: np.random.Generator, batches: int, n: int, classes: int, dtype: Any = np.float32) -> list[np.ndarray]:
    """Random corner boxes [batches, n, 4] and scores [batches, classes, n]."""
    corner = rng.uniform(0, 10, (batches, n, 2))
    size = rng.uniform(1, 4, (batches, n, 2))
    boxes = np.concatenate([corner, corner + size], axis=-1).astype(dtype)
    scores = rng.uniform(0, 1, (batches, classes, n)).astype(dtype)
    return [boxes, scores]


def th(v: float, dtype: Any = np.float32) -> np.ndarray:
    return np.array(v, dtype)


def i64(v: Any) -> np.ndarray:
    return np.array(v, np.int64)


# boxes that overlap in pairs, a far one, and the same as centres and with the other diagonal's corners
overlap = np.array([[[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11], [0, 10.1, 1, 11.1],
                     [0, 100, 1, 101]]], np.float32)
overlap_scores = np.array([[[0.9, 0.75, 0.6, 0.95, 0.5, 0.3]]], np.float32)
centers = np.array([[[0.5, 0.5, 1, 1], [0.5, 0.6, 1, 1], [0.5, 0.4, 1, 1], [0.5, 10.5, 1, 1], [0.5, 10.6, 1, 1],
                     [0.5, 100.5, 1, 1]]], np.float32)
flipped = overlap[..., [2, 3, 0, 1]].copy()
