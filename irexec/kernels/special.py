"""Special functions NumPy lacks, vectorised in float64.

``erf``: W. J. Cody's rational Chebyshev approximations (Math. Comp. 1969),
three intervals of |x|; relative error about 1e-16 over the whole line, so
rounding the f64 result to f32, f16 or bf16 is within an ulp of the exact
value.

``normal_tail``: the normal distribution's tail Phi(-|x|) for data narrower
than f64 (a Gelu-erf needs nothing more), in under half of ``erf``'s NumPy calls,
and ``erf_narrow`` from it.
"""

from __future__ import annotations

import numpy as np


def _wide(coefs: tuple[float, ...]) -> tuple[np.ndarray, ...]:
    """Coefficients as 0-d f64 arrays: the same values, and a ufunc of an f64 array
    and one skips the conversion of a Python float that each of ``_horner``'s steps
    would pay again (a sixth of a small tensor's time)."""
    return tuple(np.array(c, np.float64) for c in coefs)


# erf on |x| <= 0.46875: x * P(x^2) / Q(x^2)
_A = _wide((3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02, 3.20937758913846947e03,
            1.85777706184603153e-1))
_B = _wide((2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03, 2.84423683343917062e03))
# erfc on 0.46875 < |x| <= 4: exp(-x^2) * P(x) / Q(x)
_C = _wide((5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01, 2.98635138197400131e02,
            8.81952221241769090e02, 1.71204761263407058e03, 2.05107837782607147e03, 1.23033935479799725e03,
            2.15311535474403846e-8))
_D = _wide((1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02, 1.62138957456669019e03,
            3.29079923573345963e03, 4.36261909014324716e03, 3.43936767414372164e03, 1.23033935480374942e03))
# erfc on |x| > 4: exp(-x^2) / |x| * (1/sqrt(pi) - P(1/x^2) / Q(1/x^2) / x^2)
_P = _wide((3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1, 1.60837851487422766e-2,
            6.58749161529837803e-4, 1.63153871373020978e-2))
_Q = _wide((2.56852019228982242e00, 1.87295284992346047e00, 5.27905102951428412e-1, 6.05183413124413191e-2,
            2.33520497626869185e-3))
_SQRPI = 0.56418958354775628695  # 1/sqrt(pi)
_THRESH = 0.46875
# |x| at or above which erf(x) rounds to +-1 in f64
_ONE = 6.0


_SPLIT = 134217729.0  # 2**27 + 1: Veltkamp's splitter of an f64 into two 26-bit halves


def _exp_minus_square(y: np.ndarray, scale: float = 1.0) -> np.ndarray:
    """exp(-scale*y*y) (``scale`` a power of 2) without the rounding error of
    y*y: y*y = hi + lo exactly (Dekker's product), and exp(-hi - lo) =
    exp(-hi) * (1 - lo) as |lo| <= 2**-48 for the y given here."""
    hi = y * y
    c = y * _SPLIT
    yh = c - (c - y)
    yl = y - yh
    lo = yh * yh  # lo = ((yh*yh - hi) + 2*yh*yl) + yl*yl, built in place
    lo -= hi
    c = np.multiply(yh, yl, out=c)
    c += c
    lo += c
    yl *= yl
    lo += yl
    if scale != 1.0:  # exact: a power of 2
        hi *= scale
        lo *= scale
    np.negative(hi, out=hi)
    np.exp(hi, out=hi)
    np.subtract(1.0, lo, out=lo)
    hi *= lo
    return hi


def _horner(z: np.ndarray, coefs: tuple[np.ndarray, ...], first: np.ndarray | None) -> np.ndarray:
    """first * z**n + coefs[0] * z**(n-1) + ... + coefs[-1], in place on one
    buffer (first None: a leading coefficient of 1); ``z`` f64, the coefficients
    ``_wide``."""
    acc = np.multiply(z, first) if first is not None else z.copy()
    for c in coefs[:-1]:
        acc += c
        acc *= z
    acc += coefs[-1]
    return acc


def _erf_small(x: np.ndarray) -> np.ndarray:
    z = x * x
    num = _horner(z, _A[:4], _A[4])
    den = _horner(z, _B, None)
    num /= den
    num *= x
    return num


