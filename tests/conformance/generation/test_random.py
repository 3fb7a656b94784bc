"""Conformance tables of RandomUniform-8 and Multinomial-13: shapes and
types against OpenVINO's shape inference, declared dims and errors.  Their
values come from another generator than OpenVINO's, so they are not compared
(generation/test_random_values.py checks support, shape, dtype and determinism)."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.harness import OV_READS_DEFAULT, OV_TYPE_UNCHECKED, OV_VALUE_UNCHECKED, Case, ErrorCase, OpTable, Tol, conformance

RANDOM = "random values: irexec's generator is not OpenVINO's Philox stream"


def i64(v: Any) -> np.ndarray:
    return np.array(v, np.int64)


def seeds(**kw: Any) -> dict[str, Any]:
    return {"global_seed": 7, "op_seed": 11, **kw}


RANDOM_UNIFORM = OpTable("RandomUniform", "opset8", tol=Tol.EXACT, cases=[
    Case("f32", [i64([2, 3]), np.float32(0), np.float32(1)], attrs=seeds(output_type="f32"), const=(0, 1, 2), ov=RANDOM),
    Case("i32", [np.array([4], np.int32), np.int32(-5), np.int32(5)], attrs=seeds(output_type="i32"), const=(0, 1, 2),
         ov=RANDOM),
    Case("f16-bounds-param", [i64([3, 1, 2]), np.float16(-2), np.float16(2)], attrs=seeds(output_type="f16"), const=(0,),
         ov=RANDOM),
    Case("zero-size", [i64([0, 3]), np.float64(0), np.float64(1)], attrs=seeds(output_type="f64"), const=(0, 1, 2),
         ov=RANDOM),
], errors=[
    ErrorCase("min-not-below-max", [i64([2]), np.float32(1), np.float32(1)], attrs=seeds(output_type="f32"),
              const=(0, 1, 2), code="bad-value"),
    ErrorCase("bound-type", [i64([2]), np.float32(0), np.float32(1)], attrs=seeds(output_type="i32"), const=(0, 1, 2),
              code="bad-input-type"),
    ErrorCase("min-two-values", [i64([2]), np.float32([0, 1]), np.float32(2)], attrs=seeds(output_type="f32"),
              const=(0, 1, 2), code="bad-input-rank"),
    ErrorCase("negative-dim", [i64([2, -1]), np.float32(0), np.float32(1)], attrs=seeds(output_type="f32"),
              const=(0, 1, 2), code="bad-value",
              ov=OV_VALUE_UNCHECKED),
    ErrorCase("no-output-type", [i64([2]), np.float32(0), np.float32(1)], const=(0, 1, 2), code="bad-attribute",
              ov=OV_READS_DEFAULT),
])


probs = np.array([[0.1, 0.2, 0.7, 0.0], [0.25, 0.25, 0.25, 0.25]], np.float32)


MULTINOMIAL = OpTable("Multinomial", "opset13", tol=Tol.EXACT, cases=[
    Case("with-replacement", [probs, i64(5)], attrs=seeds(convert_type="i64", with_replacement=True), const=(1,), ov=RANDOM),
    Case("without-replacement", [probs, np.array([3], np.int32)], attrs=seeds(convert_type="i32", with_replacement=False),
         const=(1,), ov=RANDOM),
    Case("log-probs", [np.log(probs + 1e-3).astype(np.float32), i64(2)],
         attrs=seeds(convert_type="i64", with_replacement=True, log_probs=True), const=(1,), ov=RANDOM),
    Case("num-samples-param", [probs, i64(4)], attrs=seeds(convert_type="i64", with_replacement=True), ov=RANDOM),
    Case("f16", [probs.astype(np.float16), i64(1)], attrs=seeds(convert_type="i32", with_replacement=False), const=(1,),
         ov=RANDOM),
], errors=[
    ErrorCase("probs-1d", [probs[0], i64(2)], attrs=seeds(convert_type="i64", with_replacement=True), const=(1,),
              code="bad-input-rank"),
    ErrorCase("convert-f32", [probs, i64(2)], attrs=seeds(convert_type="f32", with_replacement=True), const=(1,),
              code="bad-attribute",
              ov=OV_TYPE_UNCHECKED),
    ErrorCase("too-many-without-replacement", [probs, i64(5)], attrs=seeds(convert_type="i64", with_replacement=False),
              const=(1,), code="bad-value",
              ov=OV_VALUE_UNCHECKED),
    ErrorCase("integer-probs", [probs.astype(np.int32), i64(2)], attrs=seeds(convert_type="i64", with_replacement=True),
              const=(1,), code="bad-input-type"),
])

TABLES = [RANDOM_UNIFORM, MULTINOMIAL]
test_conformance = conformance(TABLES)
