"""Conformance tables of ROIPooling (opset2) and PSROIPooling-1.  The
references compute each output element on its own with Python scalars:
bins from the spec's formulas, then max, mean or bilinear interpolation."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from conformance.harness import OV_VALUE_UNCHECKED, Case, ErrorCase, OpTable, Tol, conformance, table_rng

f32 = np.float32


def _rnd(v: float) -> int:
    return int(math.copysign(math.floor(abs(v) + 0.5), v))


def _lerp(fm: np.ndarray, y: float, x: float) -> float:
    h, w = fm.shape
    t, lft = math.floor(y), math.floor(x)
    b, r = min(math.ceil(y), h - 1), min(math.ceil(x), w - 1)
    top = fm[t, lft] + (fm[t, r] - fm[t, lft]) * (x - lft)
    bot = fm[b, lft] + (fm[b, r] - fm[b, lft]) * (x - lft)
    return top + (bot - top) * (y - t)


def ref_roi_pooling(x: list[np.ndarray], a: dict[str, Any]) -> list[np.ndarray]:
    data, rois = x[0].astype(np.float64), x[1]
    ph, pw = int(a["pooled_h"]), int(a["pooled_w"])
    _, c, h, w = data.shape
    out = np.zeros((len(rois), c, ph, pw))
    for r, roi in enumerate(rois):
        fm = data[int(roi[0])]
        if a.get("method", "max") == "max":
            x1, y1, x2, y2 = (_rnd(float(f32(v * f32(a["spatial_scale"])))) for v in roi[1:])
            rh, rw = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
            for i in range(ph):
                for j in range(pw):
                    hs, he = (min(max(v + y1, 0), h) for v in (math.floor(i * rh / ph), math.ceil((i + 1) * rh / ph)))
                    ws, we = (min(max(v + x1, 0), w) for v in (math.floor(j * rw / pw), math.ceil((j + 1) * rw / pw)))
                    for k in range(c):
                        out[r, k, i, j] = fm[k, hs:he, ws:we].max() if he > hs and we > ws else 0
        else:
            x1, y1, x2, y2 = (float(v) for v in roi[1:])
            for i in range(ph):
                y = (y1 + i * (y2 - y1) / (ph - 1)) * (h - 1) if ph > 1 else 0.5 * (y1 + y2) * (h - 1)
                for j in range(pw):
                    xx = (x1 + j * (x2 - x1) / (pw - 1)) * (w - 1) if pw > 1 else 0.5 * (x1 + x2) * (w - 1)
                    if 0 <= y <= h - 1 and 0 <= xx <= w - 1:
                        for k in range(c):
                            out[r, k, i, j] = _lerp(fm[k], y, xx)
    return [out.astype(x[0].dtype)]


def roi_inputs(dtype: Any = np.float32) -> list[np.ndarray]:
    data = rng.standard_normal((2, 3, 10, 12)).astype(dtype)
    rois = np.array([[0, 0, 0, 11, 9], [1, 2.4, 1.5, 7.6, 6.5], [1, 5, 5, 5, 5], [0, -3, -2, 4, 3], [1, 8, 6, 20, 14],
                     [0, 9.5, 2.5, 3, 1]], dtype)
    return [data, rois]


def normal_rois(dtype: Any = np.float32) -> list[np.ndarray]:
    data = rng.standard_normal((2, 3, 10, 12)).astype(dtype)
    rois = np.array([[0, 0, 0, 1, 1], [1, 0.2, 0.1, 0.7, 0.9], [1, 0.5, 0.5, 0.5, 0.5], [0, 0.3, 0.6, 0.4, 0.95]],
                    dtype)
    return [data, rois]


def pool_attrs(ph: int = 3, pw: int = 2, scale: float = 1.0, method: str = "max") -> dict[str, Any]:
    return {"pooled_h": ph, "pooled_w": pw, "spatial_scale": scale, "method": method}


rng = table_rng("ROIPooling-2")
ROI_POOLING = OpTable("ROIPooling", "opset2", reference=ref_roi_pooling, tol=Tol(rtol=1e-6, atol=1e-6), cases=[
    Case("max", roi_inputs(), attrs=pool_attrs()),
    Case("max-scaled", roi_inputs(), attrs=pool_attrs(4, 4, 0.5)),
    Case("max-const-rois", roi_inputs(), attrs=pool_attrs(2, 3, 0.75), const=(1,)),
    Case("bilinear", normal_rois(), attrs=pool_attrs(3, 4, method="bilinear")),
    Case("bilinear-1x1", normal_rois(), attrs=pool_attrs(1, 1, method="bilinear")),
    Case("f16", roi_inputs(np.float16), attrs=pool_attrs()),
], errors=[
    ErrorCase("rois-4", [roi_inputs()[0], np.zeros((2, 4), np.float32)], attrs=pool_attrs(), code="incompatible-inputs"),
    ErrorCase("batch-id", [roi_inputs()[0], np.array([[2, 0, 0, 3, 3]], np.float32)], attrs=pool_attrs(), const=(1,),
              code="bad-value", ov=OV_VALUE_UNCHECKED),
    ErrorCase("pooled-0", roi_inputs(), attrs=pool_attrs(0), code="bad-attribute"),
    ErrorCase("nan-roi", [roi_inputs()[0], np.array([[0, 1, np.nan, 3, 3]], np.float32)], attrs=pool_attrs(),
              const=(1,), code="bad-value", ov=OV_VALUE_UNCHECKED),
    ErrorCase("scale-0", roi_inputs(), attrs=pool_attrs(scale=0), code="bad-attribute"),
    ErrorCase("method", roi_inputs(), attrs=pool_attrs(method="avg"), code="bad-attribute"),
    ErrorCase("integer-data", [roi_inputs()[0].astype(np.int32), roi_inputs()[1]], attrs=pool_attrs(),
              code="bad-input-type"),
    ErrorCase("data-rank-3", [np.zeros((3, 10, 12), np.float32), roi_inputs()[1]], attrs=pool_attrs(),
              code="bad-input-rank"),
])


def ref_psroi(x: list[np.ndarray], a: dict[str, Any]) -> list[np.ndarray]:
    data, rois = x[0].astype(np.float64), x[1].astype(np.float32)
    g, dim, scale = int(a["group_size"]), int(a["output_dim"]), f32(a["spatial_scale"])
    _, _, h, w = data.shape
    out = np.zeros((len(rois), dim, g, g))
    for r, roi in enumerate(rois):
        fm = data[int(roi[0])]
        if a.get("mode", "average") == "average":
            sw, sh = f32(_rnd(float(roi[1])) * scale), f32(_rnd(float(roi[2])) * scale)
            ew, eh = f32((_rnd(float(roi[3])) + 1) * scale), f32((_rnd(float(roi[4])) + 1) * scale)
            bw, bh = f32((ew - sw) / f32(g)), f32((eh - sh) / f32(g))
            for c in range(dim):
                for i in range(g):
                    for j in range(g):
                        hs = min(max(math.floor(f32(sh + f32(i) * bh)), 0), h - 1)
                        he = min(math.ceil(f32(sh + f32(i + 1) * bh)), h)
                        ws = min(max(math.floor(f32(sw + f32(j) * bw)), 0), w - 1)
                        we = min(math.ceil(f32(sw + f32(j + 1) * bw)), w)
                        out[r, c, i, j] = fm[(c * g + i) * g + j, hs:he, ws:we].mean()
        else:
            bx, by = int(a["spatial_bins_x"]), int(a["spatial_bins_y"])
            sw, sh, ew, eh = (float(f32(v * scale)) for v in roi[1:])
            bin_w, bin_h = (ew - sw) / bx, (eh - sh) / by
            for c in range(dim):
                for i in range(g):
                    for j in range(g):
                        total = 0.0
                        for sy in range(by):
                            for sx in range(bx):
                                x0, y0 = sw + sx * bin_w, sh + sy * bin_h
                                px = j * bin_w * (w - 1) / (g - 1) + x0 * (w - 1) if g > 1 else (2 * x0 + bin_w) * (w - 1) / 2
                                py = i * bin_h * (h - 1) / (g - 1) + y0 * (h - 1) if g > 1 else (2 * y0 + bin_h) * (h - 1) / 2
                                if 0 <= px < w and 0 <= py < h:
                                    total += _lerp(fm[(sy * bx + sx) * dim + c], py, px)
                        out[r, c, i, j] = total / (bx * by)
    return [out.astype(x[0].dtype)]


def ps_inputs(channels: int, bilinear: bool = False) -> list[np.ndarray]:
    data = rng.standard_normal((2, channels, 9, 11)).astype(np.float32)
    if bilinear:
        rois = np.array([[0, 0.1, 0.2, 0.9, 0.8], [1, 0.0, 0.0, 1.0, 1.0], [1, 0.4, 0.3, 0.6, 0.5]], np.float32)
    else:
        rois = np.array([[0, 0, 0, 10, 8], [1, 1.6, 2.4, 7.2, 6.5], [1, 3, 3, 4, 4], [0, 2, 1, 9.7, 5]], np.float32)
    return [data, rois]


def ps_attrs(dim: int, g: int, mode: str = "average", scale: float = 1.0, bx: int = 1, by: int = 1) -> dict[str, Any]:
    return {"output_dim": dim, "group_size": g, "spatial_scale": scale, "mode": mode, "spatial_bins_x": bx,
            "spatial_bins_y": by}


rng = table_rng("PSROIPooling-1")
PSROI_POOLING = OpTable("PSROIPooling", "opset1", reference=ref_psroi, tol=Tol(rtol=1e-5, atol=1e-5), cases=[
    Case("average", ps_inputs(8), attrs=ps_attrs(2, 2)),
    Case("average-3x3-scaled", ps_inputs(18), attrs=ps_attrs(2, 3, scale=0.5)),
    Case("bilinear", ps_inputs(12, True), attrs=ps_attrs(3, 2, "bilinear", bx=2, by=2)),
    Case("bilinear-group-1", ps_inputs(6, True), attrs=ps_attrs(2, 1, "bilinear", bx=3, by=1)),
], errors=[
    ErrorCase("channels", ps_inputs(7), attrs=ps_attrs(2, 2), code="incompatible-inputs"),
    ErrorCase("group-0", ps_inputs(8), attrs=ps_attrs(2, 0), code="bad-attribute"),
    ErrorCase("mode", ps_inputs(8), attrs=ps_attrs(2, 2, "max"), code="bad-attribute"),
    ErrorCase("rois-6", [ps_inputs(8)[0], np.zeros((2, 6), np.float32)], attrs=ps_attrs(2, 2),
              code="incompatible-inputs"),
])

TABLES = [ROI_POOLING, PSROI_POOLING]
test_conformance = conformance(TABLES)
