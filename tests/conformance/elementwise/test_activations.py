"""Conformance tables of unary math and activations: exact ops bit for bit,
functions within 1 ulp of a float64 reference written from the spec (ErfInv-17's
reference inverts Python's math.erf by bisection in f64, then rounds once)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from conformance.elementwise.references import (
    BF16,
    clamp_ref,
    is_float,
    prelu_ref,
    ref_erfinv,
    relu_ref,
    round_ref,
    sign_ref,
)
from conformance.harness import OV_TYPE_UNCHECKED, Case, ErrorCase, OpTable, Tol, conformance, table_rng

EDGE = np.array([0.0, -0.0, 1e-45, -1e-45, 1e-40, np.inf, -np.inf, np.nan, 3.4e38, -3.4e38, 1.0, -2.5, 0.5, -0.5, 2.5],
                np.float32)


OV_FTZ = "OpenVINO CPU flushes denormals and approximates at infinities"


APPROX = Tol(rtol=1e-5, atol=1e-6)  # OpenVINO CPU's approximate transcendental functions


ONE_ULP = Tol(ulps=1)


def draws(rng: np.random.Generator) -> Callable[..., np.ndarray]:
    """``rand(shape, dtype=np.float32, scale=3.0)`` from ``rng``: integers in
    [-20, 20] (as far as the type holds them), normal floats times ``scale``."""

    def rand(shape: tuple[int, ...], dtype: Any = np.float32, scale: float = 3.0) -> np.ndarray:
        dtype = np.dtype(dtype)
        if dtype.kind in "iu":
            info = np.iinfo(dtype)
            return rng.integers(max(info.min, -20), min(info.max, 20), shape, endpoint=True).astype(dtype)
        return (rng.standard_normal(shape) * scale).astype(dtype)

    return rand


def default_id(op: str, opset: str) -> str:
    return f"{op}-{opset.removeprefix('opset')}"


def f64(fn: Any) -> Any:
    """fn on float64 (per element, plain Python math where NumPy has no such
    function), rounded once to the input type; integers rounded to nearest."""
    def ref(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
        a = x[0]
        with np.errstate(all="ignore"):
            r = np.asarray(fn(a.astype(np.float64), attrs, *[float(np.asarray(p).reshape(-1)[0]) for p in x[1:]]))
        if is_float(a):
            with np.errstate(over="ignore"):
                return [r.astype(a.dtype)]
        info = np.iinfo(a.dtype)
        return [np.clip(np.nan_to_num(np.rint(r)), info.min, info.max).astype(a.dtype)]
    return ref


def elementwise(fn: Any) -> Any:
    vec = np.vectorize(lambda v: fn(v) if not math.isnan(v) else math.nan, otypes=[np.float64])
    return lambda x, attrs, *p: vec(x) if x.size else x


def utable(op: str, opset: str, ref: Any, *, tol: Tol = ONE_ULP, ov_tol: Tol | None = APPROX, ints: bool = False,
           scale: float = 3.0, positive: bool = False, attrs: dict[str, Any] | None = None, edges_ov: bool | str = OV_FTZ,
           extra: list[Case] | None = None, id: str = "", params: list[np.ndarray] | None = None,
           errors: Callable[[Callable[..., np.ndarray]], list[ErrorCase]] | None = None,
           rand: Callable[..., np.ndarray] | None = None) -> OpTable:
    """A table whose random inputs (cases, then ``errors(rand)``) come from its own generator."""
    rand = rand or draws(table_rng(id or default_id(op, opset)))
    a = attrs or {}
    p = params or []
    const = tuple(range(1, 1 + len(p)))

    def data(shape: tuple[int, ...], t: Any) -> np.ndarray:
        x = rand(shape, t, scale)
        return np.abs(x) if positive else x

    cases = [
        Case("f32", [data((2, 3, 4), np.float32)] + p, attrs=a, const=const),
        Case("zero-size", [data((0, 3), np.float32)] + p, attrs=a, const=const),
        Case("f16", [data((7,), np.float16)] + [x.astype(np.float16) for x in p], attrs=a, const=const),
        Case("bf16", [data((7,), BF16)] + [x.astype(BF16) for x in p], attrs=a, const=const,
             ov="OpenVINO CPU rounds bf16 results of its f32 approximations differently"),
        Case("edges", [EDGE] + p, attrs=a, const=const, ov=edges_ov),
    ]
    if ints:
        cases.append(Case("i32", [data((6,), np.int32)] + [x.astype(np.int32) for x in p], attrs=a, const=const,
                          ov="OpenVINO CPU computes integers through f32 with its own rounding"))
    cases += extra or []
    for c in cases[2:]:
        c.ov_shapes = "same shape inference as the first cases"
    return OpTable(op, opset, cases=cases, reference=ref, tol=tol, ov_tol=ov_tol, errors=errors(rand) if errors else [],
                   id=id)


def exact_table(op: str, opset: str, ref: Any, **kw: Any) -> OpTable:
    kw.setdefault("edges_ov", True)
    rand = draws(table_rng(kw.get("id") or default_id(op, opset)))
    t = utable(op, opset, ref, tol=Tol.EXACT, ov_tol=Tol.EXACT, rand=rand, **kw)
    t.cases.append(Case("i64", [rand((5,), np.int64)], attrs=kw.get("attrs") or {}, ov="OpenVINO CPU narrows i64 to i32",
                        ov_shapes="same shape inference as the first cases"))
    return t


def same(fn: Any) -> Any:
    return lambda x, attrs: [fn(x[0])]


def gelu_erf(x: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    # 0.5 * x * (1 + erf(x / sqrt 2)) written with erfc: 1 + erf cancels to 0 in f64 below about -8.3
    return elementwise(lambda v: 0.5 * v * math.erfc(-v / math.sqrt(2)))(x, attrs)


def gelu_tanh(x: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    # 0.5 * x * (1 + tanh(t)) written as x / (1 + e**(-2t)): no cancellation for large negative x
    return x / (1 + np.exp(-2 * math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def softplus(v: float) -> float:
    return v + math.log1p(math.exp(-v)) if v > 0 else math.log1p(math.exp(v))


TABLES = [
    exact_table("ReLU", "opset1", relu_ref, ints=True),
    exact_table("Abs", "opset1", same(np.abs), ints=True),
    exact_table("Negative", "opset1", same(np.negative), ints=True),
    exact_table("Sign", "opset1", sign_ref, ints=True, edges_ov="OpenVINO CPU gives NaN for NaN; its reference gives 0"),
    exact_table("Floor", "opset1", same(lambda a: np.floor(a) if is_float(a) else a), ints=True),
    exact_table("Ceiling", "opset1", same(lambda a: np.ceil(a) if is_float(a) else a), ints=True),
    exact_table("Round", "opset5", round_ref("half_to_even"), id="Round-even", attrs={"mode": "half_to_even"}),
    exact_table("Round", "opset5", round_ref("half_away_from_zero"), id="Round-away", attrs={"mode": "half_away_from_zero"},
                edges_ov="OpenVINO CPU rounds -0 to +0",
                errors=lambda rand: [ErrorCase("bad-mode", [rand((2,))], attrs={"mode": "half_up"},
                                                  code="bad-attribute")]),
    utable("Sqrt", "opset1", f64(lambda x, a: np.sqrt(x)), tol=Tol.EXACT, ints=True, positive=True, ov_tol=Tol(ulps=1)),
    utable("Exp", "opset1", f64(elementwise(lambda v: math.exp(v) if v < 709 else math.inf)), ints=True),
    utable("Log", "opset1", f64(lambda x, a: np.log(x)), positive=True),
    utable("Erf", "opset1", f64(elementwise(math.erf))),
    utable("Sin", "opset1", f64(elementwise(lambda v: math.sin(v) if not math.isinf(v) else math.nan))),
    utable("Cos", "opset1", f64(elementwise(lambda v: math.cos(v) if not math.isinf(v) else math.nan))),
    utable("Tan", "opset1", f64(lambda x, a: np.tan(x)), scale=1.0),
    utable("Asin", "opset1", f64(lambda x, a: np.arcsin(x)), scale=0.4),
    utable("Acos", "opset1", f64(lambda x, a: np.arccos(x)), scale=0.4),
    utable("Atan", "opset1", f64(lambda x, a: np.arctan(x))),
    utable("Sinh", "opset1", f64(lambda x, a: np.sinh(x))),
    utable("Cosh", "opset1", f64(lambda x, a: np.cosh(x))),
    utable("Tanh", "opset1", f64(elementwise(math.tanh))),
    utable("Asinh", "opset4", f64(lambda x, a: np.arcsinh(x))),
    utable("Acosh", "opset4", f64(lambda x, a: np.arccosh(x)), positive=True),
    utable("Atanh", "opset4", f64(lambda x, a: np.arctanh(x)), scale=0.4),
    utable("Sigmoid", "opset1", f64(elementwise(lambda v: 1 / (1 + math.exp(-v)) if v > -700 else 0.0))),
    utable("Gelu", "opset2", f64(gelu_erf)),
    utable("Gelu", "opset7", f64(gelu_erf), id="Gelu-7-erf", attrs={"approximation_mode": "erf"}),
    utable("Gelu", "opset7", f64(gelu_tanh), id="Gelu-7-tanh", attrs={"approximation_mode": "tanh"},
           errors=lambda rand: [ErrorCase("bad-mode", [rand((2,))], attrs={"approximation_mode": "cubic"},
                                             code="bad-attribute")]),
    utable("HSwish", "opset4", f64(lambda x, a: x * np.minimum(np.maximum(x + 3, 0), 6) / 6), scale=4.0),
    utable("HSigmoid", "opset5", f64(lambda x, a: np.minimum(np.maximum(x + 3, 0), 6) / 6), scale=4.0),
    utable("SoftPlus", "opset4", f64(elementwise(softplus))),
    utable("Mish", "opset4", f64(elementwise(lambda v: v * math.tanh(softplus(v))))),
    utable("SoftSign", "opset9", f64(lambda x, a: x / (1 + np.abs(x)))),
    utable("Elu", "opset1", f64(lambda x, a: np.where(x > 0, x, a["alpha"] * np.expm1(x))), attrs={"alpha": 0.7}),
    utable("Clamp", "opset1", clamp_ref, tol=Tol.EXACT,
           ov_tol=Tol.EXACT, attrs={"min": -1.5, "max": 2.0}, ints=True,
           edges_ov="OpenVINO CPU clamps NaN to min; its reference keeps NaN",
           extra=[Case("i32-fraction-bounds", [np.arange(-4, 5, dtype=np.int32)], attrs={"min": -2.5, "max": 1.5},
                       ov="OpenVINO CPU rounds fractional bounds for integers its own way",
                       expect=[np.array([-2, -2, -2, -1, 0, 1, 1, 1, 1], np.int32)])]),
    utable("Swish", "opset4", f64(lambda x, a, beta=1.0: x / (1 + np.exp(-beta * x))), id="Swish-beta",
           params=[np.array(0.75, np.float32)]),
    utable("Swish", "opset4", f64(lambda x, a: x / (1 + np.exp(-x))), id="Swish-default"),
    utable("Selu", "opset1", f64(lambda x, a, al, la: la * np.where(x > 0, x, al * np.expm1(x))),
           params=[np.array([1.6732632], np.float32), np.array([1.0507010], np.float32)]),
    utable("HardSigmoid", "opset1", f64(lambda x, a, al, be: np.clip(al * x + be, 0, 1)),
           params=[np.array(0.2, np.float32), np.array(0.5, np.float32)]),
]


rand = draws(table_rng("PReLU-1"))  # each table its own generator
TABLES.append(OpTable("PReLU", "opset1", reference=prelu_ref, cases=[
    Case("per-channel", [rand((2, 3, 4)), rand((3,))]),
    Case("broadcast-last", [rand((2, 3, 4)), rand((4,))], ov_shapes="OpenVINO takes a 1-D slope as per-channel only"),
    Case("scalar-slope", [rand((2, 3)), np.array([0.25], np.float32)], const=(1,)),
    Case("f16", [rand((2, 3), np.float16), rand((3,), np.float16)]),
    Case("edges", [EDGE, np.full(EDGE.shape, 0.5, np.float32)], ov=OV_FTZ),
    Case("zero-size", [rand((0, 3)), rand((3,))]),
], errors=[ErrorCase("types-differ", [rand((2, 3)), rand((3,), np.float16)], code="bad-input-type",
              ov=OV_TYPE_UNCHECKED)]))

rng = table_rng("ErfInv-17")  # the table's own generator


def unit(shape: tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    return rng.uniform(-1, 1, shape).astype(dtype)


EDGES = np.array([0, -0.0, 1, -1, 0.5, -0.5, 0.9999999, 1 - 2 ** -24, 1e-30, 1.5, -2, np.inf, np.nan, 1e-45],
                 np.float32)
# OpenVINO CPU approximates erfinv: up to about 1e-4 relative off on these tables
ERFINV = OpTable("ErfInv", "opset17", reference=ref_erfinv, tol=Tol(ulps=1), ov_tol=Tol(rtol=1e-4, atol=1e-6), cases=[
    Case("f32", [unit((4, 50))]),
    Case("tails", [np.concatenate([1 - np.logspace(-7, -1, 40), -1 + np.logspace(-7, -1, 40)]).astype(np.float32)],
         ov="OpenVINO CPU's approximation is up to 0.5% off in the tails"),
    Case("edges", [EDGES], ov="OpenVINO CPU flushes the f32 denormal to zero"),
    Case("f16", [unit((30,), np.float16)]),
    Case("bf16", [unit((30,)).astype(BF16)]),
    Case("zero-size", [np.zeros((0, 2), np.float32)]),
], errors=[
    ErrorCase("integer", [np.zeros((2,), np.int32)], code="bad-input-type"),
])
ERFINV_F64 = OpTable("ErfInv", "opset17", id="ErfInv-opset17-f64", reference=ref_erfinv, tol=Tol(rtol=1e-14, atol=1e-300),
                     cases=[Case("f64", [rng.uniform(-1, 1, (20,))], ov="OpenVINO CPU computes f64 in f32")])
TABLES += [ERFINV, ERFINV_F64]

test_conformance = conformance(TABLES)
