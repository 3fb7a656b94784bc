"""ISTFT-16: the inverse short-time Fourier transform, as OpenVINO computes it
(and PyTorch's istft): each frame's frame_size//2+1 bins back to frame_size
samples (inverse real DFT), multiplied by the window (centred in frame_size,
zero-padded), the frames added at frame_step intervals, and the sum divided by
the sum of the squared window over the frames that cover each sample (0 where
that sum is 0); ``normalized`` multiplies by sqrt(frame_size).  ``center``
drops frame_size//2 samples at each end; signal_length (when > 0) cuts or pads
with zeros.  np.fft in f64, rounded once."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base.shapes import DYNAMIC, Dim, PartialShape
from ..framework.base import INDEX, REAL, Attr, In, Inference, Op, TensorInfo, op_error, same_as
from ..framework.helpers import const_int
from ..framework.registry import register

DATA, WINDOW, SIZE, STEP, LENGTH = range(5)


@register
class ISTFT16(Op):
    type, version, family = "ISTFT", 16, "signal"
    summary = "inverse short-time Fourier transform [batch?, bins, frames, 2] -> [batch?, samples]"
    inputs = (In("data", REAL, rank=(3, 4)), In("window", same_as("data"), rank=1),
              In("frame_size", INDEX, rank=0, value=True), In("frame_step", INDEX, rank=0, value=True),
              In("signal_length", INDEX, rank=0, optional=True, value=True))
    attributes = {"center": Attr("bool", False, doc="the frames were centred: drop frame_size//2 samples at each end"),
                  "normalized": Attr("bool", False, doc="the transform was scaled by 1/sqrt(frame_size)")}

    def infer(self, data: TensorInfo, window: TensorInfo, size: TensorInfo, step: TensorInfo,
              length: TensorInfo | None = None) -> Inference:
        fs = const_int(size, "frame_size", SIZE)
        st = const_int(step, "frame_step", STEP)
        if fs is not None and fs < 1:
            raise op_error(f"frame_size {fs} must be positive", "bad-value", SIZE)
        if st is not None and st < 1:
            raise op_error(f"frame_step {st} must be positive", "bad-value", STEP)
        dims = data.shape.dims
        if dims is not None:
            if not dims[-1].contains(2):
                raise op_error(f"data {data.shape} must end in a dim of 2 (real, imaginary)", "incompatible-inputs", DATA)
            if fs is not None and not dims[-3].contains(fs // 2 + 1):
                raise op_error(f"data {data.shape} must hold frame_size//2+1 = {fs // 2 + 1} bins in dim "
                               f"{len(dims) - 3}", "incompatible-inputs", DATA)
        w = window.shape.dims[0] if window.shape.dims is not None else None
        if w is not None and fs is not None and (w.lo > fs or (w.hi is not None and w.hi < 1)):
            raise op_error(f"the window has {w} values but must have 1 to frame_size ({fs})", "incompatible-inputs",
                           WINDOW)
        given = const_int(length, "signal_length", LENGTH) if length is not None else None
        samples: Dim = DYNAMIC
        if length is not None:
            if given is not None and given > 0:
                samples = Dim.of(given)
        elif dims is not None and fs is not None and st is not None:
            frames = dims[-2]
            lo = (max(frames.lo, 1) - 1) * st + fs
            hi = None if frames.hi is None else (max(frames.hi, 1) - 1) * st + fs
            if self.center:
                cut = 2 * (fs // 2)
                lo, hi = lo - cut, None if hi is None else hi - cut
            samples = Dim(lo, hi)
        if dims is None:
            return Inference([TensorInfo(PartialShape(None), data.etype)])
        out = PartialShape(((dims[0],) if len(dims) == 4 else ()) + (samples,))
        plan = (fs, st, given) if fs is not None and st is not None else None
        return Inference([TensorInfo(out, data.etype)], plan)

    def compute(self, plan: tuple[int, int, int | None], data: np.ndarray, window: np.ndarray, *rest: np.ndarray
                ) -> Sequence[np.ndarray]:
        fs, st, given = plan
        batched = data.ndim == 4
        x = (data if batched else data[None]).astype(np.float64)
        n, frames = x.shape[0], x.shape[2]
        full = (frames - 1) * st + fs
        final = given if given is not None and given > 0 else (full - 2 * (fs // 2) if self.center else full)
        spectra = x[..., 0] + 1j * x[..., 1]  # [n, bins, frames]
        signals = np.fft.irfft(spectra, n=fs, axis=1)  # [n, fs, frames]
        win = np.zeros(fs)  # the window centred in frame_size, the extra zero on the right
        start = (fs - window.shape[0]) // 2
        win[start:start + window.shape[0]] = window.astype(np.float64)
        total = np.zeros((n, full))
        wsum = np.zeros(full)
        for f in range(frames):
            total[:, f * st:f * st + fs] += signals[:, :, f] * win
            wsum[f * st:f * st + fs] += win * win
        scale = np.sqrt(fs) if self.normalized else 1.0
        with np.errstate(divide="ignore", invalid="ignore"):
            total = np.where(wsum != 0, total * scale / wsum, 0.0)
        margin = fs // 2 if self.center else 0
        out = np.zeros((n, final))
        keep = max(min(final, full - margin), 0)
        out[:, :keep] = total[:, margin:margin + keep]
        out = out.astype(data.dtype)
        return [out if batched else out[0]]
