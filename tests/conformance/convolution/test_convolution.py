"""Conformance tables of Convolution-1 and GroupConvolution-1."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from conformance.convolution.references import ref_conv
from conformance.harness import Case, ErrorCase, OpTable, Tol, conformance, table_rng


def rand(shape: tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return rng.integers(-20, 20, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def conv_attrs(strides: str, dilations: str, pb: str, pe: str, auto_pad: str = "explicit") -> dict[str, Any]:
    return {"strides": strides, "dilations": dilations, "pads_begin": pb, "pads_end": pe, "auto_pad": auto_pad}


A2 = conv_attrs("1,1", "1,1", "0,0", "0,0")


rng = table_rng("Convolution-1")  # each table its own generator
CONV = OpTable("Convolution", "opset1", reference=ref_conv, tol=Tol(rtol=1e-5, atol=1e-5), cases=[
    Case("2d-plain", [rand((1, 3, 6, 7)), rand((4, 3, 3, 3))], A2, const=(1,)),
    Case("2d-stride-pad-dilation", [rand((2, 4, 9, 10)), rand((6, 4, 3, 2))],
         conv_attrs("2,1", "2,1", "1,0", "2,3"), const=(1,)),
    Case("2d-same-upper", [rand((2, 4, 9, 10)), rand((5, 4, 3, 2))], conv_attrs("2,3", "1,2", "0,0", "0,0", "same_upper"),
         const=(1,)),
    Case("2d-same-lower", [rand((1, 2, 8, 5)), rand((3, 2, 2, 4))], conv_attrs("3,2", "1,1", "0,0", "0,0", "same_lower"),
         const=(1,)),
    Case("1d-valid", [rand((2, 4, 9)), rand((6, 4, 3))], conv_attrs("2", "1", "5", "5", "valid"), const=(1,)),
    Case("3d", [rand((1, 3, 5, 6, 4)), rand((2, 3, 3, 2, 2))], conv_attrs("1,2,1", "1,1,2", "1,0,1", "0,1,1"), const=(1,)),
    Case("1x1", [rand((2, 8, 4, 4)), rand((5, 8, 1, 1))], A2, const=(1,)),
    Case("1x1-image-stride-2", [rand((1, 16, 1, 1)), rand((12, 16, 1, 1))], conv_attrs("2,2", "1,1", "0,0", "0,0"), const=(1,)),
    Case("1x1-stride-2", [rand((1, 8, 5, 5)), rand((6, 8, 1, 1))], conv_attrs("2,2", "1,1", "0,0", "0,0"), const=(1,)),
    Case("filters-parameter", [rand((1, 2, 5, 5)), rand((3, 2, 2, 2))], A2),
    Case("f64", [rand((1, 2, 5, 5), np.float64), rand((3, 2, 3, 3), np.float64)], A2, const=(1,),
         ov="OpenVINO CPU computes f64 in f32"),
    Case("zero-batch", [rand((0, 2, 5, 5)), rand((3, 2, 3, 3))], A2, const=(1,),
         ov="OpenVINO CPU does not run zero-size convolutions"),
], errors=[
    ErrorCase("channels-differ", [rand((1, 3, 5, 5)), rand((4, 2, 3, 3))], A2, const=(1,), code="incompatible-inputs"),
    ErrorCase("strides-count", [rand((1, 3, 5, 5)), rand((4, 3, 3, 3))], conv_attrs("1", "1,1", "0,0", "0,0"), const=(1,),
              code="bad-attribute"),
    ErrorCase("kernel-too-big", [rand((1, 3, 2, 5)), rand((4, 3, 3, 3))], A2, const=(1,), code="bad-shape"),
    ErrorCase("rank-2", [rand((3, 5)), rand((4, 3))], conv_attrs("1", "1", "0", "0"), const=(1,), code="bad-input-rank"),
    ErrorCase("zero-stride", [rand((1, 3, 5, 5)), rand((4, 3, 3, 3))], conv_attrs("0,1", "1,1", "0,0", "0,0"), const=(1,),
              code="bad-attribute"),
    ErrorCase("integer-filters", [rand((1, 3, 5, 5)), rand((4, 3, 3, 3), np.int32)], A2, const=(1,), code="bad-input-type"),
])


rng = table_rng("Convolution-1-f16")  # each table its own generator
CONV_F16 = OpTable("Convolution", "opset1", id="Convolution-opset1-f16", reference=ref_conv, tol=Tol(rtol=2e-3, atol=2e-3),
                   cases=[Case("f16", [rand((1, 3, 6, 6), np.float16), rand((4, 3, 3, 3), np.float16)], A2, const=(1,)),
                          Case("bf16", [rand((1, 3, 6, 6), ml_dtypes.bfloat16), rand((4, 3, 3, 3), ml_dtypes.bfloat16)], A2,
                               const=(1,), ov="OpenVINO CPU has no bf16 convolution on this machine")])


rng = table_rng("GroupConvolution-1")  # each table its own generator
GCONV = OpTable("GroupConvolution", "opset1", reference=lambda x, a: ref_conv(x, a, True), tol=Tol(rtol=1e-5, atol=1e-5), cases=[
    Case("groups-2", [rand((1, 6, 7, 8)), rand((2, 3, 3, 3, 3))], conv_attrs("1,1", "1,1", "1,1", "1,1"), const=(1,)),
    Case("depthwise-stride", [rand((2, 8, 9, 9)), rand((8, 1, 1, 3, 3))], conv_attrs("2,2", "1,1", "1,1", "1,1"), const=(1,)),
    Case("depthwise-multiplier", [rand((1, 4, 6, 5)), rand((4, 2, 1, 3, 2))], conv_attrs("1,2", "2,1", "2,0", "1,1"),
         const=(1,)),
    Case("1d-same-upper", [rand((2, 4, 11)), rand((2, 3, 2, 4))], conv_attrs("3", "1", "0", "0", "same_upper"), const=(1,)),
    Case("3d", [rand((1, 4, 4, 5, 3)), rand((2, 2, 2, 2, 3, 2))], conv_attrs("1,1,1", "1,1,1", "0,1,0", "1,0,1"),
         const=(1,)),
    Case("valid", [rand((1, 6, 7, 7)), rand((3, 1, 2, 3, 3))], conv_attrs("2,2", "1,1", "3,3", "3,3", "valid"), const=(1,)),
    # many channels (from 72): the channels-last layout
    Case("depthwise-80-dilated", [rand((2, 80, 9, 8)), rand((80, 1, 1, 3, 5))], conv_attrs("1,1", "2,1", "2,1", "0,3"),
         const=(1,)),
    Case("depthwise-72-pads-past-reach", [rand((1, 72, 9, 9)), rand((72, 1, 1, 3, 3))], conv_attrs("2,2", "1,1", "3,0", "0,3"),
         const=(1,)),
    Case("depthwise-128-stride-2", [rand((1, 128, 9, 10)), rand((128, 1, 1, 5, 5))], conv_attrs("2,2", "1,1", "2,2", "1,2"),
         const=(1,)),
    Case("depthwise-136-stride-dilation", [rand((1, 136, 11, 7)), rand((136, 1, 1, 3, 2))],
         conv_attrs("3,2", "2,3", "1,0", "2,2"), const=(1,)),
    Case("multiplier-80-3d", [rand((1, 40, 4, 5, 6)), rand((40, 2, 1, 2, 3, 2))], conv_attrs("1,1,2", "1,2,1", "1,0,1", "0,2,1"),
         const=(1,)),
    Case("multiplier-64-3d", [rand((1, 32, 4, 5, 6)), rand((32, 2, 1, 2, 3, 2))], conv_attrs("1,1,2", "1,2,1", "1,0,1", "0,2,1"),
         const=(1,)),
    Case("two-in-64", [rand((1, 128, 5, 6)), rand((64, 2, 2, 3, 3))], conv_attrs("1,1", "1,1", "1,1", "1,1"), const=(1,)),
], errors=[
    ErrorCase("groups-mismatch", [rand((1, 6, 5, 5)), rand((4, 2, 2, 3, 3))], conv_attrs("1,1", "1,1", "0,0", "0,0"),
              const=(1,), code="incompatible-inputs"),
    ErrorCase("filters-rank", [rand((1, 6, 5, 5)), rand((6, 1, 3, 3))], conv_attrs("1,1", "1,1", "0,0", "0,0"),
              const=(1,), code="bad-input-rank"),
])

TABLES = [CONV, CONV_F16, GCONV]
test_conformance = conformance(TABLES)
