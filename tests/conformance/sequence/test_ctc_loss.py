"""Conformance table of CTCLoss-4.  The reference sums, in float64, the
probability of every alignment (all C^T class sequences of the batch's
logit_length steps) that reads as the labels, as the spec defines the loss;
irexec's forward recursion is held to 1e-6 relative of it."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.harness import OV_VALUE_UNCHECKED, Case, ErrorCase, OpTable, Tol, conformance, random_arrays, table_rng
from conformance.sequence.references import ref_ctc_loss

rng = table_rng("CTCLoss-4")  # the table's own generator
rand = random_arrays(rng)


def logits(shape: tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    return rng.standard_normal(shape).astype(dtype)


def i32(*values: int) -> np.ndarray:
    return np.array(values, np.int32)


MERGE = {"ctc_merge_repeated": True}


CTC_LOSS = OpTable("CTCLoss", "opset4", reference=ref_ctc_loss, tol=Tol(rtol=1e-6, atol=1e-6), ov_tol=Tol(rtol=1e-5, atol=1e-5),
                   cases=[
    Case("merge", [logits((2, 5, 4)), i32(5, 4), np.array([[0, 1, 2, 0, 0], [1, 1, 0, 0, 0]], np.int32), i32(3, 2)],
         attrs=MERGE),
    Case("default-merge", [logits((1, 4, 3)), i32(4), np.array([[1, 1, 0, 0]], np.int32), i32(2)],
         ov="OpenVINO reads a missing ctc_merge_repeated as false; the spec's default is true"),
    Case("no-merge", [logits((2, 5, 4)), i32(5, 5), np.array([[0, 2, 2, 0, 0], [1, 0, 0, 0, 0]], np.int32), i32(3, 1)],
         attrs={"ctc_merge_repeated": False}),
    Case("collapse", [logits((1, 6, 3)), i32(6), np.array([[1, 1, 0, 0, 1, 1]], np.int32), i32(6)],
         attrs={"preprocess_collapse_repeated": True, **MERGE}),
    Case("unique", [logits((1, 6, 4)), i32(6), np.array([[2, 1, 2, 0, 1, 0]], np.int64).astype(np.int32), i32(5)],
         attrs={"unique": True, "preprocess_collapse_repeated": True, **MERGE}),
    Case("blank-0-i64", [logits((2, 4, 3)), np.array([4, 3], np.int64), np.array([[1, 2, 0, 0], [2, 2, 0, 0]], np.int64),
                         np.array([2, 1], np.int64), np.array(0, np.int64)], attrs=MERGE),
    Case("mixed-index-types", [logits((2, 4, 3)), np.array([4, 3], np.int64), np.array([[1, 0, 0, 0], [2, 1, 0, 0]], np.int32),
                               i32(1, 2), np.array(0, np.int64)], attrs=MERGE),
    Case("blank-const", [logits((1, 4, 3)), i32(4), np.array([[0, 2, 0, 0]], np.int32), i32(2), np.array(1, np.int32)],
         const=(4,), attrs=MERGE),
    Case("f64", [logits((1, 5, 3), np.float64), i32(5), np.array([[0, 1, 0, 0, 0]], np.int32), i32(2)],
         attrs=MERGE, ov="OpenVINO CPU computes f64 in f32"),
    Case("f16", [logits((2, 4, 3), np.float16), i32(4, 3), np.array([[0, 1, 0, 0], [1, 0, 0, 0]], np.int32), i32(2, 2)],
         attrs=MERGE),
    Case("repeat-needs-blank", [logits((1, 3, 3)), i32(3), np.array([[1, 1, 0]], np.int32), i32(2)], attrs=MERGE),
    Case("impossible", [logits((1, 3, 3)), i32(3), np.array([[1, 1, 0]], np.int32), i32(3)], attrs=MERGE),
    Case("empty-label", [logits((1, 4, 3)), i32(4), np.array([[0, 0, 0, 0]], np.int32), i32(0)], attrs=MERGE,
         ov="OpenVINO CPU crashes (segmentation fault) on a label_length of 0"),
], errors=[
    ErrorCase("batch", [logits((2, 4, 3)), i32(4, 4, 4), np.zeros((2, 4), np.int32), i32(1, 1)], code="incompatible-inputs"),
    ErrorCase("time", [logits((2, 4, 3)), i32(4, 4), np.zeros((2, 5), np.int32), i32(1, 1)], code="incompatible-inputs"),
    ErrorCase("label-length-batch", [logits((2, 4, 3)), i32(4, 4), np.zeros((2, 4), np.int32), i32(1)],
              code="incompatible-inputs"),
    ErrorCase("rank", [logits((4, 3)), i32(4, 4), np.zeros((2, 4), np.int32), i32(1, 1)], code="bad-input-rank"),
    ErrorCase("blank-rank", [logits((2, 4, 3)), i32(4, 4), np.zeros((2, 4), np.int32), i32(1, 1), i32(0)],
              code="bad-input-rank"),
    ErrorCase("float-lengths", [logits((2, 4, 3)), np.array([4, 4], np.float32), np.zeros((2, 4), np.int32), i32(1, 1)],
              code="bad-input-type"),
    ErrorCase("label-longer-than-logits", [logits((2, 4, 3)), i32(4, 2), np.zeros((2, 4), np.int32), i32(1, 3)],
              const=(1, 3), code="bad-value",
              ov=OV_VALUE_UNCHECKED),
    ErrorCase("label-is-blank", [logits((1, 4, 3)), i32(4), np.array([[0, 2, 0, 0]], np.int32), i32(2)],
              const=(1, 2, 3), code="bad-value",
              ov=OV_VALUE_UNCHECKED),
    ErrorCase("blank-past-classes", [logits((1, 4, 3)), i32(4), np.zeros((1, 4), np.int32), i32(1),
                                     np.array(3, np.int32)], const=(1, 3, 4), code="bad-value",
              ov=OV_VALUE_UNCHECKED),
    ErrorCase("int-logits", [rand((2, 4, 3), np.int32), i32(4, 4), np.zeros((2, 4), np.int32), i32(1, 1)],
              code="bad-input-type"),
])

TABLES = [CTC_LOSS]
test_conformance = conformance(TABLES)
