"""Conformance tables of the convolution, pooling and attention ops.  The
references are written from the specs in float64 with a plain loop over
output positions, independently of the window kernels."""

from __future__ import annotations

import itertools
import math
from typing import Any

import ml_dtypes
import numpy as np

from conformance.harness import OV_READS_DEFAULT, Case, ErrorCase, OpTable, Tol, attr_ints, conformance, table_rng


def rand(shape: tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return rng.integers(-20, 20, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _pads(attrs: dict[str, Any], dims: list[int], kernel: list[int], strides: list[int], dil: list[int]):
    n = len(dims)
    mode = attrs.get("auto_pad", "explicit")
    if mode == "valid":
        return [0] * n, [0] * n
    if mode in ("same_upper", "same_lower"):
        pb, pe = [], []
        for d, k, s, dl in zip(dims, kernel, strides, dil):
            total = max(0, (math.ceil(d / s) - 1) * s + dl * (k - 1) + 1 - d)
            lo, hi = total // 2, total - total // 2
            pb.append(lo if mode == "same_upper" else hi)
            pe.append(hi if mode == "same_upper" else lo)
        return pb, pe
    return attr_ints(attrs, "pads_begin", n, 0), attr_ints(attrs, "pads_end", n, 0)


# ------------------------------------------------------------------ Convolution-1, GroupConvolution-1

def ref_conv(x: list[np.ndarray], attrs: dict[str, Any], grouped: bool = False) -> list[np.ndarray]:
    data, w = x
    if not grouped:
        w = w[None]
    g, og, cg = w.shape[:3]
    kernel = list(w.shape[3:])
    n = len(kernel)
    strides, dil = attr_ints(attrs, "strides", n, 1), attr_ints(attrs, "dilations", n, 1)
    dims = list(data.shape[2:])
    pb, pe = _pads(attrs, dims, kernel, strides, dil)
    if attrs.get("auto_pad") in ("same_upper", "same_lower"):
        out = [math.ceil(d / s) for d, s in zip(dims, strides)]
    else:
        out = [(d + b + e - (dl * (k - 1) + 1)) // s + 1 for d, b, e, k, s, dl in zip(dims, pb, pe, kernel, strides, dil)]
    xd = data.astype(np.float64)
    wd = w.astype(np.float64)
    res = np.zeros((data.shape[0], g * og, *out))
    for pos in itertools.product(*(range(o) for o in out)):
        for offs in itertools.product(*(range(k) for k in kernel)):
            coord = [p * s - b + o * dl for p, s, b, o, dl in zip(pos, strides, pb, offs, dil)]
            if all(0 <= c < d for c, d in zip(coord, dims)):
                vals = xd[(slice(None), slice(None), *coord)].reshape(data.shape[0], g, cg)
                res[(slice(None), slice(None), *pos)] += np.einsum("ngc,goc->ngo", vals, wd[(..., *offs)]).reshape(
                    data.shape[0], g * og)
    return [res.astype(data.dtype)]


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


# ------------------------------------------------------------------ MaxPool-1/8/14, AvgPool-1/14

def _pool_geometry(data: np.ndarray, attrs: dict[str, Any]):
    kernel = attr_ints(attrs, "kernel", data.ndim - 2, 1)
    n = len(kernel)
    strides, dil = attr_ints(attrs, "strides", n, 1), attr_ints(attrs, "dilations", n, 1)
    dims = list(data.shape[2:])
    pb, pe = _pads(attrs, dims, kernel, strides, dil)
    mode = attrs.get("rounding_type", "floor")
    out = []
    for d, b, e, k, s, dl in zip(dims, pb, pe, kernel, strides, dil):
        span = d + b + e - (dl * (k - 1) + 1)
        if mode == "floor":
            out.append(span // s + 1)
        else:
            o = -(-span // s) + 1
            if mode == "ceil_torch" and (o - 1) * s >= d + b:  # the last window may not start in the end padding
                o -= 1
            out.append(o)
    return kernel, strides, dil, pb, out


def ref_max_pool(x: list[np.ndarray], attrs: dict[str, Any], with_index: bool = True) -> list[np.ndarray]:
    data = x[0]
    kernel, strides, dil, pb, out = _pool_geometry(data, attrs)
    dims = data.shape[2:]
    nb, c = data.shape[:2]
    vals = np.zeros((nb, c, *out), data.dtype)
    idx = np.zeros((nb, c, *out), np.int64)
    axis = int(attrs.get("axis", 0)) % data.ndim
    for b, ch in itertools.product(range(nb), range(c)):
        for pos in itertools.product(*(range(o) for o in out)):
            # from the lowest value, strictly greater wins: NaN never does, a window wholly in the padding gives the lowest
            lowest = np.iinfo(data.dtype).min if data.dtype.kind in "iu" else np.finfo(data.dtype).min
            best, where = lowest, 0
            for offs in itertools.product(*(range(k) for k in kernel)):
                coord = tuple(p * s - q + o * dl for p, s, q, o, dl in zip(pos, strides, pb, offs, dil))
                if all(0 <= cc < d for cc, d in zip(coord, dims)):
                    v = data[(b, ch, *coord)]
                    if v > best:
                        best, where = v, int(np.ravel_multi_index(coord, dims))
            vals[(b, ch, *pos)] = best
            lead = (b * c + ch) if axis == 0 else (ch if axis == 1 else 0)
            idx[(b, ch, *pos)] = where + lead * math.prod(dims)
    itype = np.int32 if attrs.get("index_element_type") == "i32" else np.int64
    return [vals, idx.astype(itype)] if with_index else [vals]


def pool_attrs(kernel: str, strides: str, pb: str, pe: str, **more: Any) -> dict[str, Any]:
    return {"kernel": kernel, "strides": strides, "pads_begin": pb, "pads_end": pe, **more}


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
rng = table_rng("MaxPool-1")  # each table its own generator
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


def ref_avg_pool(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data = x[0]
    kernel, strides, dil, pb, out = _pool_geometry(data, attrs)
    _, pe = _pads(attrs, list(data.shape[2:]), kernel, strides, dil)
    dims = data.shape[2:]
    exclude = attrs.get("exclude-pad") in (True, "true")
    res = np.zeros(data.shape[:2] + tuple(out))
    for pos in itertools.product(*(range(o) for o in out)):
        total, count = 0.0, 0
        for offs in itertools.product(*(range(k) for k in kernel)):
            coord = tuple(p * s - q + o * d for p, s, q, o, d in zip(pos, strides, pb, offs, dil))
            inside = all(0 <= cc < d for cc, d in zip(coord, dims))
            if inside:
                total = total + data[(slice(None), slice(None), *coord)].astype(np.float64)
            if exclude:
                count += inside
            elif all(d == 1 for d in dil):  # include-pad, undilated: the whole kernel, even past pads_end
                count += 1
            else:  # include-pad, dilated (AvgPool-16): the taps inside the padded input
                count += all(-q <= cc < n + e for cc, q, n, e in zip(coord, pb, dims, pe))
        res[(slice(None), slice(None), *pos)] = total / count if count else 0.0
    return [res.astype(data.dtype)]


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


# ------------------------------------------------------------------ ScaledDotProductAttention-13

def ref_sdpa(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    q, k, v = (a.astype(np.float64) for a in x[:3])
    scale = float(np.asarray(x[4]).reshape(())) if len(x) > 4 else 1.0 / math.sqrt(q.shape[-1])
    w = q @ np.swapaxes(k, -1, -2) * scale
    L, S = w.shape[-2:]
    if attrs.get("causal") in (True, "true"):
        w = w + np.triu(np.full((L, S), -np.inf), 1)
    elif len(x) > 3:
        m = x[3]
        w = np.where(m, w, -np.inf) if m.dtype == bool else w + m.astype(np.float64)
    with np.errstate(invalid="ignore"):
        w = np.exp(w - w.max(-1, keepdims=True))
        w = w / w.sum(-1, keepdims=True)
    return [(w @ v).astype(x[0].dtype)]


def qkv(b: tuple[int, ...], bk: tuple[int, ...], L: int, S: int, E: int, Ev: int, dtype: Any = np.float32):
    return [rand((*b, L, E), dtype), rand((*bk, S, E), dtype), rand((*bk, S, Ev), dtype)]


masked = rng.random((5, 7)) > 0.3
masked[:, 0] = True
rng = table_rng("ScaledDotProductAttention-13")  # each table its own generator
SDPA = OpTable("ScaledDotProductAttention", "opset13", reference=ref_sdpa, tol=Tol(rtol=1e-5, atol=1e-6), cases=[
    Case("plain", qkv((2, 3), (2, 3), 5, 7, 8, 4), {"causal": False}),
    Case("causal", qkv((2, 3), (2, 3), 6, 6, 8, 8), {"causal": True}),
    Case("causal-rectangular", qkv((1, 2), (1, 2), 4, 6, 8, 3), {"causal": True}),
    Case("one-kv-head", qkv((2, 4), (2, 1), 5, 5, 8, 4), {"causal": True}),
    Case("bool-mask", [*qkv((2, 3), (2, 3), 5, 7, 8, 4), masked], {"causal": False}, const=(3,)),
    Case("float-mask-scale", [*qkv((2, 3), (2, 3), 5, 7, 8, 4), rand((2, 1, 5, 7)), np.array(0.3, np.float32)],
         {"causal": False}),
    Case("mask-ignored-when-causal", [*qkv((1,), (1,), 4, 4, 8, 4), rand((4, 4))], {"causal": True}),
    Case("rank-3", qkv((3,), (3,), 4, 9, 16, 5), {"causal": False}),
    Case("rank-5", qkv((2, 1, 2), (1, 3, 2), 3, 4, 4, 2), {"causal": False}),
    Case("all-masked-row", [*qkv((1,), (1,), 3, 4, 8, 4), np.array([[True] * 4, [False] * 4, [True, False] * 2])],
         {"causal": False}, const=(3,)),
])
rng = table_rng("ScaledDotProductAttention-13-f16")  # each table its own generator
SDPA_F16 = OpTable("ScaledDotProductAttention", "opset13", id="ScaledDotProductAttention-opset13-f16", reference=ref_sdpa,
                   tol=Tol(rtol=2e-3, atol=2e-3), cases=[
    Case("f16-causal", qkv((2, 2), (2, 2), 5, 5, 8, 4, np.float16), {"causal": True}),
], errors=[
    ErrorCase("rank-2", [rand((5, 8)), rand((7, 8)), rand((7, 4))], {"causal": False}, code="bad-input-rank"),
    ErrorCase("e-differs", qkv((2,), (2,), 5, 7, 8, 4)[:1] + [rand((2, 7, 6)), rand((2, 7, 4))], {"causal": False},
              code="incompatible-inputs"),
    ErrorCase("s-differs", [rand((2, 5, 8)), rand((2, 7, 8)), rand((2, 6, 4))], {"causal": False},
              code="incompatible-inputs"),
    ErrorCase("batch-differs", [rand((2, 5, 8)), rand((3, 7, 8)), rand((3, 7, 4))], {"causal": False},
              code="incompatible-inputs"),
    ErrorCase("mask-shape", [*qkv((2,), (2,), 5, 7, 8, 4), rand((5, 6))], {"causal": False}, code="incompatible-inputs"),
    ErrorCase("integer-query", [rand((2, 5, 8), np.int32), rand((2, 7, 8), np.int32), rand((2, 7, 4), np.int32)],
              {"causal": False}, code="bad-input-type"),
])

TABLES = [CONV, CONV_F16, GCONV, MAXPOOL1, MAXPOOL8, MAXPOOL14, AVGPOOL1, AVGPOOL14, AVGPOOL16, SDPA, SDPA_F16]
test_conformance = conformance(TABLES)
