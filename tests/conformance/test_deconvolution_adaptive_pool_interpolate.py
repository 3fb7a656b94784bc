"""Conformance tables of the transposed convolutions.  The reference scatters
every input element times the filters into the full result in float64 with a
plain loop over input positions, then cuts the output window, written from the
spec independently of the kernel."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from conformance.harness import OV_TYPE_UNCHECKED, Case, ErrorCase, OpTable, Tol, attr_ints, conformance, table_rng


def rand(shape: tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return rng.integers(-5, 5, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def ref_deconv(x: list[np.ndarray], attrs: dict[str, Any], grouped: bool = False) -> list[np.ndarray]:
    data, w = x[0], x[1]
    if not grouped:
        w = w[None]
    g, cg, og = w.shape[:3]
    kernel = list(w.shape[3:])
    n = len(kernel)
    s, d = attr_ints(attrs, "strides", n, 1), attr_ints(attrs, "dilations", n, 1)
    op = attr_ints(attrs, "output_padding", n, 0)
    ins = list(data.shape[2:])
    full_len = [(i - 1) * st + dl * (k - 1) + 1 for i, st, dl, k in zip(ins, s, d, kernel)]
    mode = attrs.get("auto_pad", "explicit")
    if len(x) > 2:
        out = [int(v) for v in x[2]]
        if mode in ("same_upper", "same_lower"):
            tot = [max(f - o + p, 0) for f, o, p in zip(full_len, out, op)]
            pb = [t - t // 2 if mode == "same_upper" else t // 2 for t in tot]
        else:
            pb = [0] * n if mode == "valid" else attr_ints(attrs, "pads_begin", n, 0)
    else:
        pb, pe = ([0] * n, [0] * n) if mode != "explicit" else (attr_ints(attrs, "pads_begin", n, 0),
                                                                attr_ints(attrs, "pads_end", n, 0))
        out = [f - b - e + p for f, b, e, p in zip(full_len, pb, pe, op)]
    full = np.zeros((data.shape[0], g * og, *[max(f, o + b) for f, o, b in zip(full_len, out, pb)]))
    xd, wd = data.astype(np.float64), w.astype(np.float64)
    for pos in itertools.product(*(range(i) for i in ins)):
        vals = xd[(slice(None), slice(None), *pos)].reshape(data.shape[0], g, cg)
        for offs in itertools.product(*(range(k) for k in kernel)):
            at = tuple(p * st + o * dl for p, st, o, dl in zip(pos, s, offs, d))
            full[(slice(None), slice(None), *at)] += np.einsum("ngc,gco->ngo", vals, wd[(..., *offs)]).reshape(
                data.shape[0], g * og)
    res = full[(slice(None), slice(None), *[slice(b, b + o) for b, o in zip(pb, out)])]
    return [res.astype(data.dtype)]


def attrs(strides: str, dilations: str, pb: str, pe: str, auto_pad: str = "explicit", op: str | None = None):
    a = {"strides": strides, "dilations": dilations, "pads_begin": pb, "pads_end": pe, "auto_pad": auto_pad}
    if op is not None:
        a["output_padding"] = op
    return a


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

# ------------------------------------------------------------------ AdaptiveAvgPool-8, AdaptiveMaxPool-8

def _boxes(data: np.ndarray, out: list[int]):
    ins = data.shape[2:]
    for pos in itertools.product(*(range(o) for o in out)):
        box = tuple(slice(p * n // o, -(-(p + 1) * n // o)) for p, n, o in zip(pos, ins, out))
        yield pos, box


def ref_adaptive_avg(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, out = x[0], [int(v) for v in x[1]]
    res = np.zeros(data.shape[:2] + tuple(out))
    for pos, box in _boxes(data, out):
        res[(slice(None), slice(None), *pos)] = data[(slice(None), slice(None), *box)].astype(np.float64).mean(
            axis=tuple(range(2, data.ndim)))
    return [res.astype(data.dtype)]


def ref_adaptive_max(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, out = x[0], [int(v) for v in x[1]]
    ins = data.shape[2:]
    vals = np.zeros(data.shape[:2] + tuple(out), data.dtype)
    idx = np.zeros(data.shape[:2] + tuple(out), np.int64)
    for n, c in itertools.product(range(data.shape[0]), range(data.shape[1])):
        for pos, box in _boxes(data, out):
            best, at = None, 0
            for q in itertools.product(*(range(b.start, b.stop) for b in box)):
                v = data[(n, c, *q)]
                if best is None or v > best:
                    best, at = v, int(np.ravel_multi_index(q, ins))
            vals[(n, c, *pos)], idx[(n, c, *pos)] = best, at
    itype = np.int32 if attrs.get("index_element_type") == "i32" else np.int64
    return [vals, idx.astype(itype)]


def shape_of(*v: int, dtype: Any = np.int64) -> np.ndarray:
    return np.array(v, dtype)


rng = table_rng("AdaptiveAvgPool-8")  # each table its own generator
AAVG = OpTable("AdaptiveAvgPool", "opset8", reference=ref_adaptive_avg, tol=Tol(rtol=1e-5, atol=1e-6), cases=[
    Case("2d-down-uneven", [rand((2, 3, 7, 9)), shape_of(3, 4)], const=(1,)),
    Case("2d-global", [rand((1, 4, 5, 6)), shape_of(1, 1)], const=(1,)),
    Case("2d-up", [rand((1, 2, 3, 2)), shape_of(5, 4, dtype=np.int32)], const=(1,)),
    Case("1d", [rand((2, 3, 10)), shape_of(4)], const=(1,)),
    Case("3d", [rand((1, 2, 4, 5, 3)), shape_of(2, 3, 2)], const=(1,)),
    Case("f16", [rand((1, 2, 6, 6), np.float16), shape_of(4, 3)], const=(1,), ov="f16 sums differ in the last bit"),
    Case("f64", [rand((1, 2, 5, 5), np.float64), shape_of(2, 2)], const=(1,), ov="OpenVINO CPU computes f64 in f32"),
], errors=[
    ErrorCase("output-shape-count", [rand((1, 2, 5, 5)), shape_of(2, 2, 2)], const=(1,), code="incompatible-inputs"),
    ErrorCase("integer-data", [rand((1, 2, 5, 5), np.int32), shape_of(2, 2)], const=(1,), code="bad-input-type",
              ov=OV_TYPE_UNCHECKED),
])

I32 = {"index_element_type": "i32"}
rng = table_rng("AdaptiveMaxPool-8")  # each table its own generator
AMAX = OpTable("AdaptiveMaxPool", "opset8", reference=ref_adaptive_max, tol=Tol.EXACT, cases=[
    Case("2d-down-uneven", [rand((2, 3, 7, 9)), shape_of(3, 4)], I32, const=(1,)),
    Case("2d-global-i64", [rand((1, 4, 5, 6)), shape_of(1, 1)], const=(1,),
         ov="OpenVINO CPU cannot compile an i64 index output (oneDNN has no i64)"),
    Case("2d-up", [rand((1, 2, 3, 2)), shape_of(5, 4)], I32, const=(1,)),
    Case("ties", [np.ones((1, 2, 4, 4), np.float32), shape_of(2, 3)], I32, const=(1,)),
    Case("1d", [rand((2, 3, 10)), shape_of(4)], I32, const=(1,)),
    Case("3d", [rand((1, 2, 4, 5, 3)), shape_of(2, 3, 2)], I32, const=(1,)),
], errors=[
    ErrorCase("output-shape-count", [rand((1, 2, 5, 5)), shape_of(2)], const=(1,), code="incompatible-inputs"),
    ErrorCase("bad-index-type", [rand((1, 2, 5, 5)), shape_of(2, 2)], {"index_element_type": "f32"}, const=(1,),
              code="bad-attribute"),
])

TABLES = [DECONV, GDECONV, AAVG, AMAX]



# ------------------------------------------------------------------ Interpolate-4, Interpolate-11

def _coord(x: int, n: int, m: int, scale: float, mode: str) -> float:
    xf, s = np.float32(x), np.float32(scale)
    if mode == "half_pixel":
        return float((xf + np.float32(0.5)) / s - np.float32(0.5))
    if mode == "pytorch_half_pixel":
        return float((xf + np.float32(0.5)) / s - np.float32(0.5)) if m > 1 else 0.0
    if mode == "asymmetric":
        return float(xf / s)
    if mode == "tf_half_pixel_for_nn":
        return float((xf + np.float32(0.5)) / s)
    return 0.0 if m == 1 else float(xf * np.float32(n - 1) / np.float32(m - 1))


def _round(c: float, mode: str, scale: float) -> int:
    import math as _m
    if mode == "round_prefer_floor":
        return _m.floor(c) if c - _m.floor(c) == 0.5 else round(c)
    if mode == "round_prefer_ceil":
        return _m.ceil(c) if c - _m.floor(c) == 0.5 else round(c)
    if mode == "floor":
        return _m.floor(c)
    if mode == "ceil":
        return _m.ceil(c)
    return _m.ceil(c) if scale < 1 else int(c)


def _taps(c: float, n: int, mode: str, a: float, k: float) -> list[tuple[int, float]]:
    import math as _m
    if mode == "linear_onnx":
        c = min(max(c, 0.0), n - 1.0)
        i0 = min(int(c), n - 1)
        i1 = min(i0 + 1, n - 1)
        if i0 == i1:
            return [(i0, 0.5), (i1, 0.5)]
        return [(i0, abs(c - i1)), (i1, abs(c - i0))]
    if mode == "cubic":
        f = _m.floor(c)
        t = c - f
        ws = [((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a, ((a + 2) * t - (a + 3)) * t * t + 1,
              ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1,
              ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a]
        return [(min(max(f + j - 1, 0), n - 1), w) for j, w in enumerate(ws)]
    taps = [(i, max(0.0, 1 - abs(k * (c - i)))) for i in range(n)]  # linear: triangle over the whole axis
    total = sum(w for _, w in taps)
    return [(i, w / total) for i, w in taps if w > 0]


def _pillow_weights(n: int, m: int, bicubic: bool, a: float) -> tuple[list[int], list[list[float]]]:
    """Pillow's Resample.c coefficients, output pixel by output pixel."""
    import math as _m

    def filt(v: float) -> float:
        v = abs(v)
        if not bicubic:
            return 1.0 - v if v < 1.0 else 0.0
        if v < 1.0:
            return ((a + 2.0) * v - (a + 3.0)) * v * v + 1
        return (((v - 5) * v + 8) * v - 4) * a if v < 2.0 else 0.0

    scale = n / m
    fscale = max(scale, 1.0)
    support = (2.0 if bicubic else 1.0) * fscale
    starts, weights = [], []
    for xx in range(m):
        center = (xx + 0.5) * scale
        lo = max(_m.trunc(center - support + 0.5), 0)
        hi = min(_m.trunc(center + support + 0.5), n)
        w = [filt((j - center + 0.5) / fscale) for j in range(lo, hi)]
        total = sum(w)
        starts.append(lo)
        weights.append([v / total for v in w] if total != 0 else w)
    return starts, weights


