"""Conformance tables of PriorBox-1, PriorBox-8 and PriorBoxClustered-1.  The
reference writes each box with Python loops, cell by cell, in f32 scalars, in
the order the spec lists them."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from conformance.harness import OV_READS_DEFAULT, Case, ErrorCase, OpTable, Tol, conformance

f32 = np.float32


def _floats(attrs: dict[str, Any], name: str) -> list[float]:
    v = attrs.get(name, ())
    return [float(x) for x in (v.split(",") if isinstance(v, str) else v) if str(x).strip() != ""]


def _variance_row(n: int, variance: list[float]) -> np.ndarray:
    v = variance or [0.1]
    return np.array([v[i % 4] if len(v) == 4 else v[0] for i in range(n)], np.float32)


def ref_prior_box(version: int):
    def ref(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
        h, w = (int(v) for v in x[0])
        ih, iw = (int(v) for v in x[1])
        flip, clip = attrs.get("flip", False), attrs.get("clip", False)
        scale_all = attrs.get("scale_all_sizes", True)
        min_first = attrs.get("min_max_aspect_ratios_order", True) if version == 8 else True
        mins, maxs = [f32(m) for m in _floats(attrs, "min_size")], _floats(attrs, "max_size")
        ratios = [f32(1)]
        for r in _floats(attrs, "aspect_ratio"):
            if all(abs(f32(r) - e) >= 1e-6 for e in ratios):
                ratios.append(f32(r))
                if flip:
                    ratios.append(f32(1) / f32(r))
        ratios = [r for r in ratios if abs(r - 1) >= 1e-6]
        fixed, dens, fixed_r = _floats(attrs, "fixed_size"), _floats(attrs, "density"), _floats(attrs, "fixed_ratio")
        step, offset = f32(attrs.get("step", 0.0)), f32(attrs["offset"])
        if not scale_all:
            step = f32(f32(ih) / f32(h)) if step == -1 else f32(step * f32(ih))
            mins = [f32(m * f32(ih)) for m in mins]
        boxes: list[f32] = []
        for r in range(h):
            for c in range(w):
                if step == 0:
                    cx, cy = f32(f32(c + 0.5) * f32(f32(iw) / f32(w))), f32(f32(r + 0.5) * f32(f32(ih) / f32(h)))
                else:
                    cx, cy = f32((offset + f32(c)) * step), f32((offset + f32(r)) * step)

                def box(x: f32, y: f32, bw: f32, bh: f32, cut: bool) -> None:
                    b = [(x - bw) / f32(iw) if False else (x - bw) * (f32(1) / f32(iw)), (y - bh) * (f32(1) / f32(ih)),
                         (x + bw) * (f32(1) / f32(iw)), (y + bh) * (f32(1) / f32(ih))]
                    if cut:
                        b = [max(b[0], f32(0)), max(b[1], f32(0)), min(b[2], f32(1)), min(b[3], f32(1))]
                    boxes.extend(f32(v) for v in b)

                def dense(size: float, d: int, bw: f32, bh: f32, cx: f32 = cx, cy: f32 = cy) -> None:
                    shift = int(f32(size) / f32(d))
                    for i in range(d):
                        for j in range(d):
                            box(cx - f32(int(size) // 2) + f32(shift / 2) + f32(j * shift),
                                cy - f32(int(size) // 2) + f32(shift / 2) + f32(i * shift), bw, bh, True)

                for s, size in enumerate(fixed):
                    d = int(dens[s])
                    rs = [f32(v) for v in fixed_r] if fixed_r else [f32(1), *ratios]
                    for ar in rs:
                        if not fixed_r and ar == 1:
                            half = f32(f32(int(size)) * f32(0.5))
                            dense(size, d, half, half)
                            continue
                        root = f32(math.sqrt(ar))
                        dense(size, d, f32(f32(size) * f32(0.5) * root), f32(f32(size) * f32(0.5) / root))
                for k, m in enumerate(mins):
                    box(cx, cy, f32(m * f32(0.5)), f32(m * f32(0.5)), False)
                    extra = []
                    if k < len(maxs):
                        side = f32(f32(math.sqrt(f32(m * f32(maxs[k])))) * f32(0.5))
                        extra.append((side, side))
                    rb = []
                    if scale_all or k == len(mins) - 1:
                        base = mins[k if scale_all else 0]
                        for ar in ratios:
                            root = f32(math.sqrt(ar))
                            rb.append((f32(base * f32(0.5) * root), f32(base * f32(0.5) / root)))
                    for bw, bh in (extra + rb if min_first else rb + extra):
                        box(cx, cy, bw, bh, False)
        row = np.array(boxes, np.float32)
        if clip:
            row = np.clip(row, 0, 1).astype(np.float32)
        return [np.stack([row, _variance_row(row.size, _floats(attrs, "variance"))])]
    return ref


def ref_clustered(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    h, w = (int(v) for v in x[0])
    ih, iw = (int(v) for v in x[1])
    widths, heights = _floats(attrs, "width"), _floats(attrs, "height")
    sw = f32(attrs.get("step_w", 0) or attrs.get("step", 0))
    sh = f32(attrs.get("step_h", 0) or attrs.get("step", 0))
    if sw == 0 and sh == 0:
        sw, sh = f32(f32(iw) / f32(w)), f32(f32(ih) / f32(h))
    off = f32(attrs["offset"])
    boxes = []
    for r in range(h):
        for c in range(w):
            cx, cy = f32((f32(c) + off) * sw), f32((f32(r) + off) * sh)
            for bw, bh in zip(widths, heights):
                b = [(cx - f32(bw) / f32(2)) / f32(iw), (cy - f32(bh) / f32(2)) / f32(ih),
                     (cx + f32(bw) / f32(2)) / f32(iw), (cy + f32(bh) / f32(2)) / f32(ih)]
                if attrs.get("clip", True):
                    b = [min(max(v, f32(0)), f32(1)) for v in b]
                boxes.extend(f32(v) for v in b)
    row = np.array(boxes, np.float32)
    return [np.stack([row, _variance_row(row.size, _floats(attrs, "variance"))])]


def sizes(h: int, w: int, ih: int = 300, iw: int = 300, dtype: Any = np.int64) -> list[np.ndarray]:
    return [np.array([h, w], dtype), np.array([ih, iw], dtype)]


SSD = {"min_size": [30.0], "max_size": [60.0], "aspect_ratio": [2.0, 3.0], "flip": True, "clip": False,
       "step": 16.0, "offset": 0.5, "variance": [0.1, 0.1, 0.2, 0.2]}


def prior_cases(version: int) -> list[Case]:
    order = [Case("ratios-after-max", sizes(3, 4), attrs={**SSD, "min_max_aspect_ratios_order": False}, const=(0,))] \
        if version == 8 else []
    return [
        Case("ssd", sizes(3, 4), attrs=SSD, const=(0,)),
        Case("ssd-all-const", sizes(2, 2), attrs=SSD, const=(0, 1)),
        Case("clip-one-variance", sizes(5, 3, 120, 90), attrs={**SSD, "clip": True, "variance": [0.2]}, const=(0,)),
        Case("no-step", sizes(3, 5, 100, 160, np.int32), attrs={"min_size": [20.0, 45.0], "aspect_ratio": [2.0],
                                                                "offset": 0.5}, const=(0,)),
        Case("no-variance-no-flip", sizes(2, 3), attrs={"min_size": [10.0], "aspect_ratio": [0.5, 2.0], "step": 8.0,
                                                        "offset": 0.25}, const=(0,)),
        Case("mxnet", sizes(4, 4, 256, 256), attrs={"min_size": [0.2, 0.35], "aspect_ratio": [2.0, 0.5], "step": -1.0,
                                                     "offset": 0.5, "scale_all_sizes": False}, const=(0,)),
        Case("density", sizes(2, 2, 64, 64), attrs={"fixed_size": [16.0], "density": [2.0], "aspect_ratio": [2.0],
                                                     "step": 32.0, "offset": 0.5, "clip": True}, const=(0,)),
        Case("density-fixed-ratio", sizes(2, 3, 96, 96), attrs={"fixed_size": [24.0], "density": [2.0],
                                                                 "fixed_ratio": [2.0], "step": 32.0,
                                                                 "offset": 0.5}, const=(0,)),
        *order,
    ]


def prior_errors() -> list[ErrorCase]:
    return [
        ErrorCase("float-sizes", [np.array([3.0, 4.0], np.float32), np.array([300.0, 300.0], np.float32)], attrs=SSD,
                  const=(0,), code="bad-input-type"),
        ErrorCase("rank-2", [np.array([[3, 4]], np.int64), np.array([300, 300], np.int64)], attrs=SSD, const=(0,),
                  code="bad-input-rank"),
        ErrorCase("three-sizes", [np.array([3, 4, 5], np.int64), np.array([300, 300], np.int64)], attrs=SSD,
                  const=(0,), code="bad-value"),
        ErrorCase("image-1-value", [np.array([3, 4], np.int64), np.array([300], np.int64)], attrs=SSD, const=(0,),
                  code="incompatible-inputs",
                  ov="OpenVINO's shape inference does not check this dim"),
        ErrorCase("variance-3", sizes(3, 4), attrs={**SSD, "variance": [0.1, 0.1, 0.2]}, const=(0,),
                  code="bad-attribute",
                  ov="OpenVINO's shape inference does not check this attribute's value"),
        ErrorCase("no-offset", sizes(3, 4), attrs={"min_size": [30.0]}, const=(0,), code="bad-attribute",
                  ov=OV_READS_DEFAULT),
        ErrorCase("density-missing", sizes(3, 4), attrs={"fixed_size": [16.0], "offset": 0.5}, const=(0,),
                  code="bad-attribute",
                  ov=OV_READS_DEFAULT),
    ]


PRIOR_BOX1 = OpTable("PriorBox", "opset1", reference=ref_prior_box(1), tol=Tol.EXACT, cases=prior_cases(1), errors=prior_errors())
PRIOR_BOX8 = OpTable("PriorBox", "opset8", reference=ref_prior_box(8), tol=Tol.EXACT, cases=prior_cases(8), errors=prior_errors())

CLUSTERED = {"width": [10.0, 24.5, 40.0], "height": [12.0, 30.0, 20.0], "offset": 0.5,
             "variance": [0.1, 0.1, 0.2, 0.2]}
PRIOR_BOX_CLUSTERED = OpTable("PriorBoxClustered", "opset1", reference=ref_clustered, tol=Tol.EXACT, cases=[
    Case("basic", sizes(3, 4, 200, 240), attrs=CLUSTERED, const=(0,)),
    Case("steps-no-clip", sizes(2, 5, 100, 300), attrs={**CLUSTERED, "step_w": 60.0, "step_h": 50.0, "clip": False},
         const=(0,)),
    Case("step-one-variance", sizes(4, 4, 64, 64, np.int32), attrs={**CLUSTERED, "step": 16.0, "variance": [0.5]},
         const=(0,)),
    Case("no-variance", sizes(2, 2), attrs={"width": [50.0], "height": [80.0], "offset": 0.0}, const=(0, 1)),
], errors=[
    ErrorCase("widths-heights", sizes(3, 4), attrs={**CLUSTERED, "height": [1.0]}, const=(0,), code="bad-attribute"),
    ErrorCase("float-sizes", [np.array([3.0, 4.0], np.float32), np.array([300.0, 300.0], np.float32)], attrs=CLUSTERED,
              const=(0,), code="bad-input-type"),
    ErrorCase("three-sizes", [np.array([3, 4, 5], np.int64), np.array([300, 300], np.int64)], attrs=CLUSTERED,
              const=(0,), code="bad-value"),
])

TABLES = [PRIOR_BOX1, PRIOR_BOX8, PRIOR_BOX_CLUSTERED]
test_conformance = conformance(TABLES)
