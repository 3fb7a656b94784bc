"""Conformance tables of NonMaxSuppression-1, -3 and -4.  The reference is
NMS-5's spec steps in f32 (without soft-NMS), its indices written into rows
of the size the specs give, -1 after the selected boxes."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.detection.references import boxes_scores, centers, flipped, i64, overlap, overlap_scores, ref_nms, th
from conformance.harness import OV_TYPE_UNCHECKED, OV_VALUE_UNCHECKED, Case, ErrorCase, OpTable, Tol, conformance, table_rng

PADDED = "OpenVINO CPU returns only the selected boxes, not the -1 rows its own shape inference and the spec give"
CUT = ("OpenVINO CPU returns every selected box, more than the rows its own shape inference gives (v1 and v3 leave "
       "batches out)")


def ref_padded(version: int):
    select = ref_nms(5)

    def ref(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
        idx = select([*x, np.float32(0)] if len(x) == 5 else x, attrs)[0]
        n, batches, classes = x[0].shape[1], x[1].shape[0], x[1].shape[1]
        limit = int(x[2]) if len(x) > 2 else 0
        rows = min(n, limit) * batches * classes if version == 4 else min(n, limit * classes)
        out = np.full((rows, 3), -1, idx.dtype)
        out[:min(rows, len(idx))] = idx[:rows]
        return [out]
    return ref






def cases(version: int) -> list[Case]:
    # one batch and class: every version gives min(boxes, limit) rows; three pass the IoU test here
    v4_only = PADDED if version == 4 else True
    typed = {"output_type": "i32"} if version > 1 else {}
    return [
        Case("basic", [overlap, overlap_scores, i64(3), th(0.5), th(0.0)], const=(2, 3, 4)),
        Case("center", [centers, overlap_scores, i64(3), th(0.5), th(0.0)], attrs={"box_encoding": "center"},
             const=(2, 3, 4)),
        Case("flipped-corners", [flipped, overlap_scores, i64(3), th(0.5), th(0.0)], const=(2, 3, 4)),
        Case("padded", [overlap, overlap_scores, i64(6), th(0.5), th(0.0)], const=(2, 3, 4), ov=PADDED),
        Case("score-threshold", [overlap, overlap_scores, i64(10), th(0.9), th(0.55)], const=(2, 3, 4), ov=PADDED),
        # v1/v3: 2 batches x 3 classes select up to 30 boxes into min(20, 5 * 3) = 15 rows
        Case("random-multi", [*boxes_scores(rng, 2, 20, 3), i64(5), th(0.3), th(0.2)], const=(2, 3, 4),
             ov=PADDED if version == 4 else CUT),
        Case("unsorted", [*boxes_scores(rng, 1, 12, 2), i64(2), th(0.2), th(0.0)],
             attrs={"sort_result_descending": False, **typed}, const=(2, 3, 4), ov=v4_only),
        Case("iou-threshold-zero", [overlap, overlap_scores, i64(6), th(0.0), th(0.0)], const=(2, 3, 4),
             ov="OpenVINO CPU removes boxes whose IoU equals iou_threshold (here disjoint boxes at 0); the spec keeps them"),
        Case("max-zero", [overlap, overlap_scores, i64(0), th(0.5), th(0.0)], const=(2, 3, 4)),
        Case("limit-param", [overlap, overlap_scores, np.array(3, np.int32), th(0.5), th(0.0)], const=(3, 4)),
        Case("no-thresholds", [overlap, overlap_scores, i64(2)], const=(2,), ov=PADDED),
        Case("no-optional-inputs", [overlap, overlap_scores]),
        Case("f16", [*boxes_scores(rng, 1, 10, 1, np.float16), i64(3), th(0.5, np.float16), th(0.0, np.float16)],
             const=(2, 3, 4)),
        Case("zero-boxes", [np.zeros((1, 0, 4), np.float32), np.zeros((1, 2, 0), np.float32), i64(3), th(0.5),
                            th(0.0)], const=(2, 3, 4)),
    ]


def errors(version: int) -> list[ErrorCase]:
    typed = [ErrorCase("output-type-f32", [overlap, overlap_scores, i64(2)], attrs={"output_type": "f32"}, const=(2,),
                       code="bad-attribute")] if version > 1 else []
    return [
        ErrorCase("box-dim-3", [np.zeros((1, 4, 3), np.float32), np.zeros((1, 1, 4), np.float32), i64(2)], const=(2,),
                  code="incompatible-inputs"),
        ErrorCase("box-count", [np.zeros((1, 4, 4), np.float32), np.zeros((1, 1, 5), np.float32), i64(2)], const=(2,),
                  code="incompatible-inputs"),
        ErrorCase("batch", [np.zeros((2, 4, 4), np.float32), np.zeros((1, 1, 4), np.float32), i64(2)], const=(2,),
                  code="incompatible-inputs"),
        ErrorCase("limit-1d", [overlap, overlap_scores, i64([2])], const=(2,), code="bad-input-rank"),
        ErrorCase("iou-1d", [overlap, overlap_scores, i64(2), np.array([0.5], np.float32)], const=(2, 3),
                  code="bad-input-rank"),
        ErrorCase("negative-limit", [overlap, overlap_scores, i64(-1)], const=(2,), code="bad-value",
                  ov=OV_VALUE_UNCHECKED),
        ErrorCase("integer-boxes", [overlap.astype(np.int32), overlap_scores, i64(2)], const=(2,), code="bad-input-type",
                  ov=OV_TYPE_UNCHECKED),
        ErrorCase("scores-rank-2", [overlap, overlap_scores[0], i64(2)], const=(2,), code="bad-input-rank"),
        *typed,
    ]


TABLES = []
for _version in (1, 3, 4):
    rng = table_rng(f"NonMaxSuppression-{_version}")  # each table its own generator
    TABLES.append(OpTable("NonMaxSuppression", f"opset{_version}", reference=ref_padded(_version), tol=Tol.EXACT,
                          cases=cases(_version), errors=errors(_version)))
test_conformance = conformance(TABLES)
