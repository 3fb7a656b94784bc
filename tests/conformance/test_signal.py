"""Conformance tables of DFT-7, IDFT-7, RDFT-9 and IRDFT-9.  The reference
evaluates the transform's defining sums in float64 (one axis at a time, with
explicit trimming, zero padding and Hermitian extension), independently of
np.fft."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, Tol, conformance, table_rng


def rand(shape: tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    return rng.standard_normal(shape).astype(dtype)


def i64(v: Any) -> np.ndarray:
    return np.array(v, np.int64)


def _resize(x: np.ndarray, axis: int, n: int) -> np.ndarray:
    have = x.shape[axis]
    if have >= n:
        return np.take(x, range(n), axis=axis)
    pad = [(0, 0)] * x.ndim
    pad[axis] = (0, n - have)
    return np.pad(x, pad)


def _dft_axis(x: np.ndarray, axis: int, inverse: bool) -> np.ndarray:
    n = x.shape[axis]
    k = np.arange(n)
    sign = 1 if inverse else -1
    w = np.exp(sign * 2j * np.pi * np.outer(k, k) / n)
    y = np.moveaxis(np.tensordot(w, np.moveaxis(x, axis, 0), axes=(1, 0)), 0, axis)
    return y / n if inverse else y


def _setup(x: list[np.ndarray], complex_in: bool) -> tuple[np.ndarray, list[int], list[int]]:
    data = x[0].astype(np.float64)
    if complex_in:
        data = data[..., 0] + 1j * data[..., 1]
    axes = [int(a) % data.ndim for a in x[1]]
    sizes = [int(s) for s in x[2]] if len(x) > 2 else [-1] * len(axes)
    return data, axes, sizes


def _pack(y: np.ndarray, dtype: np.dtype) -> list[np.ndarray]:
    return [np.stack([y.real, y.imag], -1).astype(dtype)]


def ref_dft(inverse: bool):
    def ref(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
        data, axes, sizes = _setup(x, True)
        for a, s in zip(axes, sizes):
            data = _resize(data, a, data.shape[a] if s == -1 else s)
            data = _dft_axis(data, a, inverse) if data.shape[a] else data
        return _pack(data, x[0].dtype)
    return ref


def ref_rdft(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, axes, sizes = _setup(x, False)
    for a, s in zip(axes, sizes):
        data = _dft_axis(_resize(data, a, data.shape[a] if s == -1 else s), a, False)
    last = axes[-1]
    data = np.take(data, range(data.shape[last] // 2 + 1), axis=last)
    return _pack(data, x[0].dtype)


def ref_irdft(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, axes, sizes = _setup(x, True)
    last = axes[-1]
    for a, s in zip(axes[:-1], sizes[:-1]):
        data = _dft_axis(_resize(data, a, data.shape[a] if s == -1 else s), a, True)
    n = sizes[-1] if sizes[-1] != -1 else 2 * (data.shape[last] - 1)
    half = _resize(data, last, n // 2 + 1)
    # Hermitian extension: X[n-k] = conj(X[k])
    full = np.concatenate([half, np.conj(np.flip(np.take(half, range(1, n - n // 2), axis=last), axis=last))], axis=last)
    y = _dft_axis(full, last, True).real
    return [y.astype(x[0].dtype)]


# f64 sums and np.fft agree to ~1e-15 of the output's scale; f32 outputs round once
F64 = "OpenVINO refuses f64 Fourier transforms; the spec allows any floating-point type"
TOL = Tol(rtol=1e-6, atol=1e-6)
RDFT_SIGNAL = ("OpenVINO CPU fails on RDFT with a signal_size input (above the input size: 'not supported yet'; "
               "-1: 'cannot create std::vector larger than max_size()')")
OV_TOL = Tol(rtol=1e-4, atol=1e-4)  # OpenVINO CPU transforms in f32

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



def ref_stft(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    signal, window = x[0].astype(np.float64), x[1].astype(np.float64)
    f, k = int(x[2]), int(x[3])
    win = np.zeros(f)
    left = (f - len(window)) // 2
    win[left:left + len(window)] = window
    batch = signal.reshape(-1, signal.shape[-1])
    n = (batch.shape[1] - f) // k + 1
    out = np.zeros((batch.shape[0], n, f // 2 + 1), complex)
    for b in range(batch.shape[0]):
        for t in range(n):
            out[b, t] = _dft_axis(batch[b, t * k:t * k + f] * win + 0j, 0, False)[: f // 2 + 1]
    if attrs["transpose_frames"]:
        out = out.transpose(0, 2, 1)
    out = out.reshape(signal.shape[:-1] + out.shape[1:])
    return _pack(out, x[0].dtype)


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

TABLES = [DFT, IDFT, RDFT, IRDFT, STFT]
test_conformance = conformance(TABLES)
