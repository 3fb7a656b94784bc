"""Conformance tables of RegionYolo (opset1) and ReorgYolo-2.  The references
loop over regions and cells with math.exp in f64, as the spec describes."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from conformance.harness import OV_DIMS_UNCHECKED, OV_READS_DEFAULT, Case, ErrorCase, OpTable, Tol, conformance, random_arrays, table_rng


def _sig(v: float) -> float:
    return 1.0 / (1.0 + math.exp(-v)) if v > -700 else 0.0


def ref_region_yolo(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data = x[0]
    n, c, h, w = data.shape
    coords, classes = int(attrs["coords"]), int(attrs["classes"])
    softmax = attrs["do_softmax"]
    regions = int(attrs["num"]) if softmax else len(attrs.get("mask", []))
    per = coords + classes + 1
    out = data.astype(np.float64).copy()
    for b in range(n):
        for r in range(regions):
            base = r * per
            for i in range(h):
                for j in range(w):
                    for e in (0, 1, coords):
                        out[b, base + e, i, j] = _sig(float(data[b, base + e, i, j]))
                    scores = [float(data[b, base + coords + 1 + k, i, j]) for k in range(classes)]
                    if softmax:
                        top = max(scores)
                        exps = [math.exp(s - top) for s in scores]
                        total = sum(exps)
                        values = [e / total for e in exps]
                    else:
                        values = [_sig(s) for s in scores]
                    for k, v in enumerate(values):
                        out[b, base + coords + 1 + k, i, j] = v
    if softmax:
        axis, end = int(attrs.get("axis", 1)) % 4, int(attrs.get("end_axis", 3)) % 4
        shape = data.shape[:axis] + (int(np.prod(data.shape[axis:end + 1])),) + data.shape[end + 1:]
        return [out.astype(data.dtype).reshape(shape)]
    return [out[:, : per * regions].astype(data.dtype)]


def yolo3(**kw: Any) -> dict[str, Any]:
    return {"coords": 4, "classes": 3, "num": 9, "do_softmax": False, "mask": [0, 1, 2], "axis": 1, "end_axis": 3,
            "anchors": [10, 13, 16, 30, 33, 23, 30, 61, 62, 45, 59, 119, 116, 90, 156, 198, 373, 326], **kw}


def yolo2(**kw: Any) -> dict[str, Any]:
    return {"coords": 4, "classes": 5, "num": 2, "do_softmax": True, "mask": [], "axis": 1, "end_axis": 3, **kw}


rand = random_arrays(table_rng("RegionYolo-1"))
# f64 loops vs f64 kernel rounded once; OpenVINO CPU evaluates exp in f32
REGION_YOLO = OpTable("RegionYolo", "opset1", reference=ref_region_yolo, tol=Tol(ulps=1),
                      ov_tol=Tol(rtol=1e-5, atol=1e-6), cases=[
    Case("v3", [rand((1, 24, 5, 4)) / 4], attrs=yolo3()),
    Case("v3-batch-2", [rand((2, 16, 3, 3)) / 4], attrs=yolo3(classes=3, mask=[3, 4])),
    Case("v2-softmax", [rand((1, 20, 4, 6)) / 4], attrs=yolo2()),
    Case("v2-batch-2-axis-2", [rand((2, 20, 3, 4)) / 4], attrs=yolo2(axis=2, end_axis=3)),
    Case("v2-extra-channels", [rand((1, 23, 2, 2)) / 4], attrs=yolo2()),
    Case("v3-f16", [(rand((1, 24, 3, 3)) / 4).astype(np.float16)], attrs=yolo3()),
], errors=[
    ErrorCase("integer-data", [np.zeros((1, 24, 2, 2), np.int32)], attrs=yolo3(), code="bad-input-type"),
    ErrorCase("rank-3", [np.zeros((24, 2, 2), np.float32)], attrs=yolo3(), code="bad-input-rank"),
    ErrorCase("too-few-channels", [np.zeros((1, 20, 2, 2), np.float32)], attrs=yolo3(), code="incompatible-inputs", ov=OV_DIMS_UNCHECKED),
    ErrorCase("axis-5", [np.zeros((1, 20, 2, 2), np.float32)], attrs=yolo2(axis=5), code="axis-out-of-range"),
    ErrorCase("no-classes", [np.zeros((1, 24, 2, 2), np.float32)], attrs={"coords": 4, "num": 3, "do_softmax": False},
              code="bad-attribute", ov=OV_READS_DEFAULT),
])


def ref_reorg(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data = x[0]
    s = int(attrs["stride"][0] if isinstance(attrs["stride"], list) else attrs["stride"])
    n, c, h, w = data.shape
    oc = c // (s * s)
    flat_in = data.reshape(-1)
    out = np.empty(data.size, data.dtype)
    for b in range(n):
        for k in range(c):
            for i in range(h):
                for j in range(w):
                    off, kc = k // oc, k % oc
                    src = ((b * oc + kc) * h * s + i * s + off // s) * w * s + j * s + off % s
                    out[((b * c + k) * h + i) * w + j] = flat_in[src]
    return [out.reshape(n, c * s * s, h // s, w // s)]


rand = random_arrays(table_rng("ReorgYolo-2"))
REORG_YOLO = OpTable("ReorgYolo", "opset2", reference=ref_reorg, cases=[
    Case("stride-2", [rand((1, 8, 4, 6))], attrs={"stride": [2]}),
    Case("stride-3-batch", [rand((2, 9, 6, 3))], attrs={"stride": [3]}),
    Case("i32", [rand((1, 4, 2, 2), np.int32)], attrs={"stride": [2]}),
    Case("stride-1", [rand((1, 3, 2, 5))], attrs={"stride": [1]}),
], errors=[
    ErrorCase("not-divisible", [np.zeros((1, 8, 5, 4), np.float32)], attrs={"stride": [2]}, code="incompatible-inputs"),
    ErrorCase("channels", [np.zeros((1, 6, 4, 4), np.float32)], attrs={"stride": [2]}, code="incompatible-inputs", ov=OV_DIMS_UNCHECKED),
    ErrorCase("rank-3", [np.zeros((8, 4, 4), np.float32)], attrs={"stride": [2]}, code="bad-input-rank"),
    ErrorCase("stride-0", [np.zeros((1, 8, 4, 4), np.float32)], attrs={"stride": [0]}, code="bad-attribute",
              ov="OpenVINO's shape inference takes a stride of 0 as an empty output (the spec asks for a positive one)"),
])

TABLES = [REGION_YOLO, REORG_YOLO]
test_conformance = conformance(TABLES)
