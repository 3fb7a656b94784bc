"""The chunked, threaded f64 path of the precise elementwise ops: a tensor big
enough to be cut into chunks (and shared out over threads) gives the same
bits as each of its pieces computed alone, and stays within an ulp of the
exactly rounded value."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

from irexec.kernels import elementwise as chunked
from irexec.kernels.special import erf
from irexec.ops.framework.registry import resolve
from irexec.system import parallel

N = chunked.MIN_SPLIT * 3 + 12345  # several chunks and tasks, a ragged last one

SPECIALS = [0.0, -0.0, math.inf, -math.inf, math.nan, 1e-40, -1e-40, 2.0 ** -10, -(2.0 ** -10), 2.0 ** -11, 20.0, -20.0,
            0.46875, -4.0, 4.0001, 5.999, 6.0, 100.0, -100.0]

CASES = [("Exp", "opset1", {}), ("Tanh", "opset1", {}), ("Sigmoid", "opset1", {}), ("Erf", "opset1", {}),
         ("Gelu", "opset7", {"approximation_mode": "erf"}), ("Gelu", "opset7", {"approximation_mode": "tanh"}),
         ("HSwish", "opset4", {}), ("HSigmoid", "opset5", {}), ("Mish", "opset4", {}), ("Sin", "opset1", {})]


def _gelu(v: float) -> float:
    # x * Phi(x) through erfc: no cancellation in the negative tail
    return v * 0.5 * math.erfc(-v / math.sqrt(2)) if math.isfinite(v) else (v if v > 0 else math.nan)


REFERENCE = {  # op: (opset, exact value in f64)
    "Exp": ("opset1", lambda v: math.exp(v) if not v >= 709 else math.inf),
    "Tanh": ("opset1", math.tanh),
    "Sigmoid": ("opset1", lambda v: 1 / (1 + math.exp(-v)) if not v <= -700 else 0.0),
    "Erf": ("opset1", math.erf),
    "Gelu": ("opset2", _gelu),
}


def _data(dtype: np.dtype) -> np.ndarray:
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.standard_normal(N - 2000) * 3, rng.standard_normal(1000) * 1e-3,
                        rng.standard_normal(1000 - len(SPECIALS)) * 1e-6, SPECIALS])
    return x.astype(dtype)


def _compute(op_type: str, version: str, attrs: dict[str, str], x: np.ndarray) -> np.ndarray:
    op = resolve(op_type, version).build(None, attrs)[0]
    return op.compute(op.plan_for([x]).plan, x)[0]


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    same = (a64 == b64) & (np.signbit(a64) == np.signbit(b64))
    return bool((same | (np.isnan(a64) & np.isnan(b64))).all())


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16, np.float64], ids=str)
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}-{'-'.join(c[2].values())}")
def test_chunks_match_pieces(case: tuple[str, str, dict[str, str]], dtype: type, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "MIN_PARALLEL_BYTES", 0)  # threads even on this small tensor
    x = _data(np.dtype(dtype))
    whole = _compute(*case, x)
    assert whole.dtype == x.dtype and whole.shape == x.shape
    step = chunked.MIN_SPLIT // 3  # pieces on the unsplit path
    pieces = np.concatenate([_compute(*case, x[i:i + step]) for i in range(0, N, step)])
    assert _same_bits(whole, pieces)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16], ids=str)
@pytest.mark.parametrize("op_type", sorted(REFERENCE))
def test_chunks_exactly_rounded(op_type: str, dtype: type) -> None:
    x = _data(np.dtype(dtype))
    if op_type == "Gelu":  # and its far negative tail, down to where it rounds to -0
        x = np.concatenate([x, np.linspace(-16, 0, 20001).astype(dtype)])
    opset, exact = REFERENCE[op_type]
    got = _compute(op_type, opset, {}, x)
    with np.errstate(over="ignore"):  # overflow to inf when rounding is the expected value
        want = np.array([exact(v) for v in x.astype(np.float64).tolist()]).astype(dtype)
    up, down = np.nextafter(want, np.array(np.inf, want.dtype)), np.nextafter(want, np.array(-np.inf, want.dtype))
    g64 = got.astype(np.float64)
    within = (g64 == up.astype(np.float64)) | (g64 == down.astype(np.float64))
    exact = (g64 == want.astype(np.float64)) & (np.signbit(g64) == np.signbit(want.astype(np.float64)))
    assert (exact | within | (np.isnan(g64) & np.isnan(want.astype(np.float64)))).all()  # within 1 ulp
    assert exact.mean() > 0.9999  # and nearly always the exactly rounded value


def test_erf_in_place_and_strided() -> None:
    x = np.random.default_rng(0).standard_normal((3, 40000)) * 3
    want = erf(x.copy())
    y = x.copy()
    assert erf(y, out=y) is y and _same_bits(y, want)
    out = np.empty((40000, 3)).T  # not C-contiguous
    erf(x, out=out)
    assert _same_bits(out, want)
    assert _same_bits(erf(x[:, ::2]), want[:, ::2])


@pytest.mark.parametrize("op_type", ["Power", "SquaredDifference"])
def test_binary_chunks_match_pieces(op_type: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "MIN_PARALLEL_BYTES", 0)
    rng = np.random.default_rng(4)
    a = np.abs(rng.standard_normal(N)).astype(np.float32) * 3
    b = rng.standard_normal(N).astype(np.float32)
    op = resolve(op_type, "opset1").build(None, {})[0]
    whole = op.compute(op.plan_for([a, b]).plan, a, b)[0]
    step = chunked.MIN_SPLIT // 3
    pieces = np.concatenate([op.compute(op.plan_for([a[i:i + step], b[i:i + step]]).plan, a[i:i + step], b[i:i + step])[0]
                             for i in range(0, N, step)])
    assert whole.dtype == np.float32 and _same_bits(whole, pieces)
    bcast = op.compute(op.plan_for([a[:6].reshape(2, 3), b[:3]]).plan, a[:6].reshape(2, 3), b[:3])[0]  # broadcast path
    want = op.compute(None, a[:6].reshape(2, 3), np.tile(b[:3], (2, 1)))[0]
    assert bcast.shape == (2, 3) and _same_bits(bcast, want)
