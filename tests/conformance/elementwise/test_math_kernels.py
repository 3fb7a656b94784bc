"""Math ops beyond the conformance tables: the erf kernel over a dense grid,
run-time errors of integer division, value bounds through integer
arithmetic, and the NaN / signed-zero choices of Maximum on every float type."""

from __future__ import annotations

import math
from decimal import Decimal

import ml_dtypes
import numpy as np
import pytest

import irexec
from irexec.base import dtypes
from irexec.base.errors import IRExecError
from irexec.base.shapes import parse_partial_shape
from irexec.kernels.special import erf, normal_tail
from irexec.model.builder import IRBuilder
from irexec.ops.framework.base import TensorInfo
from irexec.ops.framework.registry import resolve
from irexec.system import parallel


def op(type_: str, opset: int, **attrs: str):
    made, errors = resolve(type_, f"opset{opset}").build(None, attrs)
    assert not errors, errors
    return made


def test_erf_matches_math_erf_to_a_few_f64_ulps() -> None:
    x = np.concatenate([np.linspace(-7, 7, 100_001), [0.46875, -0.46875, 4.0, -4.0, 5.9, 6.0, 1e-300, -1e-310]])
    want = np.array([math.erf(v) for v in x])
    got = erf(x)
    ulps = np.abs(got - want) / np.spacing(np.maximum(np.abs(want), 1e-300))
    assert ulps.max() <= 4
    assert np.signbit(erf(np.array([-0.0])))[0]
    assert list(erf(np.array([np.inf, -np.inf]))) == [1.0, -1.0] and np.isnan(erf(np.array([np.nan])))[0]


def _gelu_f64_reference(v: float) -> float:
    """0.5 v erfc(-v / sqrt 2), erfc's argument corrected to first order for
    its rounding to f64 (which alone moves erfc by up to 700 ulp in the tail)."""
    z = -v / math.sqrt(2)
    dz = float(Decimal(-v) / Decimal(2).sqrt() - Decimal(z))
    return 0.5 * v * (math.erfc(z) - dz * 2 / math.sqrt(math.pi) * math.exp(-z * z))


def test_gelu_f64_keeps_its_negative_tail() -> None:
    # down to -37.5, where the result leaves f64's normal range; 1 + erf gave 0 below -8.3
    x = np.concatenate([np.linspace(-37.5, -0.6, 60_001), np.linspace(-0.7, 4, 4_701)])
    got = op("Gelu", 7, approximation_mode="erf").run(x)[0]
    want = np.array([_gelu_f64_reference(v) for v in x.tolist()])
    assert (np.abs(got - want) <= 10 * np.spacing(np.abs(want))).all()
    ends = op("Gelu", 2).run(np.array([-np.inf, np.inf, np.nan, -0.0, -1e300]))[0]
    assert np.isnan(ends[0]) and ends[1] == np.inf and np.isnan(ends[2]) and np.signbit(ends[3]) and ends[4] == 0


def test_erf_rounds_to_the_exact_f32_value() -> None:
    x = np.random.default_rng(1).standard_normal(50_000).astype(np.float32) * 3
    got = op("Erf", 1).run(x)[0]
    want = np.array([math.erf(v) for v in x.astype(np.float64)]).astype(np.float32)
    assert np.array_equal(got, want)


def test_normal_tail_to_its_stated_bound() -> None:
    # f32 values from 0 to where x * Phi(-x) leaves f32's range, both signs
    x = np.linspace(-14.8, 14.8, 200_001).astype(np.float32).astype(np.float64)
    want = np.array([0.5 * math.erfc(abs(v) / math.sqrt(2)) for v in x])
    assert (np.abs(normal_tail(x) / want - 1) < 2.0 ** -35).all()
    ends = normal_tail(np.array([np.inf, -np.inf, np.nan, 1e30, 0.0]))
    assert list(ends[:2]) == [0.0, 0.0] and np.isnan(ends[2]) and ends[3] == 0.0 and abs(ends[4] - 0.5) < 2.0 ** -36


def _f32_ulps(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """ulps between f32 arrays on the ordered integer line (+0 and -0 both 0)."""
    def line(v: np.ndarray) -> np.ndarray:
        b = v.view(np.uint32).astype(np.int64)
        return np.where(b < 0x80000000, b, 0x80000000 - b)
    return np.abs(line(got) - line(want))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16])
def test_tanh_within_one_ulp_across_its_regimes(dtype) -> None:
    """Tanh of narrow floats goes through one f64 exp, returns x below 2**-21
    and saturates to +-1: within an ulp of f64 tanh on both sides of each switch."""
    mags = np.exp2(np.linspace(-60, 7, 300_001))
    x = np.concatenate([mags, -mags, [0.0, -0.0, np.inf, -np.inf, np.nan, 2.0 ** -21, -(2.0 ** -21), 20, -400]])
    x = x.astype(dtype)
    got = op("Tanh", 1).compute(None, x)[0]
    assert got.dtype == x.dtype
    want = np.tanh(x.astype(np.float64)).astype(dtype)
    assert np.array_equal(np.isnan(got), np.isnan(want)) and np.array_equal(np.signbit(got), np.signbit(want))
    ok = ~np.isnan(want)
    g, w = got[ok].astype(np.float32), want[ok].astype(np.float32)  # f16/bf16 widen exactly
    if dtype == np.float32:
        assert _f32_ulps(g, w).max() <= 1
    else:
        spacing = np.spacing(np.abs(w).astype(dtype)).astype(np.float32)
        assert np.all(np.abs(g - w) <= spacing)


@pytest.mark.parametrize(("type_", "attrs"), [("Divide", {}), ("Divide", {"m_pythondiv": "false"}), ("Mod", {}),
                                             ("FloorMod", {})])
