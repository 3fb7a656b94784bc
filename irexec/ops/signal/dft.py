"""Discrete Fourier transforms: DFT-7, IDFT-7, RDFT-9, IRDFT-9 (STFT-15: stft.py).

Complex tensors are real tensors whose last dim (of size 2) holds the real
and imaginary parts.  Axes of a complex input count without that dim.
``signal_size`` trims or zero-pads each transformed axis (-1 keeps it); for
RDFT the last listed axis keeps n//2+1 outputs, for IRDFT it yields
signal_size (default 2*(n-1)) real values.  IDFT and IRDFT divide by the
product of the transformed lengths, as the spec says.

Values: np.fft (pocketfft) in complex128 and one rounding to the element
type, so an output is within a few ulps of the exact transform of the
rounded inputs, relative to the largest output magnitude.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base.shapes import DYNAMIC, Dim, PartialShape
from ..framework.base import INDEX, REAL, In, Inference, Op, TensorInfo, normalize_axis, op_error
from ..framework.helpers import const_ints
from ..framework.registry import register

DATA, AXES, SIGNAL = 0, 1, 2


class _Fourier(Op):
    family = "signal"
    inputs = (In("data", REAL), In("axes", INDEX, rank=1, value=True),
              In("signal_size", INDEX, rank=1, optional=True, value=True))
    complex_in = True
    complex_out = True
    kind = "dft"

    def infer(self, data: TensorInfo, axes: TensorInfo, signal: TensorInfo | None = None) -> Inference:
        shape = data.shape
        if signal is not None and axes.shape.rank == 1 and signal.shape.rank == 1 \
                and not axes.shape[0].compatible(signal.shape[0]):
            raise op_error(f"axes has {axes.shape[0]} elements but signal_size has {signal.shape[0]}; "
                           f"give one size per axis", "incompatible-inputs", SIGNAL)
        if shape.rank is None:
            return Inference([TensorInfo(PartialShape(None), data.etype)])
        dims = list(shape.dims or ())
        if self.complex_in:
            if len(dims) < 2:
                raise op_error(f"data must have rank 2 or more (the last dim holds real and imaginary parts), "
                               f"got shape {shape}", "bad-input-rank", DATA)
            if not dims[-1].contains(2):
                raise op_error(f"the last dim of the data must be 2 (real and imaginary parts), got shape {shape}",
                               "bad-shape", DATA)
            last = dims[-1]
            dims = dims[:-1]
        elif not dims:
            raise op_error("data must have rank 1 or more, got a scalar", "bad-input-rank", DATA)
        rank = len(dims)
        if self.kind in ("rdft", "irdft") and axes.shape.rank == 1 and axes.shape[0].hi == 0:
            # the last axis named is the one halved (or restored): there must be one
            raise op_error(f"axes is empty: {self.display()} needs at least one axis", "bad-value", AXES)
        values = const_ints(axes, "axes", AXES)
        sizes = const_ints(signal, "signal_size", SIGNAL) if signal is not None else None
        # OpenVINO passes a complex input's last dim through as it is declared
        tail = ([last] if self.complex_in else [Dim(2, 2)]) if self.complex_out else []
        if values is None:
            if axes.shape.rank == 1 and axes.shape[0].is_static and axes.shape[0].value > rank:
                raise op_error(f"axes has {axes.shape[0].value} elements but the data has only {rank} axes to "
                               f"transform", "axis-out-of-range", AXES)
            if signal is None and self.kind in ("dft", "idft"):
                return Inference([TensorInfo(PartialShape((*dims, *tail)), data.etype)])
            return Inference([TensorInfo(PartialShape((DYNAMIC,) * rank + tuple(tail)), data.etype)])
        norm = [normalize_axis(a, rank, "axis", "axis-out-of-range", AXES) for a in values]
        if len(set(norm)) != len(norm):
            raise op_error(f"axes {values} name an axis twice", "bad-value", AXES)
        if sizes is not None and len(sizes) != len(norm):
            raise op_error(f"axes has {len(norm)} elements but signal_size has {len(sizes)}; give one size per axis",
                           "incompatible-inputs", SIGNAL)
        if sizes is not None:
            for i, s in enumerate(sizes):
                if s < -1:
                    raise op_error(f"signal_size[{i}] = {s} must be -1 (keep the dim) or a size >= 0", "bad-value",
                                   SIGNAL)
        out = list(dims)
        lengths: list[Dim] = []  # the transformed length of each axis
        for i, a in enumerate(norm):
            s = sizes[i] if sizes is not None else -1
            if self.kind == "irdft" and i == len(norm) - 1:
                n = dims[a]
                length = Dim(s, s) if s != -1 else (Dim(2 * max(n.lo - 1, 0), None if n.hi is None else 2 * max(n.hi - 1, 0))
                                                     if not n.is_dynamic else DYNAMIC)
                out[a] = length
            else:
                length = Dim(s, s) if s != -1 else dims[a]
                out[a] = length
                if self.kind == "rdft" and i == len(norm) - 1:
                    out[a] = DYNAMIC if length.is_dynamic else Dim(length.lo // 2 + 1,
                                                                   None if length.hi is None else length.hi // 2 + 1)
            lengths.append(length)
        result = PartialShape((*out, *tail))
        plan = None
        if all(d.is_static for d in lengths):
            plan = (tuple(norm), tuple(d.value for d in lengths))
        return Inference([TensorInfo(result, data.etype)], plan)

    def compute(self, plan: tuple[tuple[int, ...], tuple[int, ...]], data: np.ndarray, *rest: np.ndarray
                ) -> Sequence[np.ndarray]:
        axes, lengths = plan
        x = data.astype(np.float64)
        if self.complex_in:
            x = x[..., 0] + 1j * x[..., 1]
        out_shape = self.output_shape(x.shape, axes, lengths)
        y: np.ndarray
        if 0 in out_shape or (axes and 0 in lengths):
            y = np.zeros(out_shape, np.complex128 if self.complex_out else np.float64)
        else:
            x = _fit(x, axes, lengths, half_last=self.kind == "irdft")
            if self.kind == "dft":
                y = np.fft.fftn(x, axes=axes) if axes else x
            elif self.kind == "idft":
                y = np.fft.ifftn(x, axes=axes) if axes else x
            elif self.kind == "rdft":
                y = np.fft.rfftn(x, axes=axes)
            else:
                y = np.fft.irfftn(x, s=lengths, axes=axes)
        if self.complex_out:
            y = np.stack([y.real, y.imag], axis=-1)
        return [np.ascontiguousarray(y.astype(data.dtype))]

    def output_shape(self, shape: tuple[int, ...], axes: tuple[int, ...], lengths: tuple[int, ...]) -> tuple[int, ...]:
        out = list(shape)
        for i, (a, n) in enumerate(zip(axes, lengths)):
            out[a] = n // 2 + 1 if self.kind == "rdft" and i == len(axes) - 1 else n
        return tuple(out)


def _fit(x: np.ndarray, axes: tuple[int, ...], lengths: tuple[int, ...], half_last: bool) -> np.ndarray:
    """Trim or zero-pad each axis to its length (the last to n//2+1 for a
    half spectrum)."""
    for i, (a, n) in enumerate(zip(axes, lengths)):
        if half_last and i == len(axes) - 1:
            n = n // 2 + 1
        have = x.shape[a]
        if have > n:
            x = np.take(x, np.arange(n), axis=a)
        elif have < n:
            pad = [(0, 0)] * x.ndim
            pad[a] = (0, n - have)
            x = np.pad(x, pad)
    return x


@register
class DFT7(_Fourier):
    type, version = "DFT", 7
    summary = "discrete Fourier transform along axes of complex data [..., 2]"
    kind = "dft"


@register
class IDFT7(_Fourier):
    type, version = "IDFT", 7
    summary = "inverse discrete Fourier transform (normalised) along axes of complex data [..., 2]"
    kind = "idft"


@register
class RDFT9(_Fourier):
    type, version = "RDFT", 9
    summary = "discrete Fourier transform of real data; the last axis keeps n//2+1 outputs"
    kind = "rdft"
    complex_in = False


@register
class IRDFT9(_Fourier):
    type, version = "IRDFT", 9
    summary = "inverse of RDFT: real output from a half spectrum [..., 2]"
    kind = "irdft"
    complex_out = False


# ------------------------------------------------------------------ STFT-15

