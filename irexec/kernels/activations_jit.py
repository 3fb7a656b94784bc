"""The compiled activations of activations_compiled.py (imported only where
Numba is installed, and only when a large f32 activation runs).

Each kernel reads f32, computes every element in f64 and rounds once into
f32, as the NumPy kernels of irexec/ops/elementwise/activations.py do, in one
pass over the data instead of one NumPy call per step.  Compiled without
fast-math, so each f64 operation rounds as NumPy's does (and with NumPy's
error model: a division by zero gives inf, as in NumPy, and the check Python's
model makes before each division would keep the loops from vectorizing); where the NumPy
kernel calls ``np.exp``, these call ``exp64`` below (about 1e-16 relative: far
inside the 2**-29 the narrow kernels allow, see docs/accuracy.md), which,
unlike libm's, vectorizes.  Module-level functions, so that Numba's on-disk
cache keys them by name alone.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

njit: Any = numba.njit

LOG2E = 1.4426950408889634
# ln 2 in two parts (fdlibm's): the first has 32 trailing zero bits, so k * LN2_HI is exact for |k| < 2**20
LN2_HI = 6.93147180369123816490e-01
LN2_LO = 1.90821492927058770002e-10
# beyond these exp64 gives inf and 0 (exp(708) is 3e307; 2**k stays a normal number)
EXP_MAX = 708.0
# 1 / n! for e**r's Taylor series
F3, F4, F5, F6, F7, F8, F9, F10, F11, F12 = (1.0 / 6.0, 1.0 / 24.0, 1.0 / 120.0, 1.0 / 720.0, 1.0 / 5040.0, 1.0 / 40320.0,
                                           1.0 / 362880.0, 1.0 / 3628800.0, 1.0 / 39916800.0, 1.0 / 479001600.0)
SQRT1_2 = 0.7071067811865476
TAIL_A = 0.3 * SQRT1_2
SIXTH = 1.0 / 6.0
# kernels/special.py's _TAIL_H: Phi(-|x|) = exp(-x*x/2) * t * H(t), t = 1 / (1 + 0.3 |x| / sqrt(2))
H0, H1, H2, H3, H4, H5, H6 = (-0.012471967760027632, 0.09535094966245113, -0.30054838650404886, 0.5068260303876833,
                              -0.5419764633321575, 0.4451690562781866, -0.19840262911591083)
H7, H8, H9, H10, H11, H12 = (0.1427467547159834, 0.03520448684411079, 0.07871425677050278, 0.08007260041270978,
                             0.08468909901650305, 0.08462621262452762)


@intrinsic
def _as_f64(typingctx: Any, bits: Any) -> Any:
    """The f64 whose bits are the int64 ``bits`` (an LLVM bitcast: vectorizes)."""
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.bitcast(args[0], ir.DoubleType())
    return types.float64(types.int64), codegen


as_f64: Any = _as_f64


@njit(nogil=True, cache=True, error_model="numpy", fastmath={"contract"})
def exp64(t: float) -> float:
    """e**t: t = k ln 2 + r with |r| <= ln 2 / 2 (Cody and Waite), e**r by its
    Taylor series to r**12 (the next term is 1.6e-16 of it), times 2**k made
    from its bits.  NaN gives NaN, above 708 inf, below -708 0.  Its Horner
    steps may fuse into FMAs (0.7x the time: the chain's latency is what
    bounds the loop), which only changes its own roundings; LLVM keeps each
    instruction's flags when it inlines this into a kernel, so the kernel's
    own steps still round one by one."""
    c = min(max(t, -EXP_MAX), EXP_MAX)
    if c != c:
        c = 0.0
    k = np.floor(c * LOG2E + 0.5)
    r = (c - k * LN2_HI) - k * LN2_LO
    p = F12
    p = p * r + F11
    p = p * r + F10
    p = p * r + F9
    p = p * r + F8
    p = p * r + F7
    p = p * r + F6
    p = p * r + F5
    p = p * r + F4
    p = p * r + F3
    p = p * r + 0.5
    p = p * r + 1.0
    p = p * r + 1.0
    e = p * as_f64((np.int64(k) + 1023) << 52)
    if t > EXP_MAX:
        e = np.inf
    if t < -EXP_MAX:
        e = 0.0
    if t != t:
        e = t
    return e


@njit(nogil=True, cache=True, error_model="numpy")
def swish(x: Any, out: Any, beta: float) -> None:
    """x / (1 + e**(-beta x)), as Swish4.kernel."""
    for i in range(x.shape[0]):
        v = np.float64(x[i])
        out[i] = v / (1.0 + exp64(-beta * v))


@njit(nogil=True, cache=True, error_model="numpy")
def relu(x: Any, out: Any) -> None:
    """x > 0 ? x : 0, as _relu: NaN and -0 give +0."""
    zero = x.dtype.type(0)
    for i in range(x.shape[0]):
        v = x[i]
        out[i] = v if v > zero else zero


@njit(nogil=True, cache=True, error_model="numpy")
def sigmoid(x: Any, out: Any) -> None:
    """1 / (1 + e**-x), as _sigmoid."""
    for i in range(x.shape[0]):
        out[i] = 1.0 / (1.0 + exp64(-np.float64(x[i])))


@njit(nogil=True, cache=True, error_model="numpy")
def hswish(x: Any, out: Any) -> None:
    """x * min(max(x + 3, 0), 6) * (1 / 6), as _hswish: the same f64 steps."""
    for i in range(x.shape[0]):
        v = np.float64(x[i])
        t = v + 3.0
        t = min(max(t, 0.0), 6.0) if t == t else t
        out[i] = t * v * SIXTH


@njit(nogil=True, cache=True, error_model="numpy")
def hsigmoid(x: Any, out: Any) -> None:
    """min(max(x + 3, 0), 6) * (1 / 6), as _hsigmoid."""
    for i in range(x.shape[0]):
        t = np.float64(x[i]) + 3.0
        t = min(max(t, 0.0), 6.0) if t == t else t
        out[i] = t * SIXTH


@njit(nogil=True, cache=True, error_model="numpy", fastmath={"contract"})
def gelu_erf(x: Any, out: Any) -> None:
    """x * Phi(x), Phi(x) = (x >= 0) - copysign(Phi(-|x|), x), as _gelu_erf_narrow
    with kernels/special.py's normal_tail.  Its Horner steps may fuse into FMAs, as
    exp64's do (0.78x the time on ConvNeXt's [1, 56, 56, 128]): a change of about
    1e-16 relative in an f64 value rounded to f32, bit for bit the NumPy kernel's f32
    results on the tested data (tests/test_activations_jit.py)."""
    for i in range(x.shape[0]):
        v = np.float64(x[i])
        t = 1.0 / (np.abs(v) * TAIL_A + 1.0)
        h = H0
        h = h * t + H1
        h = h * t + H2
        h = h * t + H3
        h = h * t + H4
        h = h * t + H5
        h = h * t + H6
        h = h * t + H7
        h = h * t + H8
        h = h * t + H9
        h = h * t + H10
        h = h * t + H11
        h = h * t + H12
        h = h * t
        h = h * exp64(v * v * -0.5)
        out[i] = ((1.0 if v >= 0.0 else 0.0) - np.copysign(h, v)) * v


@njit(nogil=True, cache=True, error_model="numpy")
def gelu_tanh(x: Any, out: Any) -> None:
    """x / (1 + e**(-2t)), t = sqrt(2/pi) (x + 0.044715 x**3), as _gelu's tanh form."""
    for i in range(x.shape[0]):
        v = np.float64(x[i])
        t = v * v
        t = t * 0.044715
        t = t * v
        t = t + v
        t = t * 0.7978845608028654
        out[i] = v / (1.0 + exp64(t * -2.0))
