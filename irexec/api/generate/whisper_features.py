"""Whisper's log-mel features from a 16 kHz waveform, as the folder's
``preprocessor_config.json`` (a ``WhisperFeatureExtractor``) makes them: not in any IR, so
computed here the way transformers' extractor computes them.

Each waveform is cut or padded with zeros to ``n_samples``; a centred STFT (reflect padding
of ``n_fft // 2`` at each end, a periodic Hann window, ``hop_length``) gives the power
spectrum, whose last frame is dropped; a Slaney-style mel filter bank of ``feature_size``
filters from 0 to 8 kHz maps it to mel bins; then ``log10(max(mel, 1e-10))``, floored at
its maximum minus 8 and scaled as ``(x + 4) / 4``.  The arithmetic is float64 (NumPy's
FFT), rounded to float32 at the end, where transformers computes in float32: the features
agree to about 1e-6.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from ...base import limits
from ...base.errors import InputError
from ...system.json_file import json_field, read_json_object

BAD_AUDIO = "bad-audio"


@dataclass(frozen=True)
class FeatureExtractor:
    feature_size: int
    sampling_rate: int
    hop_length: int
    n_fft: int
    n_samples: int
    padding_value: float = 0.0

    def working_bytes(self, batch: int, samples: int) -> int:
        """Bytes the features of ``batch`` waveforms of ``samples`` take to compute, at most:
        the waveforms fitted and padded, the windows and their spectra, the filter bank and the
        mel arrays, each counted as if all lived at once (Python ints: exact for any settings)."""
        half, n_fft, mels = self.n_fft // 2, self.n_fft, self.feature_size
        frames = 1 + (self.n_samples + 2 * half - n_fft) // self.hop_length
        bins = n_fft // 2 + 1
        waves = batch * (samples + 2 * self.n_samples + 2 * half)
        windows = frames * n_fft + 2 * batch * frames * n_fft
        spectra = 4 * batch * frames * bins  # complex (two), magnitude, power
        return 8 * (waves + windows + spectra + 5 * bins * (mels + 2) + 5 * batch * frames * mels)

    def __call__(self, waveform: np.ndarray, max_memory: int | None = None, source: str | None = None) -> np.ndarray:
        """f32 [batch, feature_size, n_samples // hop_length] from [samples] or [batch, samples].
        Refused (``memory-limit``) before anything is allocated when the settings and the
        waveform's length would take more than ``max_memory`` (default: the default limit)."""
        shape = np.shape(waveform)
        batch, samples = (1, shape[0]) if len(shape) == 1 else (shape[0], shape[-1]) if shape else (1, 1)
        why = limits.over_limit(self.working_bytes(batch, samples), limits.resolve(max_memory))
        if why:
            raise InputError(f"the log-mel features of {batch} waveform{'s' if batch != 1 else ''} with n_fft={self.n_fft}, "
                             f"hop_length={self.hop_length}, n_samples={self.n_samples}, feature_size={self.feature_size} "
                             f"{why}", code="memory-limit", file=source)
        wave = np.atleast_2d(np.asarray(waveform, np.float64))
        fitted = np.full((wave.shape[0], self.n_samples), self.padding_value, np.float64)
        keep = min(self.n_samples, wave.shape[1])
        fitted[:, :keep] = wave[:, :keep]
        half = self.n_fft // 2
        padded = np.pad(fitted, ((0, 0), (half, half)), mode="reflect")
        frames = 1 + (padded.shape[1] - self.n_fft) // self.hop_length
        starts = np.arange(frames) * self.hop_length
        windows = padded[:, starts[:, None] + np.arange(self.n_fft)] * _hann(self.n_fft)  # [batch, frames, n_fft]
        power = np.abs(np.fft.rfft(windows, axis=-1)) ** 2  # [batch, frames, bins]
        mel = power[:, :-1] @ mel_filters(self.n_fft // 2 + 1, self.feature_size, self.sampling_rate)
        logs = np.log10(np.maximum(mel, 1e-10)).transpose(0, 2, 1)  # [batch, mel bins, frames]
        floor = logs.max(axis=(1, 2), keepdims=True) - 8.0
        return ((np.maximum(logs, floor) + 4.0) / 4.0).astype(np.float32)


def _hann(n: int) -> np.ndarray:
    """The periodic Hann window (as for spectral analysis: one period of n + 1 points, the last left out)."""
    return 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n) / n)


