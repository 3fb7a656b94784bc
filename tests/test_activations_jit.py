"""The compiled activations (the ``jit`` extra) give the NumPy kernels' f32
results bit for bit, specials included, on tensors large enough to take them;
small tensors never import Numba; IREXEC_JIT=0 turns them off."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from numba_probe import run_reporting_numba

import irexec
from irexec.kernels import activations_compiled
from irexec.model.builder import IRBuilder

pytest.importorskip("numba")

SHAPE = (1, 8, 64, 80)  # 40,960 elements: above activations_compiled.MIN_SIZE
SPECIALS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, -1e-40, 3e38, -3e38, -3.0, 3.0, -5.5, -10.0, -20.0, -37.5, 88.0, -88.0]

# (op, opset, attributes, extra inputs)
OPS = {
    "swish": ("Swish", "opset4", {}, []),
    "swish-beta": ("Swish", "opset4", {}, [np.float32(0.37)]),
    "sigmoid": ("Sigmoid", "opset1", {}, []),
    "relu": ("Relu", "opset1", {}, []),
    "hswish": ("HSwish", "opset4", {}, []),
    "hsigmoid": ("HSigmoid", "opset5", {}, []),
    "gelu2": ("Gelu", "opset2", {}, []),
    "gelu7-erf": ("Gelu", "opset7", {"approximation_mode": "ERF"}, []),
    "gelu7-tanh": ("Gelu", "opset7", {"approximation_mode": "TANH"}, []),
}

KERNEL = {"swish": "swish", "swish-beta": "swish", "sigmoid": "sigmoid", "relu": "relu", "hswish": "hswish", "hsigmoid": "hsigmoid",
          "gelu2": "gelu_erf", "gelu7-erf": "gelu_erf", "gelu7-tanh": "gelu_tanh"}


def _model(tmp_path: Path, name: str, shape: tuple[int, ...] = SHAPE) -> str:
    op, opset, attrs, extra = OPS[name]
    b = IRBuilder()
    p = b.parameter("x", ",".join(map(str, shape)), "f32")
    b.result(b.layer(op, opset, [p, *[b.const(e) for e in extra]], attrs), name="out")
    xml = str(tmp_path / f"{name}.xml")
    b.write(xml)
    return xml


def _data(shape: tuple[int, ...] = SHAPE) -> np.ndarray:
    rng = np.random.default_rng(5)
    x = (rng.standard_normal(int(np.prod(shape))) * 4).astype(np.float32)
    x[:len(SPECIALS)] = SPECIALS
    x[len(SPECIALS):len(SPECIALS) + 2000] = rng.uniform(-40, 40, 2000)
    return x.reshape(shape)


@pytest.mark.parametrize("name", sorted(OPS))
def test_compiled_gives_the_numpy_kernels_bits(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    xml, x = _model(tmp_path, name), _data()
    calls: list[str] = []
    real = activations_compiled.run
    ran: list[bool] = []

    def spy(kernel: str, *a: object, **k: object) -> object:
        out = real(kernel, *a, **k)  # type: ignore[arg-type]
        calls.append(kernel), ran.append(out is not None)
        return out

    monkeypatch.setattr(activations_compiled, "run", spy)
    assert activations_compiled._kernels() is not None  # loaded, as a CNN's first large Swish would (ReLU never loads them)
    compiled = irexec.run(xml, {"x": x})["out"]
    assert calls == [KERNEL[name]] and ran == [True], "the compiled kernel did not run"
    monkeypatch.setattr(activations_compiled, "_module", None)
    plain = irexec.run(xml, {"x": x})["out"]
    assert compiled.dtype == np.float32 and compiled.shape == SHAPE
    np.testing.assert_array_equal(compiled, plain)  # NaN where NaN, and every other bit
    assert np.array_equal(np.signbit(compiled), np.signbit(plain))


def test_exp_matches_libm_to_a_few_f64_ulps() -> None:
    import numba

    from irexec.kernels.activations_jit import exp64

    @numba.njit
    def each(t: np.ndarray, out: np.ndarray) -> None:
        for i in range(t.shape[0]):
            out[i] = exp64(t[i])

    t = np.concatenate([np.linspace(-708, 708, 400_001), np.random.default_rng(0).uniform(-3, 3, 100_000)])
    got = np.empty_like(t)
    each(t, got)
    assert np.max(np.abs(got - np.exp(t)) / np.exp(t)) < 1e-15
    special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 709.5, -709.5, 1e-300])
    out = np.empty_like(special)
    each(special, out)
    np.testing.assert_array_equal(out, [np.nan, np.inf, 0.0, 1.0, 1.0, np.inf, 0.0, 1.0])


_run = run_reporting_numba


def test_cli_runs_a_large_swish_compiled_and_the_same_without(tmp_path: Path) -> None:
    xml = _model(tmp_path, "swish")
    np.savez(tmp_path / "in.npz", x=_data())
    assert _run(xml, tmp_path / "in.npz", tmp_path / "jit.npz", "1") == "NUMBA True"
    assert _run(xml, tmp_path / "in.npz", tmp_path / "plain.npz", "0") == "NUMBA False"
    np.testing.assert_array_equal(np.load(tmp_path / "jit.npz")["out"], np.load(tmp_path / "plain.npz")["out"])


def test_a_small_gelu_does_not_import_numba(tmp_path: Path) -> None:
    xml = _model(tmp_path, "gelu7-erf", (1, 24, 128))  # a small transformer's 3,072 elements
    np.savez(tmp_path / "in.npz", x=_data((1, 24, 128)))
    assert _run(xml, tmp_path / "in.npz", tmp_path / "o.npz", "1") == "NUMBA False"


def test_a_large_relu_alone_does_not_import_numba(tmp_path: Path) -> None:
    # A plain CNN's one-off run would pay Numba's import for a fraction of a millisecond a ReLU
    xml = _model(tmp_path, "relu")
    np.savez(tmp_path / "in.npz", x=_data())
    assert _run(xml, tmp_path / "in.npz", tmp_path / "o.npz", "1") == "NUMBA False"
    np.testing.assert_array_equal(np.load(tmp_path / "o.npz")["out"], np.where(_data() > 0, _data(), np.float32(0)))  # NaN and -0 give +0


def test_once_loaded_smaller_tensors_run_compiled_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shape = (1, 96, 14, 14)  # 18,816 elements: MobileNet's HSwish after its first, larger one
    xml, x = _model(tmp_path, "hswish", shape), _data(shape)
    calls: list[int] = []
    real = activations_compiled._kernels
    monkeypatch.setattr(activations_compiled, "_kernels", lambda: calls.append(1) or real())
    monkeypatch.setattr(activations_compiled, "_module", False)  # not loaded yet
    plain = irexec.run(xml, {"x": x})["out"]
    assert not calls
    activations_compiled._module = real()  # as a larger activation of the same run would have
    compiled = irexec.run(xml, {"x": x})["out"]
    assert calls
    np.testing.assert_array_equal(compiled, plain)


@pytest.mark.parametrize("name", sorted(OPS))
def test_once_loaded_a_few_values_run_compiled_with_the_same_bits(name: str, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # a squeeze-and-excite block's [1, C, 1, 1]: its ReLU and HSigmoid took 7-20 us through NumPy's passes
    shape = (1, len(SPECIALS) + 7, 1, 1)
    xml = _model(tmp_path, name, shape)
    x = np.concatenate([SPECIALS, [0.25, -0.75, 2.5, -2.5, 6.0, -6.0, 1e-3]]).astype(np.float32).reshape(shape)
    assert activations_compiled._kernels() is not None  # loaded, as a larger layer of the same run would have
    ran: list[bool] = []
    real = activations_compiled.run
    monkeypatch.setattr(activations_compiled, "run", lambda *a, **k: ran.append((r := real(*a, **k)) is not None) or r)
    compiled = irexec.run(xml, {"x": x})["out"]
    assert ran == [True], "the compiled kernel did not run"
    monkeypatch.setattr(activations_compiled, "_module", None)
    plain = irexec.run(xml, {"x": x})["out"]
    assert compiled.tobytes() == plain.tobytes()
