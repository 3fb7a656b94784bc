"""Conformance table of ExperimentalDetectronTopKROIs-6.  The reference picks
the best ROI again and again from a Python list."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, conformance, table_rng


def ref_topk(x: list[np.ndarray], a: dict[str, Any]) -> list[np.ndarray]:
    rois, probs = x
    left = list(range(len(probs)))
    out = np.zeros((int(a["max_rois"]), 4), rois.dtype)
    for k in range(min(len(left), len(out))):
        best = max(left, key=lambda i: (probs[i], -i))
        left.remove(best)
        out[k] = rois[best]
    return [out]


def rois(n: int, dtype: Any = np.float32) -> list[np.ndarray]:
    xy = rng.uniform(0, 50, (n, 2))
    return [np.concatenate([xy, xy + rng.uniform(1, 20, (n, 2))], 1).astype(dtype), rng.uniform(0, 1, n).astype(dtype)]


rng = table_rng("ExperimentalDetectronTopKROIs-6")
TOPK = OpTable("ExperimentalDetectronTopKROIs", "opset6", reference=ref_topk, cases=[
    Case("basic", rois(20), attrs={"max_rois": 5}),
    Case("all", rois(6), attrs={"max_rois": 6}),
    Case("f16", rois(12, np.float16), attrs={"max_rois": 4}),
    Case("more-than-rois", rois(3), attrs={"max_rois": 5},
         ov="OpenVINO CPU leaves the rows past the number of ROIs uninitialised (irexec writes 0)"),
], errors=[
    ErrorCase("rois-5", [np.zeros((4, 5), np.float32), np.zeros(4, np.float32)], attrs={"max_rois": 2},
              code="incompatible-inputs"),
    ErrorCase("count", [np.zeros((4, 4), np.float32), np.zeros(5, np.float32)], attrs={"max_rois": 2},
              code="incompatible-inputs"),
    ErrorCase("probs-rank-2", [np.zeros((4, 4), np.float32), np.zeros((4, 1), np.float32)], attrs={"max_rois": 2},
              code="bad-input-rank"),
])

TABLES = [TOPK]
test_conformance = conformance(TABLES)
