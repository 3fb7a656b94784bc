"""Conformance tables of DFT-7, IDFT-7, RDFT-9 and IRDFT-9."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, conformance, table_rng
from conformance.signal.references import OV_TOL, TOL, ref_dft, ref_irdft, ref_rdft


def rand(shape: tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    return rng.standard_normal(shape).astype(dtype)


def i64(v: Any) -> np.ndarray:
    return np.array(v, np.int64)


# f64 sums and np.fft agree to ~1e-15 of the output's scale; f32 outputs round once
F64 = "OpenVINO refuses f64 Fourier transforms; the spec allows any floating-point type"


RDFT_SIGNAL = ("OpenVINO CPU fails on RDFT with a signal_size input (above the input size: 'not supported yet'; "
               "-1: 'cannot create std::vector larger than max_size()')")


rng = table_rng("DFT-7")  # each table its own generator
DFT = OpTable("DFT", "opset7", reference=ref_dft(False), tol=TOL, ov_tol=OV_TOL, cases=[
    Case("1d", [rand((8, 2)), i64([0])], const=(1,)),
    Case("2d-axes", [rand((2, 5, 6, 2)), i64([1, 2])], const=(1,)),
    Case("negative-axis", [rand((3, 4, 2)), i64([-1])], const=(1,)),
    Case("trim-and-pad", [rand((2, 5, 6, 2)), i64([1, 2]), i64([3, 8])], const=(1, 2)),
    Case("keep-size", [rand((4, 6, 2)), i64([0, 1]), i64([-1, 4])], const=(1, 2)),
    Case("all-axes-reordered", [rand((3, 4, 2)), i64([1, 0])], const=(1,)),
    Case("f16", [rand((6, 2), np.float16), i64([0])], const=(1,)),
    Case("axes-param", [rand((4, 5, 2)), i64([1])]),
], errors=[
    ErrorCase("last-dim-not-2", [rand((4, 3)), i64([0])], const=(1,), code="bad-shape"),
    ErrorCase("axis-out-of-range", [rand((4, 3, 2)), i64([2])], const=(1,), code="axis-out-of-range"),
    ErrorCase("repeated-axis", [rand((4, 3, 2)), i64([1, -1])], const=(1,), code="bad-value"),
    ErrorCase("sizes-differ", [rand((4, 3, 2)), i64([1]), i64([2, 3])], const=(1, 2), code="incompatible-inputs"),
    ErrorCase("rank-1", [rand((2,)), i64([0])], const=(1,), code="bad-input-rank"),
    ErrorCase("integer-data", [np.zeros((4, 2), np.int32), i64([0])], const=(1,), code="bad-input-type"),
])


rng = table_rng("IDFT-7")  # each table its own generator
IDFT = OpTable("IDFT", "opset7", reference=ref_dft(True), tol=TOL, ov_tol=OV_TOL, cases=[
    Case("1d", [rand((8, 2)), i64([0])], const=(1,)),
    Case("2d-axes", [rand((2, 5, 6, 2)), i64([2, 1])], const=(1,)),
    Case("trim-and-pad", [rand((2, 5, 6, 2)), i64([0, 2]), i64([3, 4])], const=(1, 2)),
    Case("f64", [rand((3, 4, 2), np.float64), i64([0, 1])], const=(1,), ov=F64, ov_shapes=F64),
], errors=[
    ErrorCase("last-dim-not-2", [rand((4, 1)), i64([0])], const=(1,), code="bad-shape"),
])


rng = table_rng("RDFT-9")  # each table its own generator
RDFT = OpTable("RDFT", "opset9", reference=ref_rdft, tol=TOL, ov_tol=OV_TOL, cases=[
    Case("1d", [rand((8,)), i64([0])], const=(1,)),
    Case("odd", [rand((3, 7)), i64([1])], const=(1,)),
    Case("2d-axes", [rand((2, 5, 6)), i64([1, 2])], const=(1,)),
    Case("last-listed-axis-halved", [rand((2, 5, 6)), i64([2, 1])], const=(1,)),
    Case("signal-size", [rand((2, 5, 6)), i64([1]), i64([7])], const=(1, 2), ov=RDFT_SIGNAL),
    Case("negative", [rand((4, 6)), i64([-1]), i64([-1])], const=(1, 2), ov=RDFT_SIGNAL),
], errors=[
    ErrorCase("scalar", [np.array(1.0, np.float32), i64([0])], const=(1,), code="bad-input-rank"),
    ErrorCase("axis-out-of-range", [rand((2, 5, 6)), i64([3])], const=(1,), code="axis-out-of-range"),
])


rng = table_rng("IRDFT-9")  # each table its own generator
IRDFT = OpTable("IRDFT", "opset9", reference=ref_irdft, tol=TOL, ov_tol=OV_TOL, cases=[
    Case("1d", [rand((5, 2)), i64([0])], const=(1,)),
    Case("2d-axes", [rand((2, 5, 6, 2)), i64([1, 2])], const=(1,)),
    Case("last-listed-axis", [rand((2, 5, 6, 2)), i64([2, 1])], const=(1,)),
    Case("odd-signal", [rand((3, 4, 2)), i64([1]), i64([7])], const=(1, 2)),
    Case("trim", [rand((3, 6, 2)), i64([1]), i64([4])], const=(1, 2)),
], errors=[
    ErrorCase("last-dim-not-2", [rand((4, 3)), i64([0])], const=(1,), code="bad-shape"),
])

TABLES = [DFT, IDFT, RDFT, IRDFT]
test_conformance = conformance(TABLES)