def ref_pillow(data: np.ndarray, axes: list[int], out: list[int], attrs: dict[str, Any]) -> np.ndarray:
    """Pillow's two passes: the second axis then the first, each rounded to the data type."""
    bicubic = attrs["mode"] == "bicubic_pillow"
    x = data
    for a in reversed(axes):
        n, m = x.shape[a], out[a]
        if n == m:
            continue
        starts, weights = _pillow_weights(n, m, bicubic, float(attrs.get("cube_coeff", -0.75)))
        src = np.moveaxis(x.astype(np.float64), a, -1)
        res = np.zeros(src.shape[:-1] + (m,))
        for o in range(m):
            for t, w in enumerate(weights[o]):
                res[..., o] += src[..., starts[o] + t] * w
        if data.dtype.kind in "iu":
            res = np.clip(np.trunc(res + np.where(res >= 0, 0.5, -0.5)), np.iinfo(data.dtype).min,
                          np.iinfo(data.dtype).max)
        x = np.moveaxis(res, -1, a).astype(data.dtype)
    return x


def ref_interp(x: list[np.ndarray], attrs: dict[str, Any], v11: bool = False) -> list[np.ndarray]:
    data = x[0]
    rank = data.ndim
    calc = attrs["shape_calculation_mode"]
    if v11:
        sizes = scales = x[1]
        axes = [int(a) % rank for a in x[2]] if len(x) > 2 else list(range(rank))
    else:
        sizes, scales = x[1], x[2]
        axes = [int(a) % rank for a in x[3]] if len(x) > 3 else list(range(rank))
    pb = attr_ints(attrs, "pads_begin", rank, 0)
    pe = attr_ints(attrs, "pads_end", rank, 0)
    xp = np.pad(data.astype(np.float64), list(zip(pb, pe)))
    out = list(xp.shape)
    sc = [1.0] * rank
    for i, a in enumerate(axes):
        if calc == "sizes":
            out[a] = int(sizes[i])
            sc[a] = float(np.float32(out[a]) / np.float32(xp.shape[a]))
        else:
            sc[a] = float(np.float32(scales[i]))
            out[a] = int(np.float32(xp.shape[a]) * np.float32(np.float32(scales[i]) + np.float32(1e-6)))
    mode, ctm = attrs["mode"], attrs.get("coordinate_transformation_mode", "half_pixel")
    if mode.endswith("_pillow"):
        return [ref_pillow(xp.astype(data.dtype), axes, out, attrs)]
    nm, a_coef = attrs.get("nearest_mode", "round_prefer_floor"), float(attrs.get("cube_coeff", -0.75))
    anti = attrs.get("antialias") in (True, "true")
    res = np.zeros(out)
    for pos in itertools.product(*(range(o) for o in out)):
        per_axis = []
        for d in range(rank):
            if d not in axes:
                per_axis.append([(pos[d], 1.0)])
                continue
            n = xp.shape[d]
            c = _coord(pos[d], n, out[d], sc[d], ctm)
            if mode == "nearest":
                per_axis.append([(min(max(_round(c, nm, sc[d]), 0), n - 1), 1.0)])
            else:
                k = sc[d] if anti and sc[d] < 1 else 1.0
                per_axis.append(_taps(c, n, mode, a_coef, k))
        total = 0.0
        for combo in itertools.product(*per_axis):
            w = float(np.prod([t[1] for t in combo]))
            total += w * xp[tuple(t[0] for t in combo)]
        res[pos] = total
    if data.dtype.kind in "iu":
        res = np.clip(np.rint(res), np.iinfo(data.dtype).min, np.iinfo(data.dtype).max)
    return [res.astype(data.dtype)]


