"""Conformance table of STFT-15."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, conformance, table_rng
from conformance.signal.references import OV_TOL, TOL, ref_stft


def rand(shape: tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    return rng.standard_normal(shape).astype(dtype)


def ints(v: int) -> np.ndarray:
    return np.array(v, np.int64)


rng = table_rng("STFT-15")  # each table its own generator
STFT = OpTable("STFT", "opset15", reference=ref_stft, tol=TOL, ov_tol=OV_TOL, cases=[
    Case("batch", [rand((2, 48)), rand((16,)), ints(16), ints(4)], attrs={"transpose_frames": False}, const=(2, 3)),
    Case("transposed", [rand((2, 48)), rand((16,)), ints(16), ints(4)], attrs={"transpose_frames": True}, const=(2, 3)),
    Case("1d-short-window", [rand((40,)), rand((9,)), ints(16), ints(5)], attrs={"transpose_frames": False},
         const=(2, 3)),
    Case("odd-frame-last-partial", [rand((3, 30)), rand((7,)), np.array(7, np.int32), np.array(3, np.int32)],
         attrs={"transpose_frames": True}, const=(2, 3)),
    Case("one-frame", [rand((1, 8)), rand((8,)), ints(8), ints(100)], attrs={"transpose_frames": False}, const=(2, 3)),
    Case("sizes-param", [rand((2, 20)), rand((4,)), ints(4), ints(2)], attrs={"transpose_frames": False}),
], errors=[
    ErrorCase("frame-longer-than-signal", [rand((2, 10)), rand((16,)), ints(16), ints(4)],
              attrs={"transpose_frames": False}, const=(2, 3), code="bad-value"),
    ErrorCase("step-zero", [rand((2, 48)), rand((16,)), ints(16), ints(0)], attrs={"transpose_frames": False},
              const=(2, 3), code="bad-value"),
    ErrorCase("window-too-long", [rand((2, 48)), rand((17,)), ints(16), ints(4)], attrs={"transpose_frames": False},
              const=(2, 3), code="incompatible-inputs"),
    ErrorCase("signal-3d", [rand((2, 3, 48)), rand((16,)), ints(16), ints(4)], attrs={"transpose_frames": False},
              const=(2, 3), code="bad-input-rank"),
    ErrorCase("window-f16", [rand((2, 48)), rand((16,), np.float16), ints(16), ints(4)],
              attrs={"transpose_frames": False}, const=(2, 3), code="bad-input-type"),
])

TABLES = [STFT]
test_conformance = conformance(TABLES)
