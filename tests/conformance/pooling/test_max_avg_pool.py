"""Conformance tables of MaxPool-1, MaxPool-8, MaxPool-14, AvgPool-1, AvgPool-14 and
AvgPool-16."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.harness import OV_READS_DEFAULT, Case, ErrorCase, OpTable, Tol, conformance, table_rng
from conformance.pooling.references import ref_avg_pool, ref_max_pool


def rand(shape: tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return rng.integers(-20, 20, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def pool_attrs(kernel: str, strides: str, pb: str, pe: str, **more: Any) -> dict[str, Any]:
    return {"kernel": kernel, "strides": strides, "pads_begin": pb, "pads_end": pe, **more}


rng = table_rng("MaxPool-1")  # each table its own generator
nan_data = rand((1, 2, 4, 4))


nan_data[0, 0, 0, :2] = np.nan


nan_data[0, 1, 1, 1] = -np.inf


MAXPOOL_CASES = [
    Case("2d-floor", [rand((2, 3, 7, 8))], pool_attrs("3,3", "2,2", "0,0", "0,0")),
    Case("2d-pads-ceil", [rand((1, 4, 13, 13))], pool_attrs("2,2", "2,2", "1,1", "1,1", rounding_type="ceil")),
    Case("1d-ceil", [rand((2, 3, 9))], pool_attrs("3", "2", "1", "1", rounding_type="ceil")),
    Case("3d", [rand((1, 2, 5, 6, 7))], pool_attrs("2,2,2", "2,1,2", "0,1,0", "1,0,0")),
    Case("same-lower", [rand((2, 3, 9, 8))], pool_attrs("3,2", "2,3", "0,0", "0,0", auto_pad="same_lower")),
    Case("same-upper", [rand((1, 2, 6, 7))], pool_attrs("2,3", "2,2", "0,0", "0,0", auto_pad="same_upper")),
    Case("i32", [rand((2, 2, 6, 5), np.int32)], pool_attrs("2,2", "1,2", "1,0", "0,1")),
    Case("nan-and-inf", [nan_data], pool_attrs("2,2", "1,1", "0,0", "0,0"),
         ov="OpenVINO CPU lets NaN win a window; its reference (and irexec) skips NaN"),
]


MAXPOOL_ERRORS = [
    ErrorCase("kernel-count", [rand((1, 2, 5, 5))], pool_attrs("2", "1,1", "0,0", "0,0"), code="bad-attribute"),
    ErrorCase("kernel-too-big", [rand((1, 2, 2, 5))], pool_attrs("3,3", "1,1", "0,0", "0,0"), code="bad-shape"),
    ErrorCase("rank-mismatch", [rand((1, 2, 5, 5, 5))], pool_attrs("2,2", "1,1", "0,0", "0,0"), code="bad-input-rank"),
    ErrorCase("negative-pad", [rand((1, 2, 5, 5))], pool_attrs("2,2", "1,1", "-1,0", "0,0"), code="bad-attribute"),
    ErrorCase("bad-rounding", [rand((1, 2, 5, 5))], pool_attrs("2,2", "1,1", "0,0", "0,0", rounding_type="up"),
              code="bad-attribute"),
]


MAXPOOL1 = OpTable("MaxPool", "opset1", reference=lambda x, a: ref_max_pool(x, a, False), cases=MAXPOOL_CASES,
                   errors=MAXPOOL_ERRORS)


def with_dilations(c: Case) -> Case:
    """OpenVINO CPU fails on a MaxPool-8/14 without a dilations attribute (its
    reference kernel gets one dilation for several axes)."""
    n = c.inputs[0].ndim - 2
    return Case(c.id, c.inputs, {"dilations": ",".join(["1"] * n), **c.attrs}, c.const, c.ov, c.ov_shapes, c.expect)


rng = table_rng("MaxPool-8")  # each table its own generator
MAXPOOL8 = OpTable("MaxPool", "opset8", reference=ref_max_pool, cases=[*map(with_dilations, [
    *MAXPOOL_CASES,
    Case("dilations-axis-0", [rand((2, 3, 9, 8))], pool_attrs("2,3", "2,1", "1,0", "1,1", dilations="2,1", axis=0)),
    Case("axis-1-i32", [rand((2, 3, 9, 8))], pool_attrs("2,3", "2,1", "1,0", "1,1", dilations="2,1", axis=1,
                                                       index_element_type="i32")),
    Case("axis-negative", [rand((2, 3, 6, 6))], pool_attrs("2,2", "2,2", "0,0", "0,0", axis=-2)),
    Case("3d-dilated-ceil", [rand((1, 2, 5, 6, 7))], pool_attrs("2,2,2", "2,1,2", "0,1,0", "1,0,0", dilations="1,1,2",
                                                                rounding_type="ceil")),
])], errors=[*MAXPOOL_ERRORS,
           ErrorCase("axis-out-of-range", [rand((1, 2, 5, 5))], pool_attrs("2,2", "1,1", "0,0", "0,0", axis=4),
                     code="axis-out-of-range")])


rng = table_rng("MaxPool-14")  # each table its own generator
MAXPOOL14 = OpTable("MaxPool", "opset14", reference=ref_max_pool, cases=[*map(with_dilations, [
    Case("ceil-torch-trims", [rand((1, 4, 13, 13))], pool_attrs("2,2", "2,2", "1,1", "1,1", rounding_type="ceil_torch")),
    Case("ceil-torch-keeps", [rand((1, 4, 13, 13))], pool_attrs("3,3", "2,2", "0,0", "0,0", rounding_type="ceil_torch")),
    Case("ceil", [rand((1, 4, 13, 13))], pool_attrs("2,2", "2,2", "1,1", "1,1", rounding_type="ceil")),
    Case("squeezenet", [rand((1, 8, 111, 111))], pool_attrs("3,3", "2,2", "0,0", "0,0", rounding_type="ceil_torch",
                                                            dilations="1,1")),
    Case("1d-ceil-torch-dilated", [rand((2, 2, 10))], pool_attrs("2", "3", "1", "1", dilations="2",
                                                                rounding_type="ceil_torch")),
    Case("f16", [rand((1, 2, 6, 6), np.float16)], pool_attrs("2,2", "2,2", "0,0", "0,0")),
    Case("no-dilations-attribute", [rand((1, 2, 6, 6))], pool_attrs("2,2", "2,2", "0,0", "0,0", dilations=""),
         ov="OpenVINO CPU fails on MaxPool-8/14 without dilations (its reference kernel gets one dilation for two axes)"),
])], errors=MAXPOOL_ERRORS)


AVG_CASES = [
    Case("include-pad", [rand((2, 3, 9, 8))], pool_attrs("3,3", "2,2", "1,1", "1,1", **{"exclude-pad": False})),
    Case("exclude-pad", [rand((2, 3, 9, 8))], pool_attrs("3,3", "2,2", "1,1", "1,1", **{"exclude-pad": True})),
    Case("include-pad-ceil", [rand((2, 3, 9, 8))], pool_attrs("3,3", "2,2", "1,1", "1,1", rounding_type="ceil",
                                                              **{"exclude-pad": False})),
    Case("exclude-pad-ceil", [rand((2, 3, 10, 10))], pool_attrs("2,2", "3,3", "1,1", "1,1", rounding_type="ceil",
                                                                **{"exclude-pad": True})),
    Case("same-upper", [rand((2, 3, 9, 8))], pool_attrs("3,2", "2,3", "0,0", "0,0", auto_pad="same_upper",
                                                        **{"exclude-pad": True})),
    Case("1d", [rand((2, 3, 9))], pool_attrs("4", "2", "0", "0", **{"exclude-pad": False})),
    Case("3d", [rand((1, 2, 5, 6, 4))], pool_attrs("2,3,2", "1,2,2", "1,0,0", "0,1,1", **{"exclude-pad": True})),
    Case("global", [rand((1, 16, 7, 7))], pool_attrs("7,7", "1,1", "0,0", "0,0", **{"exclude-pad": False})),
]


AVG_ERRORS = [
    ErrorCase("no-exclude-pad", [rand((1, 2, 5, 5))], pool_attrs("2,2", "1,1", "0,0", "0,0"), code="bad-attribute",
              ov=OV_READS_DEFAULT),
    ErrorCase("strides-count", [rand((1, 2, 5, 5))], pool_attrs("2,2", "1", "0,0", "0,0", **{"exclude-pad": True}),
              code="bad-attribute"),
]


rng = table_rng("AvgPool-1")  # each table its own generator
AVGPOOL1 = OpTable("AvgPool", "opset1", reference=ref_avg_pool, tol=Tol(rtol=1e-6, atol=1e-6), cases=AVG_CASES,
                   errors=AVG_ERRORS)


rng = table_rng("AvgPool-14")  # each table its own generator
AVGPOOL14 = OpTable("AvgPool", "opset14", reference=ref_avg_pool, tol=Tol(rtol=1e-6, atol=1e-6), cases=[
    *AVG_CASES[:3],
    Case("ceil-torch", [rand((2, 3, 10, 10))], pool_attrs("2,2", "3,3", "1,1", "1,1", rounding_type="ceil_torch",
                                                          **{"exclude-pad": False})),
    Case("ceil-torch-exclude", [rand((1, 2, 13, 13))], pool_attrs("2,2", "2,2", "1,1", "1,1", rounding_type="ceil_torch",
                                                                  **{"exclude-pad": True})),
], errors=AVG_ERRORS)


# AvgPool-16: AvgPool-14 plus dilations (ONNX's AveragePool-19 and LpPool lower to it)
AVGPOOL16 = OpTable("AvgPool", "opset16", reference=ref_avg_pool, tol=Tol(rtol=1e-6, atol=1e-6), cases=[
    *(Case(c.id, c.inputs, {**c.attrs, "dilations": "1,1"}) for c in AVG_CASES[:3]),
    Case("no-dilations-attribute", [rand((1, 2, 6, 6))], pool_attrs("2,2", "2,2", "0,0", "0,0", **{"exclude-pad": True}),
         ov="OpenVINO CPU crashes (a segmentation fault) compiling AvgPool-16 without dilations"),
    Case("dilated-2d", [rand((1, 2, 8, 8))], pool_attrs("2,2", "1,1", "0,0", "0,0", dilations="2,2",
                                                        **{"exclude-pad": True})),
    Case("dilated-3d-exclude-ceil", [rand((1, 1, 9, 9, 9))], pool_attrs("3,3,3", "2,2,2", "1,1,1", "1,1,1",
                                                                        dilations="2,2,3", rounding_type="ceil",
                                                                        **{"exclude-pad": True})),
    Case("dilated-3d-include-ceil", [rand((1, 1, 9, 9, 9))], pool_attrs("3,3,3", "2,2,2", "1,1,1", "1,1,1",
                                                                        dilations="2,2,3", rounding_type="ceil",
                                                                        **{"exclude-pad": False})),
    Case("dilated-include-floor", [rand((2, 3, 9, 8))], pool_attrs("3,2", "2,1", "1,0", "1,1", dilations="2,3",
                                                                   **{"exclude-pad": False})),
    Case("dilated-1d-ceil-torch", [rand((2, 2, 11))], pool_attrs("3", "2", "1", "1", dilations="2",
                                                                  rounding_type="ceil_torch", **{"exclude-pad": True})),
    Case("dilated-same-upper", [rand((1, 2, 7, 7))], pool_attrs("3,3", "1,1", "0,0", "0,0", dilations="2,2",
                                                                auto_pad="same_upper", **{"exclude-pad": True})),
], errors=AVG_ERRORS + [
    ErrorCase("dilations-count", [rand((1, 2, 5, 5))], pool_attrs("2,2", "1,1", "0,0", "0,0", dilations="1",
                                                                  **{"exclude-pad": True}), code="bad-attribute"),
])

TABLES = [MAXPOOL1, MAXPOOL8, MAXPOOL14, AVGPOOL1, AVGPOOL14, AVGPOOL16]
test_conformance = conformance(TABLES)
