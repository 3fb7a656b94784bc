"""Conformance table of FakeConvert-13.  The reference rounds through f16 to the
f8 grid with ml_dtypes' round-to-nearest-even, values past the largest finite
f8 saturated (NaN to -max), and each arithmetic step rounded to the data type."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, Tol, conformance, random_arrays, table_rng

F8 = {"f8e4m3": ml_dtypes.float8_e4m3fn, "f8e5m2": ml_dtypes.float8_e5m2}


def ref_fake_convert(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, scale = x[0], x[1]
    shift = x[2] if len(x) > 2 else np.zeros_like(scale)
    t = data.dtype
    f8 = F8[attrs.get("destination_type", "f8e4m3")]
    top = float(ml_dtypes.finfo(f8).max)
    with np.errstate(all="ignore"):
        y = ((data * scale).astype(t) - shift).astype(t)
        h = y.astype(np.float16).astype(np.float64)
        h = np.where(np.isnan(h), -top, np.clip(h, -top, top))
        r = h.astype(np.float16).astype(f8).astype(t)
        return [((r + shift).astype(t) / scale).astype(t)]


rand = random_arrays(table_rng("FakeConvert-13"))  # the table's own generator


def spread(shape: tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    """Magnitudes from 1e-6 to 1e5, across the f8 denormals, normals and saturation."""
    n = int(np.prod(shape))
    return (rand(shape, np.float64) / 10 * np.logspace(-6, 5, n).reshape(shape)).astype(dtype)


edges = np.array([np.inf, -np.inf, np.nan, 448, 449, 464, 465, 500, -1e5, 0, -0.0, 2.0 ** -10, 1.5 * 2.0 ** -10,
                  2.0 ** -9, 57344, 61440, 3e-5, 1.0], np.float32)
FAKE_CONVERT = OpTable("FakeConvert", "opset13", reference=ref_fake_convert, tol=Tol.EXACT, ov_tol=Tol(ulps=1), cases=[
    Case("e4m3-per-tensor", [spread((4, 50)), np.array(1, np.float32)], attrs={"destination_type": "f8e4m3"}),
    Case("e5m2-per-tensor", [spread((4, 50)), np.array([2.5], np.float32)], attrs={"destination_type": "f8e5m2"}),
    Case("e4m3-shift", [spread((3, 40)), np.array([0.37], np.float32), np.array([1.5], np.float32)],
         attrs={"destination_type": "f8e4m3"}),
    Case("e4m3-per-channel", [spread((2, 3, 4, 5)), np.array([0.5, 2, 8], np.float32).reshape(1, 3, 1, 1),
                              np.array([0, 1, -1], np.float32).reshape(1, 3, 1, 1)], attrs={"destination_type": "f8e4m3"}),
    Case("e5m2-rows", [spread((6, 7)), rand((6, 1)) ** 2 + 0.1, rand((6, 1))], attrs={"destination_type": "f8e5m2"}),
    Case("e4m3-edges", [edges, np.array(1, np.float32)], attrs={"destination_type": "f8e4m3"}),
    Case("e5m2-edges", [edges, np.array(1, np.float32)], attrs={"destination_type": "f8e5m2"}),
    Case("f16", [spread((3, 30), np.float16), np.array(4, np.float16)], attrs={"destination_type": "f8e4m3"}),
    Case("bf16", [spread((3, 30), ml_dtypes.bfloat16), np.array(0.25, ml_dtypes.bfloat16)],
         attrs={"destination_type": "f8e5m2"}),
    Case("default-type", [spread((2, 10)), np.array(3, np.float32)], const=(1,)),
], errors=[
    ErrorCase("f64", [rand((2, 3), np.float64), np.array(1.0)], attrs={"destination_type": "f8e4m3"},
              code="bad-input-type"),
    ErrorCase("mixed-types", [rand((2, 3)), np.array(1, np.float16)], attrs={"destination_type": "f8e4m3"},
              code="bad-input-type"),
    ErrorCase("scale-shape", [rand((2, 3)), rand((4,))], attrs={"destination_type": "f8e4m3"}, code="incompatible-inputs"),
    ErrorCase("shift-shape", [rand((2, 3)), rand((1, 3)), rand((3,))], attrs={"destination_type": "f8e4m3"},
              code="incompatible-inputs"),
    ErrorCase("bad-type", [rand((2, 3)), rand((1, 3))], attrs={"destination_type": "f16"}, code="bad-attribute"),
])

test_conformance = conformance([FAKE_CONVERT])
