"""Conformance table of FakeQuantize-1.  The reference follows the spec's
formula element by element in the element type (the reference's order of
operations), written with explicit broadcasting, independently of the kernel."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from conformance.harness import (
    OV_READS_DEFAULT,
    OV_TYPE_UNCHECKED,
    OV_VALUE_UNCHECKED,
    Case,
    ErrorCase,
    OpTable,
    Tol,
    conformance,
    table_rng,
)
from conformance.quantization.references import ref_fq


def rand(shape: tuple[int, ...], dtype: Any = np.float32, scale: float = 2.0) -> np.ndarray:
    return (rng.standard_normal(shape) * scale).astype(dtype)


def scalars(*v: float, dtype: Any = np.float32) -> list[np.ndarray]:
    return [np.array(x, dtype) for x in v]


def per_channel(c: int, dtype: Any = np.float32) -> list[np.ndarray]:
    lo = -np.abs(rand((1, c, 1, 1), dtype)) - dtype(0.5)
    hi = np.abs(rand((1, c, 1, 1), dtype)) + dtype(0.5)
    return [lo, hi, (lo * dtype(2)).astype(dtype), (hi * dtype(3)).astype(dtype)]


ties = np.array([-1.0, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0, 1.5, np.inf, -np.inf, np.nan], np.float32)


rng = table_rng("FakeQuantize-1")  # each table its own generator
FAKE_QUANTIZE = OpTable("FakeQuantize", "opset1", reference=ref_fq, tol=Tol.EXACT,
                        # OpenVINO CPU multiplies by precomputed scales: an element may round to a neighbouring level
                        ov_tol=Tol(rtol=1e-5, atol=0.05), cases=[
    Case("u8-style", [rand((2, 3, 4, 5)), *scalars(-2, 2, 0, 255)], attrs={"levels": 256}, const=(1, 2, 3, 4)),
    Case("i8-style", [rand((2, 3, 4, 5)), *scalars(-3, 3, -128, 127)], attrs={"levels": 256}, const=(1, 2, 3, 4)),
    Case("per-channel", [rand((2, 3, 4, 4)), *per_channel(3)], attrs={"levels": 255}, const=(1, 2, 3, 4)),
    Case("binarization", [rand((3, 8)), *scalars(0, 0, -1, 1)], attrs={"levels": 2}, const=(1, 2, 3, 4),
         ov="OpenVINO CPU gives NaN when input_low == input_high; the formula's first two cases decide every element"),
    Case("ties-and-specials", [ties, *scalars(-1, 1, -1, 1)], attrs={"levels": 5}, const=(1, 2, 3, 4),
         ov="OpenVINO CPU maps NaN to output_low; the formula keeps NaN"),
    Case("inverted-range", [rand((4, 6)), *scalars(2, -2, 10, -10)], attrs={"levels": 16}, const=(1, 2, 3, 4),
         ov="OpenVINO CPU assumes input_low < input_high (gives output_high almost everywhere here)"),
    Case("ranges-as-params", [rand((2, 4)), rand((1, 4)) - 3, rand((1, 4)) + 3, np.array([0.0], np.float32),
                              np.array([1.0], np.float32)], attrs={"levels": 11}),
    Case("f16", [rand((3, 5), np.float16), *scalars(-2, 2, -1, 1, dtype=np.float16)], attrs={"levels": 256},
         const=(1, 2, 3, 4)),
    Case("bf16", [rand((3, 5), ml_dtypes.bfloat16), *scalars(-2, 2, -1, 1, dtype=ml_dtypes.bfloat16)],
         attrs={"levels": 16}, const=(1, 2, 3, 4)),
    Case("pdpd", [rand((2, 3, 4)), rand((2, 3)) - 3, rand((2, 3)) + 3, *scalars(-1, 1)],
         attrs={"levels": 9, "auto_broadcast": "pdpd"}, const=(3, 4),
         ov="OpenVINO CPU maps pdpd-broadcast ranges onto other elements (observed wrong values)"),
    Case("zero-size", [rand((0, 3)), *scalars(-1, 1, -1, 1)], attrs={"levels": 4}, const=(1, 2, 3, 4)),
], errors=[
    ErrorCase("levels-1", [rand((2, 3)), *scalars(-1, 1, -1, 1)], attrs={"levels": 1}, code="bad-attribute",
              ov=OV_VALUE_UNCHECKED),
    ErrorCase("levels-missing", [rand((2, 3)), *scalars(-1, 1, -1, 1)], code="bad-attribute",
              ov=OV_READS_DEFAULT),
    ErrorCase("incompatible", [rand((2, 3)), rand((4,)), *scalars(1, -1, 1)], attrs={"levels": 4}, code="incompatible-inputs"),
    ErrorCase("enlarges-output", [rand((2, 1)), rand((2, 3)), *scalars(1, -1, 1)], attrs={"levels": 4},
              code="incompatible-inputs",
              ov="OpenVINO's shape inference keeps the data's shape when a range would widen it"),
    ErrorCase("integer-data", [np.arange(4, dtype=np.int32), *scalars(0, 3, 0, 3, dtype=np.int32)], attrs={"levels": 4},
              code="bad-input-type",
              ov=OV_TYPE_UNCHECKED),
    ErrorCase("types-differ", [rand((2, 3)), *scalars(-1, 1, -1), np.array(1, np.float16)], attrs={"levels": 4},
              code="bad-input-type",
              ov=OV_TYPE_UNCHECKED),
])

TABLES = [FAKE_QUANTIZE]
test_conformance = conformance(TABLES)