def test_integer_division_by_zero_is_a_run_time_error_naming_the_layer(tmp_path, type_: str, attrs: dict) -> None:
    b = IRBuilder()
    x = b.parameter("x", [3], "i32")
    y = b.parameter("y", [3], "i32")
    b.result(b.layer(type_, "opset1", [x, y], attrs, name="the_div"))
    b.write(tmp_path / "m.xml")
    assert not irexec.check(str(tmp_path / "m.xml")).errors
    with pytest.raises(IRExecError) as info:
        irexec.run(str(tmp_path / "m.xml"), {"x": np.array([1, 2, 3], np.int32), "y": np.array([1, 0, 1], np.int32)})
    assert info.value.code == "bad-value"
    assert "the_div" in str(info.value) and "by zero" in str(info.value)


def test_float_division_by_zero_gives_infinities() -> None:
    got = op("Divide", 1).run(np.array([1, -1, 0], np.float32), np.zeros(3, np.float32))[0]
    assert got[0] == np.inf and got[1] == -np.inf and np.isnan(got[2])


def test_python_and_c_integer_division() -> None:
    a, b = np.array([-7, 7, -7, 7, 6], np.int64), np.array([2, -2, -2, 2, 3], np.int64)
    assert op("Divide", 1).run(a, b)[0].tolist() == [-4, -4, 3, 3, 2]
    assert op("Divide", 1, m_pythondiv="false").run(a, b)[0].tolist() == [-3, -3, 3, 3, 2]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, ml_dtypes.bfloat16])
def test_maximum_and_minimum_pick_like_openvino(dtype) -> None:
    nan = float("nan")
    a = np.array([nan, 1.0, 0.0, -0.0, nan, 2.0], dtype)
    b = np.array([1.0, nan, -0.0, 0.0, nan, 3.0], dtype)
    for name, better in [("Maximum", np.greater), ("Minimum", np.less)]:
        got = op(name, 1).run(a, b)[0].astype(np.float64)
        want = np.where(better(a.astype(np.float64), b.astype(np.float64)), a.astype(np.float64), b.astype(np.float64))
        assert np.array_equal(np.signbit(got), np.signbit(want)) and np.array_equal(got, want, equal_nan=True), name
    relu = op("ReLU", 1).run(np.array([nan, -0.0, -1.0, 2.0], dtype))[0].astype(np.float64)
    assert relu.tolist() == [0.0, 0.0, 0.0, 2.0] and not np.signbit(relu).any()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("size", [7, 5000, 70001])  # the small path; rows of the constant with a ragged end
def test_maximum_minimum_relu_blockwise_pick_like_openvino(dtype, size: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bound (a Const of one value) takes the fast path through rows of the
    constant, two tensors of one shape go block by block; both must choose as
    the elementwise rule does, zeros' signs included."""
    monkeypatch.setattr(parallel, "MIN_PARALLEL_BYTES", 0)  # threads even on these small tensors
    rng = np.random.default_rng(size)
    x = rng.choice(np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1e-45, -1e-45, 3.0, -3.0]), size).astype(dtype)
    others = [np.full(shape, value, dtype) for value in (0.0, -0.0, 3.0, float("nan"), -np.inf, -0.0)  # -0.0 again: after +0.0 is cached
              for shape in ((), (1,))] + [x[::-1].copy()]  # and a whole tensor, blockwise too
    for b in others:
        for name, better in [("Maximum", np.greater), ("Minimum", np.less)]:
            got = op(name, 1).run(x, b)[0]
            want = np.where(better(x, b), x, b)
            assert np.array_equal(np.signbit(got), np.signbit(want)), (name, b.ravel()[:1])
            assert np.array_equal(got, want, equal_nan=True), (name, b.ravel()[:1])
    for data in (x, x[::2]):
        relu = op("ReLU", 1).run(data)[0]
        assert np.array_equal(relu, np.where(data > 0, data, 0)) and not np.signbit(relu).any()


def test_integer_arithmetic_propagates_value_bounds() -> None:
    """A Reshape target computed as ShapeOf * 2 - 1 keeps its bounds."""
    i64 = dtypes.get("i64")
    lo, hi = np.array([2, 3], np.int64), np.array([4, 3], np.int64)
    shape = TensorInfo(parse_partial_shape("[2]"), i64, bounds=(lo, hi))
    two = TensorInfo(parse_partial_shape("[]"), i64, np.array(2, np.int64))
    one = TensorInfo(parse_partial_shape("[]"), i64, np.array(1, np.int64))
    mul = op("Multiply", 1)
    doubled = mul.fold([shape, two], mul.inference([shape, two]))[0]
    sub = op("Subtract", 1)
    out = sub.fold([doubled, one], sub.inference([doubled, one]))[0]
    assert [x.tolist() for x in out.bounds()] == [[3, 5], [7, 5]]


def test_matmul_shape_inference_on_partial_shapes() -> None:
    f32 = dtypes.get("f32")

    def infer(a: str, b: str, **attrs: str) -> str:
        ins = [TensorInfo(parse_partial_shape(a), f32), TensorInfo(parse_partial_shape(b), f32)]
        return str(op("MatMul", 1, **attrs).inference(ins).outputs[0].shape)

    assert infer("[?,3,4]", "[2..5,1,4,6]") == "[2..5,?,3,6]"
    assert infer("[4]", "[3,4,5]") == "[3,5]"
    assert infer("[2,3,4]", "[4]") == "[2,3]"
    assert infer("[2,4,3]", "[5,4]", transpose_a="true", transpose_b="true") == "[2,3,5]"
    assert infer("[...]", "[4,5]") == "[...]"