def _erfc_mid_ratio(y: np.ndarray) -> np.ndarray:
    """erfc(y) / exp(-y*y) for 0.46875 < y <= 4."""
    num = _horner(y, _C[:8], _C[8])
    den = _horner(y, _D, None)
    num /= den
    return num


def _erfc_large_ratio(y: np.ndarray) -> np.ndarray:
    """erfc(y) / exp(-y*y) for y > 4."""
    z = 1.0 / (y * y)
    num = _horner(z, _P[:5], _P[5])
    den = _horner(z, _Q, None)
    num /= den
    num *= z
    np.subtract(_SQRPI, num, out=num)
    num /= y
    return num


def _erfc_mid(y: np.ndarray) -> np.ndarray:
    num = _erfc_mid_ratio(y)
    num *= _exp_minus_square(y)
    return num


def _erfc_large(y: np.ndarray) -> np.ndarray:
    num = _erfc_large_ratio(y)
    num *= _exp_minus_square(y)
    return num


# |x| beyond which Phi(-|x|) = exp(-x*x/2) * ... is 0 in f64 (exp(-800)
# underflows): clipping there keeps Dekker's product of |x| finite.
_TAIL_CLIP = 40.0


def normal_tail_f64(x: np.ndarray) -> np.ndarray:
    """Phi(-|x|) = erfc(|x| / sqrt(2)) / 2 of f64 data with |x| > 0.66 (where
    Cody's erfc forms hold), to a few ulp: exp(-x*x/2) comes from x itself
    (Dekker's product), as y = |x| / sqrt(2) is rounded and exp(-y*y) would be
    off by up to y*y * 2**-52 (700 ulp near the underflow); only the rational
    factor sees the rounded y, and it moves by about y's own error.  NaN
    gives NaN."""
    a = np.minimum(np.abs(x), _TAIL_CLIP)
    y = a * 0.7071067811865476
    r = np.empty_like(y)
    mid = y <= 4.0
    r[mid] = _erfc_mid_ratio(y[mid])
    far = ~mid  # y > 4, and NaN
    r[far] = _erfc_large_ratio(y[far])
    r *= _exp_minus_square(a, 0.5)
    r *= 0.5
    return r


# Elements per block: the dozen temporaries of a block stay in the cache.
_BLOCK = 1 << 13


