"""Conformance table of Eye-9."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.generation.references import ref_eye
from conformance.harness import OV_READS_DEFAULT, OV_VALUE_UNCHECKED, Case, ErrorCase, OpTable, conformance, table_rng


def i64(v: Any) -> np.ndarray:
    return np.array(v, np.int64)


rng = table_rng("Eye-9")  # each table its own generator
EYE = OpTable("Eye", "opset9", reference=ref_eye, cases=[
    Case("square", [i64(3), i64(3), i64(0)], attrs={"output_type": "f32"}, const=(0, 1, 2)),
    Case("wide-shifted", [i64(2), i64(5), i64(2)], attrs={"output_type": "i8"}, const=(0, 1, 2)),
    Case("tall-negative-diag", [np.array([4], np.int32), np.array([2], np.int32), np.array([-1], np.int32)],
         attrs={"output_type": "i64"}, const=(0, 1, 2)),
    Case("diag-outside", [i64(2), i64(3), i64(5)], attrs={"output_type": "f16"}, const=(0, 1, 2)),
    Case("batch", [i64(2), i64(3), i64(0), i64([2, 1])], attrs={"output_type": "f32"}, const=(0, 1, 2, 3)),
    Case("zero-rows", [i64(0), i64(3), i64(0)], attrs={"output_type": "f32"}, const=(0, 1, 2)),
    Case("diag-param", [i64(3), i64(3), i64(-1)], attrs={"output_type": "f32"}, const=(0, 1)),
], errors=[
    ErrorCase("negative-rows", [i64(-1), i64(3), i64(0)], attrs={"output_type": "f32"}, const=(0, 1, 2), code="bad-value"),
    ErrorCase("rows-two-values", [i64([1, 2]), i64(3), i64(0)], attrs={"output_type": "f32"}, const=(0, 1, 2),
              code="bad-input-rank"),
    ErrorCase("rows-f32", [np.array(2.0, np.float32), i64(3), i64(0)], attrs={"output_type": "f32"}, const=(0, 1, 2),
              code="bad-input-type"),
    ErrorCase("negative-batch", [i64(2), i64(3), i64(0), i64([-2])], attrs={"output_type": "f32"}, const=(0, 1, 2, 3),
              code="bad-value",
              ov=OV_VALUE_UNCHECKED),
    ErrorCase("no-output-type", [i64(2), i64(3), i64(0)], const=(0, 1, 2), code="bad-attribute",
              ov=OV_READS_DEFAULT),
])

TABLES = [EYE]
test_conformance = conformance(TABLES)
