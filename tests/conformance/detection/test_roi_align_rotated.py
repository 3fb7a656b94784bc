"""Conformance table of ROIAlignRotated-15.  The reference turns each sample
point with math.cos/math.sin and interpolates it alone in f64."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from conformance.detection.references import bilinear_sample
from conformance.harness import OV_VALUE_UNCHECKED, Case, ErrorCase, OpTable, Tol, conformance, table_rng


def ref_rotated(x: list[np.ndarray], a: dict[str, Any]) -> list[np.ndarray]:
    data, rois, idx = x
    ph, pw, ratio = int(a["pooled_h"]), int(a["pooled_w"]), int(a["sampling_ratio"])
    scale = float(np.float32(a["spatial_scale"]))
    out = np.zeros((len(rois), data.shape[1], ph, pw))
    for r, roi in enumerate(rois.astype(np.float64)):
        cx, cy, rw, rh = roi[0] * scale - 0.5, roi[1] * scale - 0.5, roi[2] * scale, roi[3] * scale
        ang = -roi[4] if a.get("clockwise_mode", False) else roi[4]
        bw, bh = rw / pw, rh / ph
        nx, ny = ratio or math.ceil(bw), ratio or math.ceil(bh)
        fm = data[int(idx[r])].astype(np.float64)
        for i in range(ph):
            for j in range(pw):
                acc = np.zeros(data.shape[1])
                for u in range(ny):
                    for v in range(nx):
                        yy = -rh / 2 + i * bh + (u + 0.5) * bh / ny
                        xx = -rw / 2 + j * bw + (v + 0.5) * bw / nx
                        acc += bilinear_sample(fm, yy * math.cos(ang) - xx * math.sin(ang) + cy,
                                      yy * math.sin(ang) + xx * math.cos(ang) + cx)
                out[r, :, i, j] = acc / (nx * ny) if nx * ny else 0
    return [out.astype(data.dtype)]


def inputs(dtype: Any = np.float32) -> list[np.ndarray]:
    data = rng.standard_normal((2, 3, 10, 12)).astype(dtype)
    rois = np.array([[5, 4, 6, 4, 0.3], [6, 5, 8, 3, -0.7], [2, 2, 3, 6, 1.2], [11, 9, 5, 5, 0.0],
                     [6, 5, 1.5, 1.2, 2.5]], dtype)
    return [data, rois, np.array([0, 1, 0, 1, 1], np.int32)]


def attrs(**kw: Any) -> dict[str, Any]:
    return {"pooled_h": 2, "pooled_w": 3, "sampling_ratio": 2, "spatial_scale": 1.0, "clockwise_mode": False, **kw}


rng = table_rng("ROIAlignRotated-15")
ROI_ALIGN_ROTATED = OpTable("ROIAlignRotated", "opset15", reference=ref_rotated, tol=Tol(rtol=1e-6, atol=1e-6),
                            ov_tol=Tol(rtol=1e-4, atol=1e-5), cases=[
    Case("counterclockwise", inputs(), attrs=attrs()),
    Case("clockwise-adaptive", inputs(), attrs=attrs(clockwise_mode=True, sampling_ratio=0)),
    Case("scaled", inputs(), attrs=attrs(spatial_scale=0.5, pooled_h=3, pooled_w=3, sampling_ratio=1)),
    Case("i64-indices-const", [inputs()[0], inputs()[1], np.array([1, 0, 0, 1, 0], np.int64)], attrs=attrs(),
         const=(1, 2)),
], errors=[
    ErrorCase("rois-4", [inputs()[0], np.zeros((2, 4), np.float32), np.zeros(2, np.int32)], attrs=attrs(),
              code="incompatible-inputs"),
    ErrorCase("count", [inputs()[0], np.zeros((2, 5), np.float32), np.zeros(3, np.int32)], attrs=attrs(),
              code="incompatible-inputs"),
    ErrorCase("pooled-zero", inputs(), attrs=attrs(pooled_h=0), code="bad-attribute",
              ov="OpenVINO's shape inference does not check this attribute's value"),
    ErrorCase("infinite-roi", [inputs()[0], np.array([[5, 4, np.inf, 4, 0.3]], np.float32), np.zeros(1, np.int32)],
              attrs=attrs(), const=(1,), code="bad-value",
              ov=OV_VALUE_UNCHECKED),
    ErrorCase("batch-index", [*inputs()[:2], np.array([0, 1, 2, 0, 1], np.int32)], attrs=attrs(), const=(2,),
              code="bad-value",
              ov=OV_VALUE_UNCHECKED),
    ErrorCase("data-rank-3", [np.zeros((3, 8, 8), np.float32), *inputs()[1:]], attrs=attrs(), code="bad-input-rank"),
])

TABLES = [ROI_ALIGN_ROTATED]
test_conformance = conformance(TABLES)
