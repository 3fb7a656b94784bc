"""Conformance tables of DeformableConvolution-1 and -8.  The reference walks
every output element, tap and input channel as the spec describes: the tap's
position plus its offset, bilinear interpolation of the four neighbours (clamped
corners, or zeros outside with bilinear_interpolation_pad), times the mask."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from conformance.harness import OV_TYPE_UNCHECKED, Case, ErrorCase, OpTable, Tol, attr_ints, conformance, random_arrays, table_rng


def _bilinear(img: np.ndarray, y: float, x: float, pad: bool) -> float:
    h, w = img.shape
    if pad:
        if not (int(y) > -1 and int(y) < h and int(x) > -1 and int(x) < w):  # int() truncates, as C++
            return 0.0
        y1, x1 = math.floor(y), math.floor(x)
        y2, x2 = y1 + 1, x1 + 1
    else:
        if not (0 <= y < h and 0 <= x < w):
            return 0.0
        y1, x1 = max(math.floor(y), 0), max(math.floor(x), 0)
        y2, x2 = min(math.ceil(y), h - 1), min(math.ceil(x), w - 1)
    dy, dx = y - y1, x - x1

    def v(a: int, b: int) -> float:
        return float(img[a, b]) if 0 <= a < h and 0 <= b < w else 0.0

    return ((1 - dx) * (1 - dy) * v(y1, x1) + (1 - dx) * dy * v(y2, x1) + dx * (1 - dy) * v(y1, x2)
            + dx * dy * v(y2, x2))


def ref_deformable(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, offsets, filters = x[0], x[1], x[2]
    mask = x[3] if len(x) > 3 else None
    sh, sw = attr_ints(attrs, "strides", 2, 1)
    dh, dw = attr_ints(attrs, "dilations", 2, 1)
    ph, pw = attr_ints(attrs, "pads_begin", 2, 0)
    if attrs.get("auto_pad") in ("same_upper", "same_lower"):  # the total pad that keeps ceil(n / stride) outputs
        pads = []
        for n_, k_, s_, d_ in zip(data.shape[2:], filters.shape[2:], (sh, sw), (dh, dw)):
            total = max(0, (-(-n_ // s_) - 1) * s_ + d_ * (k_ - 1) + 1 - n_)
            pads.append(total // 2 if attrs["auto_pad"] == "same_upper" else total - total // 2)
        ph, pw = pads
    g, dg = int(attrs["group"]), int(attrs["deformable_group"])
    pad = attrs.get("bilinear_interpolation_pad") in (True, "true")
    n, c = data.shape[:2]
    c_out, cg, kh, kw = filters.shape
    ho, wo = offsets.shape[2:]
    out = np.zeros((n, c_out, ho, wo))
    per_dg, per_g = c // dg, c_out // g
    for b in range(n):
        for oc in range(c_out):
            grp = oc // per_g
            for oy in range(ho):
                for ox in range(wo):
                    total = 0.0
                    for ci in range(cg):
                        ch = grp * cg + ci
                        d = ch // per_dg
                        for i in range(kh):
                            for j in range(kw):
                                t = i * kw + j
                                # the position is formed in f32, as OpenVINO's reference
                                y = float(np.float32(oy * sh - ph + i * dh) + offsets[b, d * kh * kw * 2 + 2 * t, oy, ox])
                                xx = float(np.float32(ox * sw - pw + j * dw) + offsets[b, d * kh * kw * 2 + 2 * t + 1, oy, ox])
                                val = _bilinear(data[b, ch].astype(np.float64), y, xx, pad)
                                m = float(mask[b, d * kh * kw + t, oy, ox]) if mask is not None else 1.0
                                total += val * float(filters[oc, ci, i, j]) * m
                    out[b, oc, oy, ox] = total
    return [out.astype(data.dtype)]


def attrs(group: int = 1, deformable_group: int = 1, strides: str = "1,1", pads: str = "0,0", dilations: str = "1,1",
          **more: Any) -> dict[str, Any]:
    return {"strides": strides, "pads_begin": pads, "pads_end": pads, "dilations": dilations, "group": group,
            "deformable_group": deformable_group, **more}


def inputs(rand: Any, n: int, c: int, hw: int, c_out: int, k: int, out: int, group: int = 1, dg: int = 1,
           mask: bool = False, spread: float = 1.5) -> list[np.ndarray]:
    ins = [rand((n, c, hw, hw)), (rand((n, dg * k * k * 2, out, out)) / 10 * spread).astype(np.float32),
           rand((c_out, c // group, k, k)) / 10]
    if mask:
        ins.append((np.abs(rand((n, dg * k * k, out, out))) / 10).astype(np.float32))
    return ins


TOL = Tol(rtol=1e-5, atol=1e-4)
rand1 = random_arrays(table_rng("DeformableConvolution-1"))  # the table's own generator
DEFORM1 = OpTable("DeformableConvolution", "opset1", reference=ref_deformable, tol=TOL, ov_tol=Tol(rtol=1e-4, atol=1e-3),
                  cases=[
    Case("basic", inputs(rand1, 1, 2, 5, 3, 3, 3), attrs()),
    Case("padded-strided", inputs(rand1, 2, 2, 6, 2, 3, 3), attrs(strides="2,2", pads="1,1")),
    Case("groups", inputs(rand1, 1, 4, 5, 4, 3, 3, group=2, dg=2), attrs(group=2, deformable_group=2)),
    Case("dilated", inputs(rand1, 1, 2, 7, 2, 3, 3), attrs(dilations="2,2")),
    Case("far-offsets", inputs(rand1, 1, 1, 4, 1, 2, 3, spread=30), attrs()),
    Case("zero-offsets", [rand1((1, 2, 4, 4)), np.zeros((1, 8, 3, 3), np.float32), rand1((2, 2, 2, 2))], attrs()),
], errors=[
    ErrorCase("offset-channels", [rand1((1, 2, 5, 5)), rand1((1, 16, 3, 3)), rand1((3, 2, 3, 3))], attrs(),
              code="incompatible-inputs"),
    ErrorCase("offset-spatial", [rand1((1, 2, 5, 5)), rand1((1, 18, 4, 3)), rand1((3, 2, 3, 3))], attrs(),
              code="incompatible-inputs"),
    ErrorCase("batch", [rand1((2, 2, 5, 5)), rand1((1, 18, 3, 3)), rand1((3, 2, 3, 3))], attrs(),
              code="incompatible-inputs"),
    ErrorCase("rank-3", [rand1((1, 2, 5)), rand1((1, 6, 3)), rand1((3, 2, 3))], attrs(strides="1", pads="0",
                                                                                      dilations="1"),
              code="bad-input-rank"),
    ErrorCase("channels", [rand1((1, 3, 5, 5)), rand1((1, 18, 3, 3)), rand1((3, 2, 3, 3))], attrs(),
              code="incompatible-inputs"),
    ErrorCase("group-zero", [rand1((1, 2, 5, 5)), rand1((1, 18, 3, 3)), rand1((3, 2, 3, 3))], attrs(group=0),
              code="bad-attribute"),
])

rand8 = random_arrays(table_rng("DeformableConvolution-8"))  # the table's own generator
DEFORM8 = OpTable("DeformableConvolution", "opset8", reference=ref_deformable, tol=TOL, ov_tol=Tol(rtol=1e-4, atol=1e-3),
                  cases=[
    Case("no-mask", inputs(rand8, 1, 2, 5, 3, 3, 3), attrs()),
    Case("mask", inputs(rand8, 2, 2, 5, 2, 3, 3, mask=True), attrs()),
    Case("mask-groups", inputs(rand8, 1, 4, 6, 2, 3, 4, group=2, dg=2, mask=True), attrs(group=2, deformable_group=2)),
    Case("bilinear-pad", inputs(rand8, 1, 2, 5, 2, 3, 5, mask=True, spread=8), attrs(pads="1,1",
                                                                                    bilinear_interpolation_pad=True)),
    # (not the shape of bilinear-pad: OpenVINO CPU gives both the kernel of the first it compiles)
    Case("no-bilinear-pad", inputs(rand8, 1, 2, 6, 2, 3, 6, mask=True, spread=8), attrs(pads="1,1")),
    Case("same-upper", inputs(rand8, 1, 2, 7, 2, 3, 7, mask=True), attrs(auto_pad="same_upper")),
    Case("f16", [a.astype(np.float16) for a in inputs(rand8, 1, 2, 4, 2, 2, 3, mask=True)], attrs()),
], errors=[
    ErrorCase("mask-channels", [rand8((1, 2, 5, 5)), rand8((1, 18, 3, 3)), rand8((3, 2, 3, 3)), rand8((1, 8, 3, 3))],
              attrs(), code="incompatible-inputs"),
    ErrorCase("mask-spatial", [rand8((1, 2, 5, 5)), rand8((1, 18, 3, 3)), rand8((3, 2, 3, 3)), rand8((1, 9, 2, 3))],
              attrs(), code="incompatible-inputs"),
    ErrorCase("integer", [rand8((1, 2, 5, 5), np.int32), rand8((1, 18, 3, 3), np.int32), rand8((3, 2, 3, 3), np.int32)],
              attrs(), code="bad-input-type", ov=OV_TYPE_UNCHECKED),
])

test_conformance = conformance([DEFORM1, DEFORM8])
