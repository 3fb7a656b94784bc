"""Conformance table of DeformablePSROIPooling-1.  The reference computes
each output element alone with Python floats: the bin from the rounded ROI
and its offset, its sub-bins, their bilinear samples and their mean."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from conformance.harness import OV_DIMS_UNCHECKED, OV_VALUE_UNCHECKED, Case, ErrorCase, OpTable, Tol, conformance, table_rng

f32 = np.float32


def _rnd(v: float) -> float:
    return math.copysign(math.floor(abs(v) + 0.5), v)


def ref_deformable(x: list[np.ndarray], a: dict[str, Any]) -> list[np.ndarray]:
    data, rois = x[0].astype(np.float64), x[1]
    off = x[2] if len(x) > 2 else None
    dim, g, scale = int(a["output_dim"]), int(a.get("group_size", 1)), float(f32(a["spatial_scale"]))
    bx, by = int(a.get("spatial_bins_x", 1)), int(a.get("spatial_bins_y", 1))
    part, std = int(a.get("part_size", 1)), float(a.get("trans_std", 1.0))
    _, _, h, w = data.shape
    out = np.zeros((len(rois), dim, g, g))
    for r, roi in enumerate(rois):
        b = int(roi[0])
        if b < 0:
            continue
        x1, y1 = _rnd(float(roi[1])) * scale - 0.5, _rnd(float(roi[2])) * scale - 0.5
        x2, y2 = (_rnd(float(roi[3])) + 1) * scale - 0.5, (_rnd(float(roi[4])) + 1) * scale - 0.5
        rw, rh = max(x2 - x1, 0.1), max(y2 - y1, 0.1)
        for c in range(dim):
            for i in range(g):
                for j in range(g):
                    bx1, by1 = x1 + j * rw / g, y1 + i * rh / g
                    if off is not None:
                        k = off.shape[1] // 2
                        m = c // (dim // k)
                        bx1 += float(off[r, 2 * m, i * part // g, j * part // g]) * std * rw
                        by1 += float(off[r, 2 * m + 1, i * part // g, j * part // g]) * std * rh
                    fm = data[b, (c * g + i) * g + j]
                    vals = []
                    for u in range(by):
                        py = by1 + u * rh / g / by
                        for t in range(bx):
                            px = bx1 + t * rw / g / bx
                            if -0.5 <= py <= h - 0.5 and -0.5 <= px <= w - 0.5:
                                cx, cy = min(max(px, 0.0), w - 1.0), min(max(py, 0.0), h - 1.0)
                                lx, ty = math.floor(cx), math.floor(cy)
                                rx, byy = math.ceil(cx), math.ceil(cy)
                                top = fm[ty, lx] + (fm[ty, rx] - fm[ty, lx]) * (cx - lx)
                                bot = fm[byy, lx] + (fm[byy, rx] - fm[byy, lx]) * (cx - lx)
                                vals.append(top + (bot - top) * (cy - ty))
                    out[r, c, i, j] = sum(vals) / len(vals) if vals else 0.0
    return [out.astype(x[0].dtype)]


def inputs(dim: int, g: int, k: int = 0, part: int = 1, skipped_first: bool = False) -> list[np.ndarray]:
    data = rng.standard_normal((2, dim * g * g, 8, 10)).astype(np.float32)
    rois = np.array([[0, 1, 1, 8, 6], [1, 0, 0, 9, 7], [1, 3.4, 2.6, 5.5, 4.4], [0, -2, -1, 12, 9], [-1, 0, 0, 4, 4]],
                    np.float32)
    if skipped_first:
        rois = rois[[4, 0, 1, 2, 3]]
    out = [data, rois]
    if k:
        out.append((rng.standard_normal((5, 2 * k, part, part)) * 0.3).astype(np.float32))
    return out


def attrs(dim: int, g: int, **kw: Any) -> dict[str, Any]:
    return {"output_dim": dim, "group_size": g, "spatial_scale": 1.0, "mode": "bilinear_deformable", **kw}


rng = table_rng("DeformablePSROIPooling-1")
DEFORMABLE = OpTable("DeformablePSROIPooling", "opset1", reference=ref_deformable, tol=Tol(rtol=1e-5, atol=1e-5), cases=[
    Case("no-offsets", inputs(2, 2), attrs=attrs(2, 2)),
    Case("bins", inputs(3, 2), attrs=attrs(3, 2, spatial_bins_x=2, spatial_bins_y=3, spatial_scale=0.75)),
    Case("offsets", inputs(2, 3, k=1, part=3), attrs=attrs(2, 3, part_size=3, trans_std=0.1, spatial_bins_x=2,
                                                             spatial_bins_y=2)),
    Case("offsets-per-class", inputs(4, 2, k=2, part=2), attrs=attrs(4, 2, part_size=2, trans_std=0.5)),
    Case("rois-after-a-skipped-one", inputs(2, 2, skipped_first=True), attrs=attrs(2, 2),
         ov="OpenVINO CPU stops at the first ROI of batch id -1 (the later ones give 0); the reference skips only it"),
], errors=[
    ErrorCase("channels", [inputs(2, 2)[0][:, :7], inputs(2, 2)[1]], attrs=attrs(2, 2), code="incompatible-inputs", ov=OV_DIMS_UNCHECKED),
    ErrorCase("group-0", inputs(2, 2), attrs=attrs(2, 0), code="bad-attribute"),
    ErrorCase("rois-4", [inputs(2, 2)[0], np.zeros((3, 4), np.float32)], attrs=attrs(2, 2), code="incompatible-inputs",
              ov=OV_DIMS_UNCHECKED),
    ErrorCase("offsets-rank-3", [*inputs(2, 2), np.zeros((5, 2, 1), np.float32)], attrs=attrs(2, 2),
              code="bad-input-rank"),
    ErrorCase("batch-id", [inputs(2, 2)[0], np.array([[2, 0, 0, 3, 3]], np.float32)], attrs=attrs(2, 2), const=(1,),
              code="bad-value", ov=OV_VALUE_UNCHECKED),
])

TABLES = [DEFORMABLE]
test_conformance = conformance(TABLES)
