"""Conformance table of ExperimentalDetectronROIFeatureExtractor-6.  The
reference picks each ROI's level with f32 scalars and samples its bins one
sample at a time in f64."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from conformance.detection.references import bilinear_sample
from conformance.harness import Case, ErrorCase, OpTable, Tol, conformance, table_rng

f32 = np.float32


def ref_features(x: list[np.ndarray], a: dict[str, Any]) -> list[np.ndarray]:
    rois, pyramid = x[0], x[1:]
    size, ratio = int(a["output_size"]), int(a.get("sampling_ratio", 0))
    scales, aligned = [int(v) for v in a["pyramid_scales"]], a.get("aligned", False)
    c = pyramid[0].shape[1]
    out = np.zeros((len(rois), c, size, size))
    for r, roi in enumerate(rois.astype(np.float32)):
        area = (roi[2] - roi[0]) * (roi[3] - roi[1])
        if not area > 0:
            continue
        t = f32(math.log2(f32(f32(math.sqrt(area)) / f32(224) + f32(1e-6))))
        level = int(min(max(math.floor(t + f32(2)), 0), len(pyramid) - 1))
        fm = pyramid[level][0].astype(np.float64)
        scale = float(f32(1) / f32(scales[level]))
        x0, y0, x1, y1 = (float(v) * scale - (0.5 if aligned else 0.0) for v in roi)
        rw, rh = max(x1 - x0, 1.0), max(y1 - y0, 1.0)
        bw, bh = rw / size, rh / size
        gx, gy = ratio or math.ceil(bw), ratio or math.ceil(bh)
        for i in range(size):
            for j in range(size):
                acc = np.zeros(c)
                for u in range(gy):
                    for v in range(gx):
                        acc += bilinear_sample(fm, y0 + i * bh + (u + 0.5) * bh / gy, x0 + j * bw + (v + 0.5) * bw / gx)
                out[r, :, i, j] = acc / (gx * gy)
    return [out.astype(rois.dtype), rois.copy()]


def inputs(levels: int = 3, channels: int = 2) -> list[np.ndarray]:
    rois = np.array([[0, 0, 30, 20], [10, 12, 200, 160], [40, 40, 41, 41], [5, 5, 500, 400], [50, 60, 120, 100],
                     [30, 30, 30, 50], [-10, -8, 90, 70]], np.float32)
    maps = [rng.standard_normal((1, channels, 64 >> k, 80 >> k)).astype(np.float32) for k in range(levels)]
    return [rois, *maps]


def attrs(**kw: Any) -> dict[str, Any]:
    return {"output_size": 3, "sampling_ratio": 2, "pyramid_scales": [4, 8, 16], "aligned": False, **kw}


rng = table_rng("ExperimentalDetectronROIFeatureExtractor-6")
ROI_FEATURES = OpTable("ExperimentalDetectronROIFeatureExtractor", "opset6", reference=ref_features,
                       tol=Tol(rtol=1e-5, atol=1e-5), cases=[
    Case("three-levels", inputs(), attrs=attrs()),
    Case("aligned-adaptive", inputs(), attrs=attrs(aligned=True, sampling_ratio=0)),
    Case("two-levels", inputs(2, 3), attrs=attrs(output_size=2, pyramid_scales=[4, 8])),
    Case("four-levels", inputs(4), attrs=attrs(pyramid_scales=[4, 8, 16, 32])),
], errors=[
    ErrorCase("rois-5", [np.zeros((3, 5), np.float32), *inputs()[1:]], attrs=attrs(), code="incompatible-inputs"),
    ErrorCase("channels", [*inputs()[:2], np.zeros((1, 3, 32, 40), np.float32)], attrs=attrs(),
              code="incompatible-inputs"),
    ErrorCase("batch-2", [inputs()[0], np.zeros((2, 2, 64, 80), np.float32)], attrs=attrs(), code="incompatible-inputs"),
    ErrorCase("output-size-0", inputs(), attrs=attrs(output_size=0), code="bad-attribute",
              ov="OpenVINO's shape inference does not check this attribute's value"),
    ErrorCase("too-few-scales", inputs(4), attrs=attrs(), code="incompatible-inputs",
              ov="OpenVINO's shape inference does not check this dim"),
])

TABLES = [ROI_FEATURES]
test_conformance = conformance(TABLES)
