"""Conformance table of GridSample-9.  The reference reads pixels one output
point at a time with plain Python, in float64."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, Tol, conformance, table_rng


def ref_grid_sample(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, grid = x
    n, c, h, w = data.shape
    ho, wo = grid.shape[1:3]
    align = attrs.get("align_corners", False)
    mode, pad = attrs.get("mode", "bilinear"), attrs.get("padding_mode", "zeros")
    fm = data.astype(np.float64)

    def pix(v: float, size: int) -> float:
        return (v + 1) * (size - 1) / 2 if align else ((v + 1) * size - 1) / 2

    def reflect(i: int, size: int) -> int:
        if align:
            p = 1 if size == 1 else 2 * (size - 1)
            i = abs(i) % p
            return p - i if i >= size else i
        i %= 2 * size
        return 2 * size - 1 - i if i >= size else i

    def read(b: int, yy: float, xx: float) -> np.ndarray:
        yi, xi = int(yy), int(xx)
        if pad == "zeros":
            if not (0 <= yi < h and 0 <= xi < w):
                return np.zeros(c)
        elif pad == "border":
            yi, xi = min(max(yi, 0), h - 1), min(max(xi, 0), w - 1)
        else:
            yi, xi = reflect(yi, h), reflect(xi, w)
        return fm[b, :, yi, xi]

    def cubic(r: float, a: float = -0.75) -> list[float]:
        def k(t: float) -> float:
            t = abs(t)
            if t <= 1:
                return (a + 2) * t ** 3 - (a + 3) * t ** 2 + 1
            if t < 2:
                return a * t ** 3 - 5 * a * t ** 2 + 8 * a * t - 4 * a
            return 0.0
        return [k(r + 1), k(r), k(1 - r), k(2 - r)]

    out = np.zeros((n, c, ho, wo))
    for b in range(n):
        for i in range(ho):
            for j in range(wo):
                xx, yy = pix(float(grid[b, i, j, 0]), w), pix(float(grid[b, i, j, 1]), h)
                if mode == "nearest":
                    v = read(b, round(yy), round(xx))  # Python rounds half to even
                elif mode == "bilinear":
                    y0, x0 = math.floor(yy), math.floor(xx)
                    dy, dx = yy - y0, xx - x0
                    v = ((1 - dy) * ((1 - dx) * read(b, y0, x0) + dx * read(b, y0, x0 + 1))
                         + dy * ((1 - dx) * read(b, y0 + 1, x0) + dx * read(b, y0 + 1, x0 + 1)))
                else:
                    y0, x0 = math.floor(yy), math.floor(xx)
                    cy, cx = cubic(yy - y0), cubic(xx - x0)
                    v = sum(cy[p] * sum(cx[q] * read(b, y0 + p - 1, x0 + q - 1) for q in range(4)) for p in range(4))
                out[b, :, i, j] = v
    if data.dtype.kind in "iu":
        out = np.trunc(out)
    return [out.astype(data.dtype)]


def inputs(n: int = 2, c: int = 3, h: int = 5, w: int = 6, ho: int = 4, wo: int = 3, spread: float = 1.3,
           dtype: Any = np.float32) -> list[np.ndarray]:
    data = (rng.standard_normal((n, c, h, w)) * 4).astype(dtype) if np.dtype(dtype).kind == "f" else \
        rng.integers(-50, 50, (n, c, h, w)).astype(dtype)
    grid = rng.uniform(-spread, spread, (n, ho, wo, 2)).astype(np.float32)
    return [data, grid]


def attrs(mode: str, pad: str, align: bool = False) -> dict[str, Any]:
    return {"mode": mode, "padding_mode": pad, "align_corners": align}


rng = table_rng("GridSample-9")  # each table its own generator
GRID_SAMPLE = OpTable("GridSample", "opset9", reference=ref_grid_sample, tol=Tol(rtol=1e-6, atol=1e-6),
                      ov_tol=Tol(rtol=1e-4, atol=1e-4), cases=[
    Case("bilinear-zeros", inputs(), attrs=attrs("bilinear", "zeros")),
    Case("bilinear-zeros-align", inputs(), attrs=attrs("bilinear", "zeros", True)),
    Case("bilinear-border", inputs(), attrs=attrs("bilinear", "border")),
    Case("bilinear-reflection", inputs(spread=2.5), attrs=attrs("bilinear", "reflection")),
    Case("bilinear-reflection-align", inputs(spread=2.5), attrs=attrs("bilinear", "reflection", True)),
    Case("nearest-zeros", inputs(), attrs=attrs("nearest", "zeros")),
    Case("nearest-border-align", inputs(), attrs=attrs("nearest", "border", True)),
    Case("nearest-reflection", inputs(spread=2.5), attrs=attrs("nearest", "reflection")),
    Case("bicubic-zeros", inputs(), attrs=attrs("bicubic", "zeros")),
    Case("bicubic-border-align", inputs(spread=0.9), attrs=attrs("bicubic", "border", True)),
    Case("bicubic-reflection", inputs(spread=0.9), attrs=attrs("bicubic", "reflection")),
    Case("i32-data", inputs(dtype=np.int32), attrs=attrs("bilinear", "zeros")),
    Case("f16-grid", [inputs()[0], inputs()[1].astype(np.float16)], attrs=attrs("bilinear", "border")),
    Case("single-pixel-reflection-align", inputs(h=1, w=1), attrs=attrs("bilinear", "reflection", True)),
    Case("zero-size-grid", inputs(ho=0), attrs=attrs("bilinear", "zeros")),
], errors=[
    ErrorCase("grid-last-3", [inputs()[0], np.zeros((2, 4, 3, 3), np.float32)], attrs=attrs("bilinear", "zeros"),
              code="incompatible-inputs"),
    ErrorCase("batch", [inputs()[0], np.zeros((3, 4, 3, 2), np.float32)], attrs=attrs("bilinear", "zeros"),
              code="incompatible-inputs"),
    ErrorCase("integer-grid", [inputs()[0], np.zeros((2, 4, 3, 2), np.int32)], attrs=attrs("bilinear", "zeros"),
              code="bad-input-type"),
    ErrorCase("data-rank-3", [np.zeros((2, 3, 4), np.float32), np.zeros((2, 4, 3, 2), np.float32)],
              attrs=attrs("bilinear", "zeros"), code="bad-input-rank"),
    ErrorCase("bad-mode", inputs(), attrs=attrs("linear", "zeros"), code="bad-attribute"),
])

TABLES = [GRID_SAMPLE]
test_conformance = conformance(TABLES)
