"""Conformance tables of NonMaxSuppression-5 and -9.  The reference follows
the spec's steps literally with Python lists, box by box, in f32."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.detection.references import boxes_scores, centers, flipped, i64, overlap, overlap_scores, ref_nms, ref_roi_align, th
from conformance.harness import OV_READS_DEFAULT, OV_VALUE_UNCHECKED, Case, ErrorCase, OpTable, Tol, conformance, table_rng


def cases(version: int) -> list[Case]:
    return [
        Case("basic", [overlap, overlap_scores, i64(3), th(0.5), th(0.0)], const=(2, 3, 4)),
        Case("center", [centers, overlap_scores, i64(3), th(0.5), th(0.0)], attrs={"box_encoding": "center"},
             const=(2, 3, 4)),
        Case("flipped-corners", [flipped, overlap_scores, i64(3), th(0.5)], const=(2, 3)),
        Case("random-multi", [*boxes_scores(rng, 2, 20, 3), i64(5), th(0.3), th(0.2)], const=(2, 3, 4)),
        Case("unsorted-i32", [*boxes_scores(rng, 2, 12, 2), i64(4), th(0.4), th(0.1)],
             attrs={"sort_result_descending": False, "output_type": "i32"}, const=(2, 3, 4)),
        Case("score-threshold", [overlap, overlap_scores, i64(10), th(0.9), th(0.55)], const=(2, 3, 4)),
        Case("soft-nms", [*boxes_scores(rng, 1, 15, 2), i64(6), th(0.5), th(0.05), th(0.5)], const=(2, 3, 4, 5)),
        Case("max-zero", [overlap, overlap_scores, i64(0), th(0.5)], const=(2, 3),
             ov="OpenVINO CPU returns an uninitialised valid_outputs when max_output_boxes_per_class is 0"),
        Case("no-optional-inputs", [overlap, overlap_scores],
             ov="OpenVINO CPU fails (NMS-9: non-static shape in a Convert) or returns an uninitialised valid_outputs "
                "(NMS-5) without max_output_boxes_per_class"),
        Case("limit-param", [overlap, overlap_scores, np.array([2], np.int32), th(0.5), th(0.0)]),
        Case("f16", [*boxes_scores(rng, 1, 10, 2, np.float16), i64(3), th(0.5, np.float16)], const=(2, 3)),
        Case("iou-threshold-zero", [overlap, overlap_scores, i64(6), th(0.0)], const=(2, 3),
             ov="OpenVINO CPU removes boxes whose IoU equals iou_threshold (here disjoint boxes at 0); the spec keeps them"),
        Case("zero-boxes", [np.zeros((1, 0, 4), np.float32), np.zeros((1, 2, 0), np.float32), i64(3)], const=(2,),
             ov="OpenVINO CPU returns an uninitialised valid_outputs for zero boxes"),
    ]


def errors() -> list[ErrorCase]:
    return [
        ErrorCase("box-dim-3", [np.zeros((1, 4, 3), np.float32), np.zeros((1, 1, 4), np.float32), i64(2)], const=(2,),
                  code="incompatible-inputs"),
        ErrorCase("box-count", [np.zeros((1, 4, 4), np.float32), np.zeros((1, 1, 5), np.float32), i64(2)], const=(2,),
                  code="incompatible-inputs"),
        ErrorCase("batch", [np.zeros((2, 4, 4), np.float32), np.zeros((1, 1, 4), np.float32), i64(2)], const=(2,),
                  code="incompatible-inputs"),
        ErrorCase("limit-two-values", [overlap, overlap_scores, i64([2, 3])], const=(2,), code="bad-input-rank"),
        ErrorCase("negative-limit", [overlap, overlap_scores, i64(-1)], const=(2,), code="bad-value",
              ov=OV_VALUE_UNCHECKED),
        ErrorCase("integer-boxes", [overlap.astype(np.int32), overlap_scores, i64(2)], const=(2,), code="bad-input-type"),
        ErrorCase("boxes-rank-2", [overlap[0], overlap_scores, i64(2)], const=(2,), code="bad-input-rank"),
        ErrorCase("output-type-f32", [overlap, overlap_scores, i64(2)], attrs={"output_type": "f32"}, const=(2,),
                  code="bad-attribute"),
    ]


# selected indices are exact; soft-NMS scores are f32 products (OpenVINO CPU: its own order)
rng = table_rng("NonMaxSuppression-5")  # each table its own generator
NMS5 = OpTable("NonMaxSuppression", "opset5", reference=ref_nms(5), tol=Tol.EXACT, ov_tol=Tol(rtol=1e-5, atol=1e-6),
               cases=cases(5), errors=errors())


rng = table_rng("NonMaxSuppression-9")  # each table its own generator
NMS9 = OpTable("NonMaxSuppression", "opset9", reference=ref_nms(9), tol=Tol.EXACT, ov_tol=Tol(rtol=1e-5, atol=1e-6),
               cases=cases(9), errors=errors())


def roi_inputs(dtype: Any = np.float32) -> list[np.ndarray]:
    data = rng.standard_normal((2, 3, 8, 10)).astype(dtype)
    rois = np.array([[0, 0, 9, 7], [1.5, 2.25, 6.5, 5.0], [-2, -1, 3, 4], [8, 6, 12, 9], [3, 3, 3.4, 3.2]], dtype)
    return [data, rois, np.array([0, 1, 1, 0, 1], np.int32)]


def roi_attrs(mode: str = "avg", ratio: int = 2, scale: float = 1.0, **kw: Any) -> dict[str, Any]:
    return {"pooled_h": 3, "pooled_w": 2, "sampling_ratio": ratio, "spatial_scale": scale, "mode": mode, **kw}


MAX_NEG = ("OpenVINO's max mode starts from 0 (a bin of negative samples gives 0); the spec takes the samples' "
           "maximum")


ROI_TOL = Tol(rtol=1e-6, atol=1e-6)  # f64 kernel vs f64 loops, rounded once


# f16: kernel and loops both sample in f64 and round once, so each is within half an f16 ulp of the exact value, but
# where that value is an exact f16 tie (f16 data and dyadic sample weights make ties reachable; the 1/3 weights of a
# 5/3-pixel bin cancel across its two samples) an f64 difference of 1e-17 picks the other neighbour: 1 ulp apart.
ROI_F16_TOL = Tol(ulps=1)


ROI_OV_TOL = Tol(rtol=1e-4, atol=1e-5)  # OpenVINO CPU samples in f32


def roi_cases(v9: bool) -> list[Case]:
    extra = [
        Case("half-pixel", roi_inputs(), attrs=roi_attrs(aligned_mode="half_pixel")),
        Case("half-pixel-for-nn", roi_inputs(), attrs=roi_attrs(ratio=0, aligned_mode="half_pixel_for_nn")),
    ] if v9 else []
    return [
        Case("avg", roi_inputs(), attrs=roi_attrs()),
        Case("adaptive-ratio", roi_inputs(), attrs=roi_attrs(ratio=0)),
        Case("scaled", roi_inputs(), attrs=roi_attrs(scale=0.5, ratio=1)),
        Case("max", roi_inputs(), attrs=roi_attrs(mode="max"), ov=MAX_NEG),
        Case("max-positive", [np.abs(roi_inputs()[0]), *roi_inputs()[1:]], attrs=roi_attrs(mode="max", ratio=2)),
        Case("i64-indices-const-rois", [roi_inputs()[0], roi_inputs()[1], np.array([1, 0, 0, 1, 0], np.int64)],
             attrs=roi_attrs(), const=(1, 2)),
        *extra,
    ]


def roi_f16_cases() -> list[Case]:
    return [Case("f16", roi_inputs(np.float16), attrs=roi_attrs(),
                 ov="OpenVINO CPU differs by one f16 ulp in a few elements")]


def roi_errors() -> list[ErrorCase]:
    return [
        ErrorCase("rois-3", [roi_inputs()[0], np.zeros((2, 3), np.float32), np.zeros(2, np.int32)], attrs=roi_attrs(),
                  code="incompatible-inputs"),
        ErrorCase("count", [roi_inputs()[0], np.zeros((2, 4), np.float32), np.zeros(3, np.int32)], attrs=roi_attrs(),
                  code="incompatible-inputs"),
        ErrorCase("types-differ", [roi_inputs()[0], np.zeros((2, 4), np.float16), np.zeros(2, np.int32)], attrs=roi_attrs(),
                  code="bad-input-type"),
        ErrorCase("pooled-zero", roi_inputs(), attrs={**roi_attrs(), "pooled_h": 0}, code="bad-attribute",
              ov=OV_READS_DEFAULT),
        ErrorCase("scale-zero", roi_inputs(), attrs=roi_attrs(scale=0), code="bad-attribute",
              ov=OV_READS_DEFAULT),
        ErrorCase("batch-index-out-of-range", [roi_inputs()[0], roi_inputs()[1], np.array([0, 1, 2, 0, 1], np.int32)],
                  attrs=roi_attrs(), const=(2,), code="bad-value",
              ov=OV_VALUE_UNCHECKED),
        ErrorCase("data-rank-3", [np.zeros((3, 8, 8), np.float32), *roi_inputs()[1:]], attrs=roi_attrs(),
                  code="bad-input-rank"),
    ]


rng = table_rng("ROIAlign-3")  # each table its own generator
ROI_ALIGN3 = OpTable("ROIAlign", "opset3", reference=ref_roi_align, tol=ROI_TOL, ov_tol=ROI_OV_TOL,
                     cases=roi_cases(False), errors=roi_errors())


rng = table_rng("ROIAlign-9")  # each table its own generator
ROI_ALIGN9 = OpTable("ROIAlign", "opset9", reference=ref_roi_align, tol=ROI_TOL, ov_tol=ROI_OV_TOL,
                     cases=roi_cases(True), errors=roi_errors())


rng = table_rng("ROIAlign-3-f16")  # each table its own generator
ROI_ALIGN3_F16 = OpTable("ROIAlign", "opset3", id="ROIAlign-opset3-f16", reference=ref_roi_align, tol=ROI_F16_TOL,
                         ov_tol=ROI_OV_TOL, cases=roi_f16_cases())


rng = table_rng("ROIAlign-9-f16")  # each table its own generator
ROI_ALIGN9_F16 = OpTable("ROIAlign", "opset9", id="ROIAlign-opset9-f16", reference=ref_roi_align, tol=ROI_F16_TOL,
                         ov_tol=ROI_OV_TOL, cases=roi_f16_cases())

TABLES = [NMS5, NMS9, ROI_ALIGN3, ROI_ALIGN9, ROI_ALIGN3_F16, ROI_ALIGN9_F16]
test_conformance = conformance(TABLES)
