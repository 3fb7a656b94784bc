"""NumPy references of the signal ops, written from the op specifications (each
takes a case's inputs and attributes and returns its outputs), and the helpers they share."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.harness import Tol


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


TOL = Tol(rtol=1e-6, atol=1e-6)


OV_TOL = Tol(rtol=1e-4, atol=1e-4)  # OpenVINO CPU transforms in f32


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
