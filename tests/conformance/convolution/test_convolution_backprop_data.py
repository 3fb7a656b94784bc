"""Conformance tables of ConvolutionBackpropData-1 and
GroupConvolutionBackpropData-1."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.convolution.references import attrs, ref_deconv
from conformance.harness import Case, ErrorCase, OpTable, Tol, conformance, table_rng


def rand(shape: tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return rng.integers(-5, 5, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


A2 = attrs("1,1", "1,1", "0,0", "0,0")


S2 = attrs("2,2", "1,1", "1,1", "1,1", op="1,1")


rng = table_rng("ConvolutionBackpropData-1")  # each table its own generator
DECONV = OpTable("ConvolutionBackpropData", "opset1", reference=ref_deconv, tol=Tol(rtol=1e-5, atol=1e-5), cases=[
    Case("2d-plain", [rand((1, 3, 4, 5)), rand((3, 2, 3, 3))], A2, const=(1,)),
    Case("2d-stride-pads-output-padding", [rand((2, 4, 5, 4)), rand((4, 3, 3, 3))], S2, const=(1,)),
    Case("2d-dilation-asymmetric", [rand((1, 2, 4, 3)), rand((2, 3, 2, 3))], attrs("1,3", "2,1", "0,1", "1,0"),
         const=(1,)),
    Case("1d-valid", [rand((2, 3, 6)), rand((3, 2, 4))], attrs("3", "1", "4", "4", "valid"), const=(1,)),
    Case("3d", [rand((1, 2, 3, 4, 2)), rand((2, 2, 2, 3, 2))], attrs("2,1,2", "1,1,1", "0,1,0", "1,0,0"), const=(1,)),
    Case("output-shape-same-upper", [rand((1, 3, 5, 5)), rand((3, 2, 3, 3)), np.array([10, 9], np.int64)],
         attrs("2,2", "1,1", "0,0", "0,0", "same_upper"), const=(1, 2)),
    Case("output-shape-same-lower", [rand((1, 3, 5, 5)), rand((3, 2, 4, 4)), np.array([10, 11], np.int32)],
         attrs("2,2", "1,1", "0,0", "0,0", "same_lower"), const=(1, 2)),
    Case("output-shape-explicit", [rand((1, 2, 4, 4)), rand((2, 2, 3, 3)), np.array([8, 9], np.int64)],
         attrs("2,2", "1,1", "1,0", "1,0"), const=(1, 2)),
    Case("filters-parameter", [rand((1, 2, 3, 3)), rand((2, 3, 2, 2))], A2),
    Case("f16", [rand((1, 3, 4, 4), np.float16), rand((3, 2, 3, 3), np.float16)], A2, const=(1,)),
    Case("zero-batch", [rand((0, 2, 3, 3)), rand((2, 3, 2, 2))], A2, const=(1,),
         ov="OpenVINO CPU does not run zero-size convolutions"),
], errors=[
    ErrorCase("channels-differ", [rand((1, 3, 4, 4)), rand((2, 2, 3, 3))], A2, const=(1,), code="incompatible-inputs"),
    ErrorCase("strides-count", [rand((1, 3, 4, 4)), rand((3, 2, 3, 3))], attrs("1", "1,1", "0,0", "0,0"), const=(1,),
              code="bad-attribute"),
    ErrorCase("output-shape-count", [rand((1, 3, 4, 4)), rand((3, 2, 3, 3)), np.array([8, 8, 8], np.int64)],
              A2, const=(1, 2), code="bad-shape"),
    ErrorCase("pads-too-big", [rand((1, 3, 2, 2)), rand((3, 2, 1, 1))], attrs("1,1", "1,1", "1,1", "1,1"), const=(1,),
              code="bad-shape",
              ov="OpenVINO's shape inference gives an empty output"),
])


rng = table_rng("GroupConvolutionBackpropData-1")  # each table its own generator
GDECONV = OpTable("GroupConvolutionBackpropData", "opset1", reference=lambda x, a: ref_deconv(x, a, True),
                  tol=Tol(rtol=1e-5, atol=1e-5), cases=[
    Case("groups-2", [rand((1, 4, 4, 5)), rand((2, 2, 3, 3, 3))], attrs("2,1", "1,1", "1,0", "0,1"), const=(1,)),
    Case("depthwise-stride", [rand((2, 6, 4, 4)), rand((6, 1, 1, 4, 4))], attrs("2,2", "1,1", "1,1", "1,1"),
         const=(1,)),
    Case("1d-output-padding", [rand((1, 4, 5)), rand((2, 2, 3, 3))], attrs("3", "2", "1", "0", op="2"), const=(1,)),
    Case("3d", [rand((1, 4, 2, 3, 2)), rand((2, 2, 1, 2, 2, 2))], attrs("1,2,1", "1,1,2", "0,0,1", "1,0,0"),
         const=(1,)),
    Case("output-shape-same-upper", [rand((1, 4, 3, 3)), rand((2, 2, 2, 3, 3)), np.array([6, 7], np.int64)],
         attrs("2,2", "1,1", "0,0", "0,0", "same_upper"), const=(1, 2)),
], errors=[
    ErrorCase("groups-mismatch", [rand((1, 5, 4, 4)), rand((2, 2, 2, 3, 3))], A2, const=(1,), code="incompatible-inputs"),
    ErrorCase("filters-rank", [rand((1, 4, 4, 4)), rand((4, 2, 3, 3))], A2, const=(1,), code="bad-input-rank"),
])

TABLES = [DECONV, GDECONV]
test_conformance = conformance(TABLES)
