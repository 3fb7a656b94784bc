"""Conformance tables of the transposed convolutions.  The reference scatters
every input element times the filters into the full result in float64 with a
plain loop over input positions, then cuts the output window, written from the
spec independently of the kernel."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, Tol, conformance

rng = np.random.default_rng(20261125)


def rand(shape: tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return rng.integers(-5, 5, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _ints(attrs: dict[str, Any], name: str, n: int, default: int) -> list[int]:
    v = attrs.get(name)
    if v is None or v == "" or v == ():
        return [default] * n
    return [int(x) for x in (v.split(",") if isinstance(v, str) else v)]


def ref_deconv(x: list[np.ndarray], attrs: dict[str, Any], grouped: bool = False) -> list[np.ndarray]:
    data, w = x[0], x[1]
    if not grouped:
        w = w[None]
    g, cg, og = w.shape[:3]
    kernel = list(w.shape[3:])
    n = len(kernel)
    s, d = _ints(attrs, "strides", n, 1), _ints(attrs, "dilations", n, 1)
    op = _ints(attrs, "output_padding", n, 0)
    ins = list(data.shape[2:])
    full_len = [(i - 1) * st + dl * (k - 1) + 1 for i, st, dl, k in zip(ins, s, d, kernel)]
    mode = attrs.get("auto_pad", "explicit")
    if len(x) > 2:
        out = [int(v) for v in x[2]]
        if mode in ("same_upper", "same_lower"):
            tot = [max(f - o + p, 0) for f, o, p in zip(full_len, out, op)]
            pb = [t - t // 2 if mode == "same_upper" else t // 2 for t in tot]
        else:
            pb = [0] * n if mode == "valid" else _ints(attrs, "pads_begin", n, 0)
    else:
        pb, pe = ([0] * n, [0] * n) if mode != "explicit" else (_ints(attrs, "pads_begin", n, 0),
                                                                _ints(attrs, "pads_end", n, 0))
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
              code="bad-shape"),
])

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
    ErrorCase("integer-data", [rand((1, 2, 5, 5), np.int32), shape_of(2, 2)], const=(1,), code="bad-input-type"),
])

I32 = {"index_element_type": "i32"}
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
test_conformance = conformance(TABLES)
