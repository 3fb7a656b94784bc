"""Conformance table of GridSample-9.  The reference reads pixels one output
point at a time with plain Python, in float64."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, Tol, conformance, table_rng
from conformance.image.references import ref_grid_sample


def inputs(n: int = 2, c: int = 3, h: int = 5, w: int = 6, ho: int = 4, wo: int = 3, spread: float = 1.3,
           dtype: Any = np.float32) -> list[np.ndarray]:
    data = (rng.standard_normal((n, c, h, w)) * 4).astype(dtype) if np.dtype(dtype).kind == "f" else \
        rng.integers(-50, 50, (n, c, h, w)).astype(dtype)
    grid = rng.uniform(-spread, spread, (n, ho, wo, 2)).astype(np.float32)
    return [data, grid]


def grid_attrs(mode: str, pad: str, align: bool = False) -> dict[str, Any]:
    return {"mode": mode, "padding_mode": pad, "align_corners": align}


rng = table_rng("GridSample-9")  # each table its own generator
GRID_SAMPLE = OpTable("GridSample", "opset9", reference=ref_grid_sample, tol=Tol(rtol=1e-6, atol=1e-6),
                      ov_tol=Tol(rtol=1e-4, atol=1e-4), cases=[
    Case("bilinear-zeros", inputs(), attrs=grid_attrs("bilinear", "zeros")),
    Case("bilinear-zeros-align", inputs(), attrs=grid_attrs("bilinear", "zeros", True)),
    Case("bilinear-border", inputs(), attrs=grid_attrs("bilinear", "border")),
    Case("bilinear-reflection", inputs(spread=2.5), attrs=grid_attrs("bilinear", "reflection")),
    Case("bilinear-reflection-align", inputs(spread=2.5), attrs=grid_attrs("bilinear", "reflection", True)),
    Case("nearest-zeros", inputs(), attrs=grid_attrs("nearest", "zeros")),
    Case("nearest-border-align", inputs(), attrs=grid_attrs("nearest", "border", True)),
    Case("nearest-reflection", inputs(spread=2.5), attrs=grid_attrs("nearest", "reflection")),
    Case("bicubic-zeros", inputs(), attrs=grid_attrs("bicubic", "zeros")),
    Case("bicubic-border-align", inputs(spread=0.9), attrs=grid_attrs("bicubic", "border", True)),
    Case("bicubic-reflection", inputs(spread=0.9), attrs=grid_attrs("bicubic", "reflection")),
    Case("i32-data", inputs(dtype=np.int32), attrs=grid_attrs("bilinear", "zeros")),
    Case("f16-grid", [inputs()[0], inputs()[1].astype(np.float16)], attrs=grid_attrs("bilinear", "border")),
    Case("single-pixel-reflection-align", inputs(h=1, w=1), attrs=grid_attrs("bilinear", "reflection", True)),
    Case("zero-size-grid", inputs(ho=0), attrs=grid_attrs("bilinear", "zeros")),
], errors=[
    ErrorCase("grid-last-3", [inputs()[0], np.zeros((2, 4, 3, 3), np.float32)], attrs=grid_attrs("bilinear", "zeros"),
              code="incompatible-inputs"),
    ErrorCase("batch", [inputs()[0], np.zeros((3, 4, 3, 2), np.float32)], attrs=grid_attrs("bilinear", "zeros"),
              code="incompatible-inputs"),
    ErrorCase("integer-grid", [inputs()[0], np.zeros((2, 4, 3, 2), np.int32)], attrs=grid_attrs("bilinear", "zeros"),
              code="bad-input-type"),
    ErrorCase("data-rank-3", [np.zeros((2, 3, 4), np.float32), np.zeros((2, 4, 3, 2), np.float32)],
              attrs=grid_attrs("bilinear", "zeros"), code="bad-input-rank"),
    ErrorCase("bad-mode", inputs(), attrs=grid_attrs("linear", "zeros"), code="bad-attribute"),
])

TABLES = [GRID_SAMPLE]
test_conformance = conformance(TABLES)