def _hz_to_mel(freq: np.ndarray) -> np.ndarray:
    """Slaney's scale: linear below 1 kHz, logarithmic above."""
    mels = 3.0 * freq / 200.0
    log_region = freq >= 1000.0
    mels[log_region] = 15.0 + np.log(freq[log_region] / 1000.0) * (27.0 / np.log(6.4))
    return mels


def _mel_to_hz(mels: np.ndarray) -> np.ndarray:
    freq = 200.0 * mels / 3.0
    log_region = mels >= 15.0
    freq[log_region] = 1000.0 * np.exp(np.log(6.4) / 27.0 * (mels[log_region] - 15.0))
    return freq


def mel_filters(bins: int, count: int, sampling_rate: int, top: float = 8000.0) -> np.ndarray:
    """[bins, count] triangular filters equally spaced on the mel scale from 0 Hz to ``top``,
    each scaled to unit area (Slaney's normalisation)."""
    edges = _mel_to_hz(np.linspace(_hz_to_mel(np.array([0.0]))[0], _hz_to_mel(np.array([top]))[0], count + 2))
    fft_freqs = np.linspace(0, sampling_rate // 2, bins)
    slopes = edges[None, :] - fft_freqs[:, None]
    widths = np.diff(edges)
    down, up = -slopes[:, :-2] / widths[:-1], slopes[:, 2:] / widths[1:]
    filters = np.maximum(0.0, np.minimum(down, up))
    return filters * (2.0 / (edges[2:count + 2] - edges[:count]))[None, :]


def read_extractor(folder: str, *, follow_symlinks: bool | None = None) -> FeatureExtractor:
    """The folder's preprocessor_config.json as a FeatureExtractor, or ``bad-audio`` saying what is missing;
    read under the file rules (``follow_symlinks``: default $IREXEC_FOLLOW_SYMLINKS)."""
    path = os.path.join(folder, "preprocessor_config.json")
    if not os.path.lexists(path):
        raise InputError(f"{folder} has no preprocessor_config.json: a waveform needs the feature extractor's settings "
                         "(give the features themselves instead)", code=BAD_AUDIO, file=path)
    config = read_json_object(path, follow_symlinks=follow_symlinks)
    if config.get("feature_extractor_type", "WhisperFeatureExtractor") != "WhisperFeatureExtractor":
        raise InputError(f"{path} does not describe a WhisperFeatureExtractor", code=BAD_AUDIO, file=path)
    values: dict[str, int] = {}
    for key in ("feature_size", "sampling_rate", "hop_length", "n_fft"):
        value = config.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or not 0 < value <= 1 << 20:
            raise InputError(f"{path}: {key} must be a positive integer, got {value!r}", code=BAD_AUDIO, file=path)
        values[key] = value
    n_samples = config.get("n_samples")
    if not isinstance(n_samples, int) or isinstance(n_samples, bool):
        chunk = config.get("chunk_length")
        n_samples = chunk * values["sampling_rate"] if isinstance(chunk, int) and not isinstance(chunk, bool) else None
    if n_samples is None or not values["n_fft"] <= n_samples <= 1 << 26:
        raise InputError(f"{path}: n_samples (or chunk_length) must give at least n_fft and at most 2^26 samples",
                         code=BAD_AUDIO, file=path)
    padding = json_field(config, "padding_value", "a number", path)
    if config.get("dither", 0.0) not in (0, 0.0):
        raise InputError(f"{path}: dither {config.get('dither')!r} adds noise; only dither 0 gives reproducible features",
                         code=BAD_AUDIO, file=path)
    return FeatureExtractor(values["feature_size"], values["sampling_rate"], values["hop_length"], values["n_fft"],
                            n_samples, 0.0 if padding is None else float(padding))  # type: ignore[arg-type]


def check_waveform(wave: np.ndarray, source: str) -> np.ndarray:
    """A real waveform [samples] or [batch, samples] of finite values, as float64."""
    if wave.dtype.kind not in "fiu" or wave.ndim not in (1, 2) or wave.shape[-1] == 0 or (wave.ndim == 2 and not wave.shape[0]):
        raise InputError(f"{source}: a waveform is real samples [samples] or [batch, samples], got "
                         f"{wave.dtype}{list(wave.shape)}", code=BAD_AUDIO, file=source)
    wide = wave.astype(np.float64)
    if not np.isfinite(wide).all():
        raise InputError(f"{source}: the waveform holds NaN or Inf", code=BAD_AUDIO, file=source)
    return np.atleast_2d(wide)


__all__ = ["BAD_AUDIO", "FeatureExtractor", "check_waveform", "mel_filters", "read_extractor"]