def erf(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """erf of a float64 array (NaN stays NaN, +-inf gives +-1), into ``out``
    (which may be ``x``) when given."""
    x = np.asarray(x, np.float64)
    if out is None:
        out = np.empty_like(x)
    if x.size <= _BLOCK:
        _erf_block(x, out)
        return out
    flat = np.ascontiguousarray(x).reshape(-1)
    direct = out.flags.c_contiguous
    dest = out.reshape(-1) if direct else np.empty_like(flat)
    for i in range(0, flat.size, _BLOCK):
        _erf_block(flat[i:i + _BLOCK], dest[i:i + _BLOCK])
    if not direct:
        out[...] = dest.reshape(x.shape)
    return out


def _erf_block(x: np.ndarray, out: np.ndarray) -> None:
    """erf of one block; ``out`` may be ``x`` itself."""
    with np.errstate(all="ignore"):
        y = np.abs(x)
        top = y.max(initial=0.0)
        if top <= _THRESH:  # all small (a NaN fails the test)
            out[...] = _erf_small(x)
            return
        # Each interval's formula on its own elements, gathered by index (a
        # boolean-masked copy costs more than the formula); |x| > 4 goes
        # through the middle one clipped, then the rare large ones are redone.
        yf = y.reshape(-1)
        small = np.flatnonzero(yf <= _THRESH)
        if small.size:
            r = np.empty_like(yf)
            r[small] = _erf_small(yf[small])  # erf(|x|); the sign is put back below
            rest = np.flatnonzero(yf > _THRESH)
            m = _erfc_mid(np.minimum(yf[rest], 4.0))
            np.subtract(1.0, m, out=m)
            r[rest] = m
        else:
            r = _erfc_mid(np.minimum(yf, 4.0))
            np.subtract(1.0, r, out=r)
        if not top <= 4.0:  # or NaN
            large = np.flatnonzero((yf > 4.0) & (yf < _ONE))
            if large.size:
                r[large] = 1.0 - _erfc_large(yf[large])
            r[yf >= _ONE] = 1.0  # includes inf
            r[np.isnan(yf)] = np.nan
        np.copysign(r.reshape(y.shape), x, out=out)


# normal_tail: erfc(z) / 2 = exp(-z**2) * t * H(t), t = 1 / (1 + 0.3 z), z = |x| / sqrt(2).
# H: a degree-12 least-squares Chebyshev fit of exp(z**2) erfc(z) / (2 t) at
# 600 nodes over z in [0, 10.5], expanded in powers of t (highest first; the
# largest coefficient is 0.54, so Horner's rule loses nothing).  Relative
# error at most 2.2e-11 against math.erfc on a grid of 300,001 points.
# Beyond 10.5 the fit extrapolates smoothly (z = 1e30 gives erfc(z) within
# 1e-5), where exp(-z**2) < 1e-47 is far below what the callers round to.
_TAIL_H = _wide((-0.012471967760027632, 0.09535094966245113, -0.30054838650404886, 0.5068260303876833,
                 -0.5419764633321575, 0.4451690562781866, -0.19840262911591083, 0.1427467547159834,
                 0.03520448684411079, 0.07871425677050278, 0.08007260041270978, 0.08468909901650305,
                 0.08462621262452762))
_TAIL_A = 0.3 * 0.7071067811865476  # 0.3 / sqrt(2): t from |x| directly
_TAIL_STEPS = _wide((_TAIL_A, 1.0, -0.5))  # normal_tail's other constants, as the coefficients


def normal_tail(x: np.ndarray) -> np.ndarray:
    """Phi(-|x|) = erfc(|x| / sqrt(2)) / 2 of an f64 array holding values of
    at most 26 significant bits (f32, f16, bf16 widened), to 2**-35 relative
    (x*x is then exact, so exp(-x*x/2) carries libm's error alone).  NaN
    gives NaN, +-inf gives 0."""
    scale, one, minus_half = _TAIL_STEPS
    t = np.abs(x)
    t *= scale
    t += one
    np.divide(one, t, out=t)
    h = _horner(t, _TAIL_H[1:], _TAIL_H[0])
    h *= t
    q = np.multiply(x, x, out=t)
    q *= minus_half
    np.exp(q, out=q)
    h *= q
    return h


_SQRT2 = 1.4142135623730951
_TWO_OVER_SQRT_PI = 1.1283791670955126
# Below this |x| the series is used: there 1 - 2 * tail (2 * tail off by up
# to 2.2e-11) keeps 4e-10 of erf(x) >= 0.056 relative, and the series' first
# dropped term, x**6 / 42, is 4e-10 of it: both inside 2**-29.
_ERF_SERIES = 0.05


def erf_narrow(x: np.ndarray) -> np.ndarray:
    """erf of an f64 array holding f32, f16 or bf16 values, to 2**-29
    relative: 1 - 2 Phi(-sqrt(2) |x|) with its sign, and near 0 the series
    2/sqrt(pi) x (1 - x**2/3 + x**4/10).  sqrt(2) x is rounded, so the
    tail's exp(-y*y/2) is off by up to x*x * 2**-51 relative: 2**-47 for
    |x| <= 4, beyond which erf rounds to +-1 in f32 anyway."""
    y = np.multiply(x, _SQRT2)
    r = normal_tail(y)
    r *= -2.0
    r += 1.0
    np.copysign(r, x, out=r)
    small = np.abs(x) < _ERF_SERIES
    if small.any():
        xs = x[small]
        z = xs * xs
        s = z * 0.1
        s -= 1.0 / 3.0
        s *= z
        s += 1.0
        s *= xs
        s *= _TWO_OVER_SQRT_PI
        r[small] = s
    return r


def erfc_positive(y: np.ndarray) -> np.ndarray:
    """erfc of a float64 array of values >= 0.46875 (Cody's middle and tail
    formulas: full relative precision where 1 - erf would cancel)."""
    with np.errstate(all="ignore"):
        out = _erfc_mid(np.minimum(y, 4.0))
        large = y > 4.0
        if large.any():
            out[large] = _erfc_large(y[large])
    return out
