"""Conformance table of CTCLoss-4.  The reference sums, in float64, the
probability of every alignment (all C^T class sequences of the batch's
logit_length steps) that reads as the labels, as the spec defines the loss;
irexec's forward recursion is held to 1e-6 relative of it."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from conformance.harness import OV_VALUE_UNCHECKED, Case, ErrorCase, OpTable, Tol, conformance, random_arrays, table_rng


def _reads(path: tuple[int, ...], blank: int, merge: bool) -> list[int]:
    out = []
    for i, c in enumerate(path):
        if merge and i and path[i - 1] == c:
            continue
        if c != blank:
            out.append(c)
    return out


def ref_ctc_loss(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    logits, logit_length, labels, label_length = x[:4]
    batch, time, classes = logits.shape
    blank = int(x[4]) if len(x) > 4 else classes - 1
    merge = attrs.get("ctc_merge_repeated", True)
    out = np.empty(batch, np.float64)
    for b in range(batch):
        n, target = int(logit_length[b]), [int(v) for v in labels[b, : int(label_length[b])]]
        if attrs.get("unique", False):
            target = list(dict.fromkeys(target))
        elif attrs.get("preprocess_collapse_repeated", False):
            target = [v for i, v in enumerate(target) if i == 0 or v != target[i - 1]]
        z = logits[b, :n].astype(np.float64)
        p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
        total = sum(np.prod([p[t, c] for t, c in enumerate(path)])
                    for path in itertools.product(range(classes), repeat=n) if _reads(path, blank, merge) == target)
        out[b] = -np.log(total) if total > 0 else np.inf
    return [out.astype(logits.dtype)]


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
              const=(1, 3), code="bad-value", ov=OV_VALUE_UNCHECKED),
    ErrorCase("label-is-blank", [logits((1, 4, 3)), i32(4), np.array([[0, 2, 0, 0]], np.int32), i32(2)],
              const=(1, 2, 3), code="bad-value", ov=OV_VALUE_UNCHECKED),
    ErrorCase("blank-past-classes", [logits((1, 4, 3)), i32(4), np.zeros((1, 4), np.int32), i32(1),
                                     np.array(3, np.int32)], const=(1, 3, 4), code="bad-value", ov=OV_VALUE_UNCHECKED),
    ErrorCase("int-logits", [rand((2, 4, 3), np.int32), i32(4, 4), np.zeros((2, 4), np.int32), i32(1, 1)],
              code="bad-input-type"),
])

test_conformance = conformance([CTC_LOSS])
