"""Conformance tables of Interpolate-4, Interpolate-11 and Interpolate-1."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, Tol, conformance, table_rng
from conformance.image.references import interp, ref_interp, ref_interp1
from conformance.pooling.references import shape_of


def rand(shape: tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return rng.integers(-5, 5, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def f32(*v: float) -> np.ndarray:
    return np.array(v, np.float32)


NONE = np.array([1], np.int64)  # sizes unused in scales mode


rng = table_rng("Interpolate-image")  # the image several tables share, its own generator
IMG = rand((1, 2, 4, 5))

rng = table_rng("Interpolate-4")  # each table its own generator
INTERP4 = OpTable("Interpolate", "opset4", reference=ref_interp, tol=Tol(rtol=1e-5, atol=1e-5), cases=[
    Case("nearest-up-asymmetric-floor", [IMG, shape_of(8, 10), f32(2, 2), shape_of(2, 3)],
         interp("nearest", ctm="asymmetric", nearest="floor"), const=(1, 2, 3)),
    Case("nearest-down-half-pixel-prefer-floor", [rand((1, 1, 9, 7)), shape_of(4, 3), f32(0.5, 0.5), shape_of(2, 3)],
         interp("nearest"), const=(1, 2, 3)),
    Case("nearest-scales-prefer-ceil-tf", [IMG, NONE, f32(1.5, 1.7), shape_of(2, 3)],
         interp("nearest", "scales", "tf_half_pixel_for_nn", "round_prefer_ceil"), const=(1, 2, 3)),
    Case("nearest-simple-align-corners-ceil", [IMG, shape_of(3, 7), f32(1, 1), shape_of(2, 3)],
         interp("nearest", ctm="align_corners", nearest="ceil"), const=(1, 2, 3)),
    Case("nearest-simple", [IMG, shape_of(2, 9), f32(1, 1), shape_of(2, 3)],
         interp("nearest", ctm="asymmetric", nearest="simple"), const=(1, 2, 3)),
    Case("linear-onnx-half-pixel", [IMG, shape_of(7, 3), f32(1, 1), shape_of(2, 3)], interp("linear_onnx"),
         const=(1, 2, 3)),
    Case("linear-onnx-align-corners-scales", [IMG, NONE, f32(2, 1.5), shape_of(2, 3)],
         interp("linear_onnx", "scales", "align_corners"), const=(1, 2, 3)),
    Case("linear-pytorch-half-pixel", [IMG, shape_of(8, 3), f32(1, 1), shape_of(2, 3)],
         interp("linear", ctm="pytorch_half_pixel"), const=(1, 2, 3)),
    Case("linear-antialias-down", [rand((1, 1, 8, 9)), shape_of(3, 4), f32(1, 1), shape_of(2, 3)],
         interp("linear", antialias=True), const=(1, 2, 3),
         ov="OpenVINO CPU's antialiased linear differs from the spec's triangle filter (README, divergences)"),
    Case("cubic-half-pixel", [IMG, shape_of(7, 8), f32(1, 1), shape_of(2, 3)], interp("cubic"), const=(1, 2, 3)),
    Case("cubic-asymmetric-coeff", [IMG, shape_of(3, 9), f32(1, 1), shape_of(2, 3)],
         interp("cubic", ctm="asymmetric", cube_coeff=-0.5), const=(1, 2, 3)),
    Case("default-axes-pads", [rand((1, 2, 3, 3)), shape_of(1, 2, 6, 4), f32(1, 1, 1, 1)],
         interp("nearest", pads_begin="0,0,1,0", pads_end="0,0,0,1"), const=(1, 2)),
    Case("u8-linear-onnx", [rng.integers(0, 255, (1, 1, 3, 4)).astype(np.uint8), shape_of(5, 6), f32(1, 1),
                            shape_of(2, 3)], interp("linear_onnx"), const=(1, 2, 3), ov="rounding of integer data"),
    # the input shape_calculation_mode does not read may have any rank
    Case("sizes-mode-scales-0d", [IMG, shape_of(8, 10), np.array(2, np.float32), shape_of(2, 3)], interp("nearest"),
         const=(1, 2, 3)),
    Case("sizes-longer-than-axes", [IMG, shape_of(8, 10, 3), f32(2, 2), shape_of(2, 3)], interp("nearest"),
         const=(1, 2, 3)),
    Case("scales-longer-than-axes", [IMG, shape_of(8, 10), f32(2, 3, 5), shape_of(2, 3)], interp("nearest", "scales"),
         const=(1, 2, 3)),
    Case("scales-mode-sizes-2d", [IMG, np.array([[1]], np.int64), f32(2, 2), shape_of(2, 3)],
         interp("nearest", "scales"), const=(1, 2, 3)),
], errors=[
    ErrorCase("sizes-mode-sizes-0d", [IMG, np.array(8, np.int64), f32(2, 2), shape_of(2,)], interp("nearest"),
              const=(1, 2, 3), code="bad-input-rank"),
    ErrorCase("scales-mode-scales-0d", [IMG, shape_of(8, 10), np.array(2, np.float32), shape_of(2,)],
              interp("nearest", "scales"), const=(1, 2, 3), code="bad-input-rank"),
    ErrorCase("sizes-too-few", [IMG, shape_of(8), f32(2, 2), shape_of(2, 3)], interp("nearest"), const=(1, 2, 3),
              code="incompatible-inputs"),
    ErrorCase("axis-out-of-range", [IMG, shape_of(8, 10), f32(2, 2), shape_of(2, 4)], interp("nearest"),
              const=(1, 2, 3), code="axis-out-of-range"),
    ErrorCase("negative-axes", [IMG, shape_of(8, 10), f32(2, 2), shape_of(-2, -1)], interp("nearest"),
              const=(1, 2, 3), code="axis-out-of-range"),
    ErrorCase("bad-mode", [IMG, shape_of(8, 10), f32(2, 2), shape_of(2, 3)], interp("area"), const=(1, 2, 3),
              code="bad-attribute"),
])


rng = table_rng("Interpolate-11")  # each table its own generator
INTERP11 = OpTable("Interpolate", "opset11", reference=lambda x, a: ref_interp(x, a, True),
                   tol=Tol(rtol=1e-5, atol=1e-5), cases=[
    Case("nearest-sizes", [IMG, shape_of(8, 3), shape_of(2, 3)], interp("nearest", nearest="round_prefer_ceil"),
         const=(1, 2)),
    Case("linear-onnx-scales", [IMG, f32(2, 0.6), shape_of(2, 3)], interp("linear_onnx", "scales"), const=(1, 2)),
    Case("cubic-sizes-no-axes", [rand((1, 1, 4, 4)), shape_of(1, 1, 6, 7)], interp("cubic"), const=(1,)),
    Case("linear-scales-3d", [rand((1, 2, 3, 4, 2)), f32(2, 1.5, 2), shape_of(2, 3, 4)],
         interp("linear", "scales", "asymmetric"), const=(1, 2)),
], errors=[
    ErrorCase("scales-int", [IMG, shape_of(2, 2), shape_of(2, 3)], interp("nearest", "scales"), const=(1, 2),
              code="bad-input-type"),
    ErrorCase("pillow-three-axes", [rand((1, 2, 4, 5)), shape_of(2, 8, 3), shape_of(1, 2, 3)],
              interp("bilinear_pillow"), const=(1, 2), code="incompatible-inputs",
              ov="OpenVINO's shape inference lets a pillow mode resize more than two axes"),
    ErrorCase("pillow-no-axes-4d", [IMG, shape_of(1, 2, 8, 3)], interp("bicubic_pillow"), const=(1,),
              code="incompatible-inputs",
              ov="OpenVINO's shape inference lets a pillow mode resize more than two axes"),
])


# Pillow modes (OpenVINO CPU runs them at rank 2 to 4 with constant inputs)
PIL_DOWN = rand((1, 2, 11, 13))


rng = table_rng("Interpolate-11-pillow")  # each table its own generator
INTERP11_PILLOW = OpTable("Interpolate", "opset11", id="Interpolate-opset11-pillow",
                          reference=lambda x, a: ref_interp(x, a, True), tol=Tol(rtol=1e-5, atol=1e-5), cases=[
    Case("bilinear-up-sizes", [IMG, shape_of(7, 9), shape_of(2, 3)], interp("bilinear_pillow"), const=(1, 2)),
    Case("bilinear-down-sizes", [PIL_DOWN, shape_of(4, 5), shape_of(2, 3)], interp("bilinear_pillow"),
         const=(1, 2)),
    Case("bilinear-down-antialias", [PIL_DOWN, shape_of(3, 6), shape_of(2, 3)],
         interp("bilinear_pillow", antialias=True), const=(1, 2)),
    Case("bilinear-mixed-scales", [PIL_DOWN, f32(0.5, 1.7), shape_of(2, 3)], interp("bilinear_pillow", "scales"),
         const=(1, 2)),
    Case("bicubic-up-scales", [IMG, f32(1.5, 2.0), shape_of(2, 3)], interp("bicubic_pillow", "scales",
                                                                            cube_coeff=-0.5), const=(1, 2)),
    Case("bicubic-down-scales", [PIL_DOWN, f32(0.5, 0.4), shape_of(2, 3)],
         interp("bicubic_pillow", "scales", cube_coeff=-0.5), const=(1, 2)),
    Case("bicubic-down-default-coeff", [PIL_DOWN, shape_of(5, 4), shape_of(2, 3)], interp("bicubic_pillow"),
         const=(1, 2), ov="OpenVINO CPU's bicubic_pillow ignores cube_coeff and always uses -0.5 (README, divergences)"),
    Case("bicubic-nhwc-one-axis-kept", [rand((1, 6, 7, 3)), shape_of(6, 3), shape_of(1, 2)],
         interp("bicubic_pillow", cube_coeff=-0.5), const=(1, 2)),
    Case("bilinear-2d-no-axes", [rand((9, 5)), shape_of(4, 8)], interp("bilinear_pillow"), const=(1,)),
    Case("bicubic-u8-down", [rng.integers(0, 255, (1, 3, 10, 9)).astype(np.uint8), shape_of(4, 5), shape_of(2, 3)],
         interp("bicubic_pillow", cube_coeff=-0.5), const=(1, 2)),
    Case("bilinear-pads", [rand((1, 1, 5, 6)), shape_of(4, 4), shape_of(2, 3)],
         interp("bilinear_pillow", pads_begin="0,0,1,2", pads_end="0,0,1,0"), const=(1, 2)),
])


def interp1(mode: str, axes: str = "2,3", align: bool = True, **more: Any) -> dict[str, Any]:
    return {"axes": axes, "mode": mode, "align_corners": align, **more}


rng = table_rng("Interpolate-1")  # each table its own generator
INTERP1 = OpTable("Interpolate", "opset1", reference=ref_interp1, tol=Tol(rtol=1e-5, atol=1e-5), cases=[
    Case("nearest-up-align-corners", [IMG, shape_of(8, 10)], interp1("nearest"), const=(1,)),
    Case("nearest-down-asymmetric", [rand((1, 1, 9, 7)), shape_of(4, 3)], interp1("nearest", align=False),
         const=(1,)),
    Case("nearest-u8-one-axis", [rng.integers(0, 255, (2, 3, 5)).astype(np.uint8), shape_of(8)],
         interp1("nearest", "2", False), const=(1,)),
    Case("linear-align-corners", [IMG, shape_of(7, 3)], interp1("linear"), const=(1,)),
    Case("linear-nchw-hw-asymmetric", [IMG, shape_of(8, 3)], interp1("linear", align=False), const=(1,)),
    Case("linear-one-axis-half-pixel", [IMG, shape_of(9)], interp1("linear", "3", False), const=(1,)),
    Case("linear-pads-asymmetric", [IMG, shape_of(9, 4)],
         interp1("linear", align=False, pads_begin="0,0,1,0", pads_end="0,0,0,2"), const=(1,)),
    Case("linear-unordered-axes", [IMG, shape_of(6, 7)], interp1("linear", "3,2", False), const=(1,)),
    Case("linear-5d-half-pixel", [rand((1, 1, 3, 4, 5)), shape_of(5, 6, 3)], interp1("linear", "2,3,4", False),
         const=(1,)),
    Case("linear-5d-align-corners", [rand((1, 2, 3, 4, 5)), shape_of(2, 7, 8)], interp1("linear", "2,3,4"),
         const=(1,)),
    Case("linear-5d-antialias-down", [rand((1, 1, 4, 9, 8)), shape_of(4, 3, 5)],
         interp1("linear", "2,3,4", False, antialias=True), const=(1,)),
    Case("cubic-align-corners", [IMG, shape_of(7, 8)], interp1("cubic"), const=(1,)),
    Case("cubic-asymmetric-down", [rand((1, 1, 9, 8)), shape_of(5, 3)], interp1("cubic", align=False), const=(1,)),
    Case("nearest-target-parameter", [IMG, shape_of(3, 9)], interp1("nearest", align=False)),
    Case("nearest-target-0d", [IMG, np.array(8, np.int64)], interp1("nearest", "2"), const=(1,),
         ov="OpenVINO's shape inference takes a 0-d target; its CPU plugin refuses to compile it (the Interpolate-4 it "
            "converts to wants 1-D sizes)"),
], errors=[
    ErrorCase("area", [IMG, shape_of(8, 10)], interp1("area"), const=(1,), code="bad-attribute",
              ov="OpenVINO's shape inference accepts mode area; its CPU plugin refuses it"),
    ErrorCase("axis-out-of-range", [IMG, shape_of(8, 10)], interp1("nearest", "2,4"), const=(1,),
              code="axis-out-of-range"),
    ErrorCase("pads-outside-axes", [IMG, shape_of(8, 10)], interp1("nearest", pads_begin="0,1,0,0"), const=(1,),
              code="bad-attribute",
              ov="OpenVINO's shape inference ignores these pads; its CPU plugin pads the channel axis"),
    ErrorCase("target-too-short", [IMG, shape_of(8)], interp1("nearest"), const=(1,), code="incompatible-inputs",
              ov="OpenVINO's shape inference reads past the target shape (an uninitialised dim)"),
])

TABLES = [INTERP4, INTERP11, INTERP11_PILLOW, INTERP1]
test_conformance = conformance(TABLES)
