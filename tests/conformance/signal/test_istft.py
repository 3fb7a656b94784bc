"""Conformance table of ISTFT-16.  The reference evaluates each frame's inverse
real DFT as the explicit sum (1/N)·Σ_k c_k·X_k·e^{2πikn/N} over the Hermitian
spectrum, in f64, multiplies it by the window, then overlaps and divides by
the sums of the squared window."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, Tol, conformance, random_arrays, table_rng


def ref_istft(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, window, fs, st = x[0], x[1].astype(np.float64), int(x[2]), int(x[3])
    given = int(x[4]) if len(x) > 4 else 0
    center = attrs.get("center") in (True, "true")
    normalized = attrs.get("normalized") in (True, "true")
    d = (data if data.ndim == 4 else data[None]).astype(np.float64)
    n, bins, frames = d.shape[:3]
    full = (frames - 1) * st + fs
    final = given if given > 0 else (full - 2 * (fs // 2) if center else full)
    win = np.zeros(fs)
    win[(fs - len(window)) // 2:(fs - len(window)) // 2 + len(window)] = window
    k = np.arange(bins)
    weight = np.where((k == 0) | ((fs % 2 == 0) & (k == fs // 2)), 1.0, 2.0)  # each bin stands for itself and its mirror
    t = np.arange(fs)
    out = np.zeros((n, final))
    for b in range(n):
        total, wsum = np.zeros(full), np.zeros(full)
        for f in range(frames):
            re, im = d[b, :, f, 0], d[b, :, f, 1]
            ang = 2 * math.pi * np.outer(t, k) / fs
            frame = (np.cos(ang) * re - np.sin(ang) * im) @ weight / fs
            total[f * st:f * st + fs] += frame * win
            wsum[f * st:f * st + fs] += win * win
        total = np.array([v * (math.sqrt(fs) if normalized else 1) / w if w != 0 else 0.0 for v, w in zip(total, wsum)])
        margin = fs // 2 if center else 0
        keep = max(min(final, full - margin), 0)
        out[b, :keep] = total[margin:margin + keep]
    out = out.astype(data.dtype)
    return [out if data.ndim == 4 else out[0]]


rand = random_arrays(table_rng("ISTFT-16"))  # the table's own generator


def spectrum(lead: tuple[int, ...], fs: int, frames: int, dtype: Any = np.float32) -> np.ndarray:
    return rand((*lead, fs // 2 + 1, frames, 2), dtype)


def s(v: int) -> np.ndarray:
    return np.array(v, np.int64)


hann = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(8) / 8)).astype(np.float32)
ISTFT = OpTable("ISTFT", "opset16", reference=ref_istft, tol=Tol(rtol=1e-5, atol=1e-4), cases=[
    Case("plain", [spectrum((), 8, 4), np.ones(8, np.float32), s(8), s(2)], {"center": False, "normalized": False},
         const=(2, 3)),
    Case("batch-center-hann", [spectrum((2,), 8, 5), hann, s(8), s(2)], {"center": True, "normalized": False},
         const=(2, 3)),
    Case("normalized", [spectrum((2,), 8, 4), hann, s(8), s(4)], {"center": False, "normalized": True}, const=(2, 3)),
    Case("short-window", [spectrum((1,), 8, 3), np.ones(5, np.float32), s(8), s(3)], {"center": False, "normalized": False},
         const=(2, 3)),
    Case("odd-frame", [spectrum((1,), 7, 4), rand((7,)) ** 2 + 0.1, s(7), s(3)], {"center": True, "normalized": False},
         const=(2, 3)),
    Case("signal-length-cut", [spectrum((2,), 8, 4), hann, s(8), s(2), s(9)], {"center": False, "normalized": False},
         const=(2, 3, 4)),
    Case("signal-length-pad", [spectrum((1,), 8, 3), hann, s(8), s(2), s(20)], {"center": True, "normalized": False},
         const=(2, 3, 4)),
    Case("gaps", [spectrum((1,), 6, 3), np.ones(6, np.float32), s(6), s(8)], {"center": False, "normalized": False},
         const=(2, 3)),
    Case("f16", [spectrum((1,), 8, 3, np.float16), hann.astype(np.float16), s(8), s(2)],
         {"center": False, "normalized": False}, const=(2, 3)),
], errors=[
    ErrorCase("bins", [rand((2, 6, 4, 2)), hann, s(8), s(2)], {"center": False, "normalized": False}, const=(2, 3),
              code="incompatible-inputs"),
    ErrorCase("window-too-long", [spectrum((2,), 8, 4), rand((9,)), s(8), s(2)], {"center": False, "normalized": False},
              const=(2, 3), code="incompatible-inputs"),
    ErrorCase("step-1d", [spectrum((2,), 8, 4), hann, s(8), np.array([2])], {"center": False, "normalized": False},
              const=(2, 3), code="bad-input-rank"),
    ErrorCase("rank-2", [rand((5, 2)), hann, s(8), s(2)], {"center": False, "normalized": False}, const=(2, 3),
              code="bad-input-rank"),
    ErrorCase("window-type", [spectrum((2,), 8, 4), hann.astype(np.float16), s(8), s(2)],
              {"center": False, "normalized": False}, const=(2, 3), code="bad-input-type"),
])

test_conformance = conformance([ISTFT])
