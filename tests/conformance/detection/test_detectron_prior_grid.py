"""Conformance table of ExperimentalDetectronPriorGridGenerator-6.  The
reference writes each box with f32 scalars, cell by cell."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, conformance, table_rng

f32 = np.float32


def ref_grid(x: list[np.ndarray], a: dict[str, Any]) -> list[np.ndarray]:
    priors, fmap, image = x
    gh, gw = fmap.shape[2], fmap.shape[3]
    sw = f32(a.get("stride_x", 0)) or f32(f32(image.shape[3]) / f32(gw))
    sh = f32(a.get("stride_y", 0)) or f32(f32(image.shape[2]) / f32(gh))
    out = np.zeros((gh, gw, len(priors), 4), np.float32)
    for i in range(gh):
        for j in range(gw):
            for k, p in enumerate(priors.astype(np.float32)):
                dx, dy = f32(sw * f32(j + 0.5)), f32(sh * f32(i + 0.5))
                out[i, j, k] = [p[0] + dx, p[1] + dy, p[2] + dx, p[3] + dy]
    out = out.astype(priors.dtype)
    return [out.reshape(-1, 4) if a.get("flatten", True) else out]


def grid_inputs(n: int, h: int, w: int, ih: int, iw: int) -> list[np.ndarray]:
    half = rng.uniform(4, 30, (n, 2))
    priors = np.concatenate([-half, half], 1).astype(np.float32)
    return [priors, np.zeros((1, 4, h, w), np.float32), np.zeros((1, 3, ih, iw), np.float32)]


rng = table_rng("ExperimentalDetectronPriorGridGenerator-6")
GRID = OpTable("ExperimentalDetectronPriorGridGenerator", "opset6", reference=ref_grid, cases=[
    Case("flatten", grid_inputs(3, 4, 5, 64, 80), attrs={"flatten": True}),
    Case("strides", grid_inputs(2, 3, 3, 50, 50), attrs={"flatten": True, "stride_x": 16.0, "stride_y": 12.0}),
    Case("not-flat", grid_inputs(3, 2, 4, 30, 70), attrs={"flatten": False, "h": 2, "w": 4}),
    Case("const-priors", grid_inputs(1, 5, 2, 100, 40), attrs={"flatten": True}, const=(0,)),
], errors=[
    ErrorCase("priors-5", [np.zeros((3, 5), np.float32), *grid_inputs(3, 2, 2, 8, 8)[1:]], code="incompatible-inputs"),
    ErrorCase("batch", [grid_inputs(3, 2, 2, 8, 8)[0], np.zeros((2, 4, 2, 2), np.float32),
                        np.zeros((3, 3, 8, 8), np.float32)], code="incompatible-inputs"),
    ErrorCase("grid-h", grid_inputs(3, 2, 2, 8, 8), attrs={"h": 3}, code="incompatible-inputs",
              ov="OpenVINO sizes the output by the feature map whatever h and w say"),
    ErrorCase("fmap-rank-3", [grid_inputs(3, 2, 2, 8, 8)[0], np.zeros((4, 2, 2), np.float32),
                              np.zeros((1, 3, 8, 8), np.float32)], code="bad-input-rank"),
])

TABLES = [GRID]
test_conformance = conformance(TABLES)
