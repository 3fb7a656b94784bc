"""Activations and unary math on the elementwise factory.

Exact ops (Abs, Negative, Sign, Floor, Ceiling, Round, ReLU) run on the
element type.  Every other float function is computed in f64 and rounded
once (``precise=True``): within an ulp of the exact result for f32, f16 and
bf16 (f64 inputs get NumPy's libm accuracy, a few ulp at most).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...base.dtypes import iinfo, is_bf16, is_float_dtype
from ...kernels import activations_compiled
from ...kernels.elementwise import apply_f64, blockwise
from ...kernels.erfinv import erfinv
from ...kernels.special import erf, erf_narrow, normal_tail, normal_tail_f64
from ..framework.accuracy import EXACT, ROUNDED, TRANSCENDENTAL
from ..framework.base import NUMERIC, REAL, Attr, Enum, In, Inference, Op, TensorInfo, op_error
from ..framework.registry import register
from .arithmetic import maximum
from .factory import broadcast_shapes, unary

SQRT1_2 = 0.7071067811865476
SQRT_2_PI = 0.7978845608028654


def _is_float(x: np.ndarray) -> bool:
    if x.dtype.kind == "f" or is_bf16(x.dtype):
        return True
    if x.dtype.kind in "iub":
        return False
    # ml_dtypes' f8 and f4 types (kind "V"): NumPy's ufuncs run on them through f32
    return is_float_dtype(x.dtype)


# ------------------------------------------------------------ exact ops

def _relu(x: np.ndarray) -> np.ndarray:
    if x.dtype.kind == "u":
        return x.copy()
    return maximum(x, np.zeros((), x.dtype))  # x > 0 ? x : 0: NaN and -0 give +0, as OpenVINO


def _sign(x: np.ndarray) -> np.ndarray:
    # x < 0 ? -1 : x > 0 ? 1 : 0, as OpenVINO's reference: NaN and -0 give 0
    if x.dtype.kind == "u":
        return (x != 0).astype(x.dtype)
    return ((x > 0).astype(np.int8) - (x < 0).astype(np.int8)).astype(x.dtype)


def _round(x: np.ndarray, op: Op) -> np.ndarray:
    if not _is_float(x):
        return x.copy()
    if op.mode == "half_to_even":
        return np.rint(x)
    t = np.trunc(x)
    return np.where(np.abs(x - t) >= 0.5, t + np.sign(x), t).astype(x.dtype)  # half away from zero; -0 stays -0


def _int_or(fn):  # integer inputs are already whole: identity
    def f(x: np.ndarray) -> np.ndarray:
        return fn(x) if _is_float(x) else x.copy()
    return f


unary("Abs", 1, np.abs, accuracy=EXACT, summary="|x|")
unary("Negative", 1, np.negative, accuracy=EXACT, summary="-x")
unary("Sign", 1, _sign, accuracy=EXACT, summary="-1, 0 or 1 (NaN gives 0)")
unary("Floor", 1, _int_or(np.floor), accuracy=EXACT, summary="round toward -inf")
unary("Ceiling", 1, _int_or(np.ceil), accuracy=EXACT, summary="round toward +inf")
unary("Round", 5, _round, with_op=True, accuracy=EXACT, summary="round to an integer value",
      attributes={"mode": Enum("half_to_even", "half_away_from_zero", doc="how halves round")})
ReLU1 = unary("ReLU", 1, _relu, accuracy=EXACT, summary="max(x, 0)")

# ------------------------------------------------- functions, f64 then rounded once


def _f64(fn, inplace: bool = False):
    """Integer inputs: computed in f64 and rounded to the nearest integer of
    the type (as OpenVINO's reference); floats as they come (a ufunc with
    ``inplace``: into its argument, a private f64 buffer on the precise path)."""
    def f(x: np.ndarray) -> np.ndarray:
        if _is_float(x):
            return fn(x, out=x) if inplace else fn(x)
        info = iinfo(x.dtype)  # also int4/uint4
        r = np.rint(fn(x.astype(np.float64)))
        return np.clip(np.nan_to_num(r, nan=0.0), info.min, info.max).astype(x.dtype)
    return f


def _sqrt(x: np.ndarray) -> np.ndarray:
    return np.sqrt(x)  # correctly rounded in the type itself


# tanh for data narrower than f64, through one exp (NumPy's f64 tanh is several
# times slower than its exp): 2 / (1 + e) - 1 with e = exp(-2x), which needs
# no clipping (e = inf gives -1, e = 0 gives 1).  2 / (1 + e) carries at most
# 2**-50 absolute error, so the result is off by <= 2**-50 / |tanh x|, at most
# 2**-29 relative for |x| >= 2**-21: far inside the half ulp (>= 2**-25
# relative) of the rounded result.  Below, tanh(x) = x (1 - x**2/3 ...) is x
# to 2**-43, and x is returned (-0 stays -0).
_TANH_TINY = 2.0 ** -21


def _tanh_narrow(x: np.ndarray) -> np.ndarray:
    """tanh of a private f64 buffer (overwritten) to 2**-29 relative: for
    results rounded to f32, f16 or bf16."""
    a = np.abs(x)
    keep = None
    if not a.min(initial=np.inf) >= _TANH_TINY:  # some tiny x (or a NaN, which the formula keeps)
        tiny = np.flatnonzero(a.reshape(-1) < _TANH_TINY)
        keep = (tiny, x.reshape(-1)[tiny])
    np.multiply(x, -2.0, out=a)
    np.exp(a, out=a)
    a += 1.0
    np.divide(2.0, a, out=a)
    a -= 1.0
    if keep is not None:
        a.reshape(-1)[keep[0]] = keep[1]
    return a


unary("Sqrt", 1, _f64(_sqrt), accuracy=ROUNDED, summary="square root")
unary("Exp", 1, _f64(np.exp, True), precise=True, summary="e ** x")
unary("Log", 1, _f64(np.log, True), precise=True, summary="natural logarithm")
unary("Erf", 1, _f64(erf), precise=True, summary="Gauss error function", narrow=_f64(erf_narrow))
unary("ErfInv", 17, _f64(erfinv), types=REAL, precise=True, summary="inverse of the Gauss error function")
unary("Sin", 1, _f64(np.sin, True), precise=True, summary="sine")
unary("Cos", 1, _f64(np.cos, True), precise=True, summary="cosine")
unary("Tan", 1, _f64(np.tan, True), precise=True, summary="tangent")
unary("Asin", 1, _f64(np.arcsin, True), precise=True, summary="arcsine")
unary("Acos", 1, _f64(np.arccos, True), precise=True, summary="arccosine")
unary("Atan", 1, _f64(np.arctan, True), precise=True, summary="arctangent")
unary("Sinh", 1, _f64(np.sinh, True), precise=True, summary="hyperbolic sine")
unary("Cosh", 1, _f64(np.cosh, True), precise=True, summary="hyperbolic cosine")
unary("Tanh", 1, _f64(np.tanh, True), precise=True, summary="hyperbolic tangent", narrow=_f64(_tanh_narrow))
unary("Asinh", 3, _f64(np.arcsinh, True), precise=True, since=4, summary="inverse hyperbolic sine")
unary("Acosh", 3, _f64(np.arccosh, True), precise=True, since=4, summary="inverse hyperbolic cosine")
unary("Atanh", 3, _f64(np.arctanh, True), precise=True, since=4, summary="inverse hyperbolic tangent")

# The kernels below get a private f64 buffer on the precise path and may overwrite it.


def _sigmoid(x: np.ndarray) -> np.ndarray:
    np.negative(x, out=x)
    np.exp(x, out=x)  # f64: no cancellation, exp overflow gives 0
    x += 1.0
    return np.divide(1.0, x, out=x)


# Below -0.46875 * sqrt(2), 1 + erf(x / sqrt(2)) cancels (to 0 below about
# -8.3): the tail is computed as itself there.
_GELU_TAIL = -0.6629126073623883


def _gelu_erf(x: np.ndarray) -> np.ndarray:
    t = np.multiply(x, SQRT1_2)
    t = erf(t, out=t)
    t += 1.0
    t *= x
    t *= 0.5
    tail = x < _GELU_TAIL
    if tail.any():
        xt = x[tail]
        t[tail] = xt * normal_tail_f64(xt)
    return t


# The tanh form's constants as 0-d f64 arrays: the same values on the f64 data, without a
# Python float's conversion per step
_TANH_CUBIC, _TANH_SCALE, _MINUS_TWO, _ONE = (np.array(c, np.float64) for c in (0.044715, SQRT_2_PI, -2.0, 1.0))


def _gelu_tanh_arg(x: np.ndarray) -> np.ndarray:
    t = np.multiply(x, x)
    t *= _TANH_CUBIC
    t *= x
    t += x
    t *= _TANH_SCALE
    return t


def _gelu_erf_narrow(x: np.ndarray) -> np.ndarray:
    """x * Phi(x) for data narrower than f64: Phi(x) is 1 - Phi(-x) from +0
    up (no cancellation: it is >= 1/2) and the tail itself below, built as
    (x >= 0) - copysign(tail, x) (at -0 that is 1 + tail: times -0, still -0)."""
    h = normal_tail(x)
    np.copysign(h, x, out=h)
    np.subtract(x >= 0, h, out=h)
    h *= x
    return h


def _gelu(x: np.ndarray, op: Op, erf_form: Callable[[np.ndarray], np.ndarray] = _gelu_erf) -> np.ndarray:
    if op.approximation_mode == "tanh":
        # 0.5 * x * (1 + tanh(t)) = x / (1 + e**(-2t)): one exp, and no
        # cancellation in 1 + tanh(t) for large negative x
        t = _gelu_tanh_arg(x)  # x: the private f64 buffer of the precise path
        t *= _MINUS_TWO
        np.exp(t, out=t)
        t += _ONE
        return np.divide(x, t, out=x)
    return erf_form(x)


def _gelu_narrow(x: np.ndarray, op: Op) -> np.ndarray:
    return _gelu(x, op, _gelu_erf_narrow)


# / 6 as * (1 / 6): one more f64 rounding (2**-53 relative), far inside the
# half ulp of the rounded result, and a multiply costs half a divide.
_SIXTH = 1.0 / 6.0


def _hswish(x: np.ndarray) -> np.ndarray:
    t = np.add(x, 3.0)
    np.clip(t, 0.0, 6.0, out=t)
    t *= x
    t *= _SIXTH
    return t


def _hsigmoid(x: np.ndarray) -> np.ndarray:
    x += 3.0
    np.clip(x, 0.0, 6.0, out=x)
    x *= _SIXTH
    return x


def _softplus(x: np.ndarray) -> np.ndarray:
    return np.logaddexp(0.0, x, out=x)  # log(1 + e**x) without overflow


def _mish(x: np.ndarray) -> np.ndarray:
    t = np.logaddexp(0.0, x)
    np.tanh(t, out=t)
    t *= x
    return t


def _mish_narrow(x: np.ndarray) -> np.ndarray:
    return np.multiply(x, _tanh_narrow(np.logaddexp(0.0, x)), out=x)


def _softsign(x: np.ndarray) -> np.ndarray:
    t = np.abs(x)
    t += 1.0
    return np.divide(x, t, out=x)


def _elu(x: np.ndarray, op: Op) -> np.ndarray:
    return np.where(x > 0, x, op.alpha * np.expm1(x))


def _clamp(x: np.ndarray, op: Op) -> np.ndarray:
    lo, hi = op.min, op.max
    if _is_float(x):
        if x.dtype.itemsize >= 4:
            return blockwise(x, [(np.maximum, lo), (np.minimum, hi)])
        return np.minimum(np.maximum(x, lo), hi)
    # integer data: the bounds rounded inward (ceil of min, floor of max), as OpenVINO
    info = iinfo(x.dtype)  # also int4/uint4
    lo_i = int(max(min(np.ceil(lo), info.max), info.min))
    hi_i = int(max(min(np.floor(hi), info.max), info.min))
    return np.minimum(np.maximum(x, x.dtype.type(lo_i)), x.dtype.type(hi_i))


Sigmoid1 = unary("Sigmoid", 1, _sigmoid, precise=True, types=REAL, summary="1 / (1 + e**-x)")
Gelu2 = unary("Gelu", 2, _gelu_erf, precise=True, types=REAL, summary="x * Phi(x) (erf form)", narrow=_gelu_erf_narrow)
Gelu7 = unary("Gelu", 7, _gelu, precise=True, types=REAL, with_op=True, summary="x * Phi(x), erf or tanh form",
      narrow=_gelu_narrow,
      attributes={"approximation_mode": Enum("erf", "tanh", doc="exact erf form or tanh approximation")})
HSwish4 = unary("HSwish", 4, _hswish, precise=True, types=REAL, summary="x * min(max(x + 3, 0), 6) / 6")
HSigmoid5 = unary("HSigmoid", 5, _hsigmoid, precise=True, types=REAL, summary="min(max(x + 3, 0), 6) / 6")
unary("SoftPlus", 4, _softplus, precise=True, types=REAL, summary="log(1 + e**x)")
unary("Mish", 4, _mish, precise=True, types=REAL, summary="x * tanh(softplus(x))", narrow=_mish_narrow)
unary("SoftSign", 9, _softsign, precise=True, types=REAL, summary="x / (1 + |x|)")
unary("Elu", 1, _elu, precise=True, types=REAL, with_op=True, summary="x > 0 ? x : alpha * (e**x - 1)",
      attributes={"alpha": Attr("float", required=True, doc="scale of the negative part")})


def _compiled_first(cls: type[Op], kernel_of: Callable[[Op], str], loads: bool = True) -> None:
    """Large f32 data of ``cls`` through its compiled kernel (the same f64 steps,
    kernels/activations_compiled.py) where Numba is installed; else as before.
    ``loads`` False: only once another layer has loaded the compiled kernels."""
    plain = cls.compute

    def compute(self: Op, plan: object, data: np.ndarray) -> list[np.ndarray]:
        out = activations_compiled.run(kernel_of(self), data, loads=loads)
        return [out] if out is not None else list(plain(self, plan, data))

    cls.compute = compute  # type: ignore[method-assign, assignment]


# One pass at a copy's speed (NumPy's maximum against 0 takes 4x), but a plain CNN's
# one-off run would pay Numba's import for a fraction of a millisecond a layer
_compiled_first(ReLU1, lambda op: "relu", loads=False)
_compiled_first(Sigmoid1, lambda op: "sigmoid")
_compiled_first(Gelu2, lambda op: "gelu_erf")
_compiled_first(Gelu7, lambda op: "gelu_tanh" if op.approximation_mode == "tanh" else "gelu_erf")
_compiled_first(HSwish4, lambda op: "hswish")
_compiled_first(HSigmoid5, lambda op: "hsigmoid")
Clamp1 = unary("Clamp", 1, _clamp, with_op=True, accuracy=EXACT, summary="min(max(x, min), max)",
               attributes={"min": Attr("float", required=True, doc="lower bound"),
                           "max": Attr("float", required=True, doc="upper bound")})


def _clamp_bounds(self: Op) -> list:
    """min <= max, as OpenVINO requires (a NaN bound is neither)."""
    errors = Op.validate(self)
    lo, hi = self.min, self.max
    if not lo <= hi:
        errors.append(op_error(f"min={lo} must not exceed max={hi} (and neither may be NaN)", "bad-attribute"))
    return errors


Clamp1.validate = _clamp_bounds  # type: ignore[method-assign]


# ------------------------------------------- activations with parameter inputs


class Parametrised(Op):
    """Data plus scalar (or one-element) parameter inputs; output like data."""

    family = "elementwise"
    precise = True
    accuracy = TRANSCENDENTAL  # computed in f64, rounded once

    def infer(self, data: TensorInfo, *params: TensorInfo) -> Inference:
        return Inference([TensorInfo(data.shape, data.etype)])

    def compute(self, plan: object, data: np.ndarray, *params: np.ndarray) -> list[np.ndarray]:
        ps = [float(np.asarray(p).reshape(-1)[0]) for p in params]
        return [apply_f64(lambda x: self.kernel(x, *ps), [data], data.dtype)]

    def kernel(self, x: np.ndarray, *params: float) -> np.ndarray:
        raise NotImplementedError


@register
class Swish4(Parametrised):
    type, version, summary = "Swish", 4, "x * sigmoid(beta * x), beta 1 when not given"
    inputs = (In("data", REAL), In("beta", REAL, rank=(0, 1), elements=1, optional=True))

    def kernel(self, x: np.ndarray, beta: float = 1.0) -> np.ndarray:
        return x / (1.0 + np.exp(-beta * x))

    def compute(self, plan: object, data: np.ndarray, *params: np.ndarray) -> list[np.ndarray]:
        beta = float(np.asarray(params[0]).reshape(-1)[0]) if params else 1.0
        out = activations_compiled.run("swish", data, beta)  # large f32: compiled, the same f64 steps
        return [out] if out is not None else super().compute(plan, data, *params)


@register
class Selu1(Parametrised):
    type, version, summary = "Selu", 1, "lambda * (x > 0 ? x : alpha * (e**x - 1))"
    inputs = (In("data", REAL), In("alpha", REAL, rank=(0, 1), elements=1), In("lambda", REAL, rank=(0, 1), elements=1))

    def kernel(self, x: np.ndarray, alpha: float, lambda_: float) -> np.ndarray:
        return lambda_ * np.where(x > 0, x, alpha * np.expm1(x))


@register
class HardSigmoid1(Parametrised):
    type, version, summary = "HardSigmoid", 1, "max(0, min(1, alpha * x + beta))"
    inputs = (In("data", REAL), In("alpha", REAL, rank=(0, 1), elements=1), In("beta", REAL, rank=(0, 1), elements=1))

    def kernel(self, x: np.ndarray, alpha: float, beta: float) -> np.ndarray:
        return np.clip(alpha * x + beta, 0.0, 1.0)


@register
class PRelu1(Op):
    """x < 0 ? slope * x : x; a 1-D slope as long as data's dim 1 applies per channel."""

    type, version, family, summary = "PReLU", 1, "elementwise", "x < 0 ? slope * x : x"
    accuracy = EXACT  # one product, as OpenVINO's reference computes it
    inputs = (In("data", NUMERIC), In("slope", "same:data"))

    def infer(self, data: TensorInfo, slope: TensorInfo) -> Inference:
        ds, ss = data.shape, slope.shape
        if ds.rank is not None and ds.rank >= 2 and ss.rank == 1:
            c = ds[1]
            if ss[0].intersect(c) is not None and not (ss[0].is_static and ss[0].value == 1):
                return Inference([TensorInfo(ds, data.etype)], "channel")
        merged, _ = broadcast_shapes(ds, ss, "numpy")
        if ds.rank is not None and merged.rank is not None and merged.rank != ds.rank:
            raise op_error(f"slope {ss} does not broadcast onto data {ds}", "incompatible-inputs", 1)
        if ds.dims is not None and ss.dims:
            for x, y in zip(ds.dims[-len(ss.dims):], ss.dims):  # the output has the data's shape: no dim may widen
                if not (y.is_static and y.value == 1) and x.intersect(y) is None:
                    raise op_error(f"slope {ss} does not broadcast onto data {ds}", "incompatible-inputs", 1)
        return Inference([TensorInfo(ds, data.etype)], None)

    def compute(self, plan: object, data: np.ndarray, slope: np.ndarray) -> list[np.ndarray]:
        if plan == "channel":
            slope = slope.reshape((-1,) + (1,) * (data.ndim - 2))
        with np.errstate(all="ignore"):
            out = np.where(data < 0, data * slope, data)
        return [np.broadcast_to(out, data.shape).astype(data.dtype)]
