"""STFT-15: short-time Fourier transform of a batch of signals."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base.shapes import DYNAMIC, Dim, PartialShape
from ..framework.base import INDEX, REAL, Attr, In, Inference, Op, TensorInfo, op_error, same_as
from ..framework.helpers import const_ints
from ..framework.registry import register


@register
class STFT15(Op):
    """Frames of frame_size samples every frame_step samples, each multiplied
    by the window (zero-padded to frame_size, centred with the extra zero on
    the right, as OpenVINO's reference places it), then a real DFT of
    frame_size//2+1 bins.  np.fft in f64, one rounding."""

    type, version = "STFT", 15
    family = "signal"
    summary = "short-time Fourier transform of real signals [batch?, samples] -> [..., frames, bins, 2]"
    inputs = (In("signal", REAL, rank=(1, 2)), In("window", same_as("signal"), rank=1),
              In("frame_size", INDEX, rank=0, value=True), In("frame_step", INDEX, rank=0, value=True))
    attributes = {"transpose_frames": Attr("bool", required=True, doc="bins before frames in the output")}

    def infer(self, signal: TensorInfo, window: TensorInfo, size: TensorInfo, step: TensorInfo) -> Inference:
        s = signal.shape
        fs = const_ints(size, "frame_size", 2)
        st = const_ints(step, "frame_step", 3)
        if s.rank is None:
            return Inference([TensorInfo(PartialShape(None), signal.etype)])
        length = s[s.rank - 1]
        frames = bins = DYNAMIC
        plan = None
        if fs is not None and st is not None:
            f, k = fs[0], st[0]
            if f < 1 or (length.hi is not None and f > length.hi):
                raise op_error(f"frame_size {f} must be in [1, {length}] (the signal length)", "bad-value", 2)
            if k < 1:
                raise op_error(f"frame_step {k} must be positive", "bad-value", 3)
            w = window.shape[0] if window.shape.rank == 1 else None
            if w is not None and (w.hi is not None and w.hi < 1 or w.lo > f):
                raise op_error(f"the window has {w} values but must have 1 to frame_size ({f})", "incompatible-inputs", 1)
            frames = Dim(max(length.lo - f, 0) // k + 1, None if length.hi is None else (length.hi - f) // k + 1)
            bins = Dim(f // 2 + 1, f // 2 + 1)
            plan = (f, k)
        lead = s.dims[:-1] if s.dims else ()
        inner = (bins, frames) if self.transpose_frames else (frames, bins)
        return Inference([TensorInfo(PartialShape((*lead, *inner, Dim(2, 2))), signal.etype)], plan)

    def compute(self, plan: tuple[int, int], signal: np.ndarray, window: np.ndarray, *rest: np.ndarray
                ) -> Sequence[np.ndarray]:
        f, k = plan
        x = signal.astype(np.float64)
        win = np.zeros(f)
        start = (f - window.shape[0]) // 2
        win[start:start + window.shape[0]] = window.astype(np.float64)
        frames = np.lib.stride_tricks.sliding_window_view(x, f, axis=-1)[..., ::k, :]  # [..., frames, f]
        y = np.fft.rfft(frames * win, axis=-1)  # [..., frames, bins]
        if self.transpose_frames:
            y = np.swapaxes(y, -1, -2)
        out = np.stack([y.real, y.imag], axis=-1)
        return [np.ascontiguousarray(out.astype(signal.dtype))]