def interp(mode: str, calc: str = "sizes", ctm: str = "half_pixel", nearest: str = "round_prefer_floor", **more: Any):
    return {"mode": mode, "shape_calculation_mode": calc, "coordinate_transformation_mode": ctm,
            "nearest_mode": nearest, **more}


def f32(*v: float) -> np.ndarray:
    return np.array(v, np.float32)


IMG = rand((1, 2, 4, 5))
NONE = np.array([1], np.int64)  # sizes unused in scales mode
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


# ------------------------------------------------------------------ Interpolate-1

def ref_interp1(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    """Interpolate-1 as the Interpolate-4 OpenVINO converts it to (ConvertInterpolate1ToInterpolate4)."""
    data, target = x[0], np.asarray(x[1]).reshape(-1)
    rank = data.ndim
    axes = sorted({int(a) for a in str(attrs["axes"]).split(",")})
    align = attrs.get("align_corners", True) in (True, "true", "1")
    mode = attrs["mode"]
    if mode == "linear":
        mode = "linear_onnx" if rank < 5 else "linear"
    pads = any(int(p) for key in ("pads_begin", "pads_end") for p in str(attrs.get(key, "0")).split(","))
    if align:
        ctm = "align_corners"
    elif mode.startswith("linear") and not pads and not (rank == 4 and axes == [2, 3]):
        ctm = "half_pixel"
    else:
        ctm = "asymmetric"
    v4 = interp(mode, "sizes", ctm, "simple", antialias=attrs.get("antialias", False), cube_coeff=-0.75,
                pads_begin=attrs.get("pads_begin", ""), pads_end=attrs.get("pads_end", ""))
    return ref_interp([data, target[:len(axes)], np.array(axes)], v4, True)


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

TABLES += [INTERP4, INTERP11, INTERP11_PILLOW, INTERP1]
test_conformance = conformance(TABLES)
