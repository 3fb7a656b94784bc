"""The inverse error function in f64: M. Giles' single-precision approximation
("Approximating the erfinv function", GPU Computing Gems, 2011) as the start,
then Newton steps on erf (|y| <= 0.5) or on log erfc (above, where erf's
cancellation near ±1 would cost digits), with Cody's f64 erf/erfc."""

from __future__ import annotations

import numpy as np

from .special import erf, erfc_positive

_SMALL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
          -0.00417768164, 0.246640727, 1.50140941)
_LARGE = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
          0.00943887047, 1.00167406, 2.83297682)
_SLOPE = 2.0 / np.sqrt(np.pi)  # d/dx erf(x) = _SLOPE · exp(-x²)


def _poly(coefs: tuple[float, ...], t: np.ndarray) -> np.ndarray:
    p = np.full_like(t, coefs[0])
    for c in coefs[1:]:
        p = p * t + c
    return p


def erfinv(y: np.ndarray) -> np.ndarray:
    """erfinv of a float64 array: ±inf at ±1, NaN outside [-1, 1] and for NaN."""
    y = np.asarray(y, np.float64)
    a = np.abs(y)
    with np.errstate(all="ignore"):
        w = -np.log((1.0 - a) * (1.0 + a))
        x = np.where(w < 5.0, _poly(_SMALL, w - 2.5), _poly(_LARGE, np.sqrt(w) - 3.0)) * a
        tail = a > 0.5
        rest = 1.0 - a  # exact for a in [0.5, 1]
        for _ in range(8):  # quadratic once close; the far tail may start further off
            slope = _SLOPE * np.exp(-x * x)
            near = erf(np.where(tail, 0.0, x)) - a
            c = erfc_positive(np.where(tail, np.maximum(x, 0.46875), 1.0))
            far = (np.log(rest) - np.log(c)) * c  # Newton on log erfc: fast from far out in the tail
            step = np.where(tail, far, near) / slope
            x = np.where(slope > 0, x - step, x)
        x = np.where(a == 1.0, np.inf, x)
        x = np.where((a > 1.0) | np.isnan(a), np.nan, x)
    return np.copysign(x, y)
