"""The compiled MVN rows (the ``jit`` extra) give the NumPy kernel's results bit
for bit (NumPy's pairwise sums, the same roundings) over row lengths, axes, eps
modes and types, on tensors large enough to take them; a small MVN never imports
Numba, and IREXEC_JIT=0 turns the kernel off."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from numba_probe import run_reporting_numba

import irexec
from irexec.kernels import mvn_compiled
from irexec.model.builder import IRBuilder

pytest.importorskip("numba")

SPECIALS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, 3e38, -3e38]


def _model(tmp_path: Path, shape: tuple[int, ...], axes: list[int], attrs: dict[str, str], etype: str = "f32") -> str:
    b = IRBuilder()
    p = b.parameter("x", ",".join(map(str, shape)), etype)
    b.result(b.layer("MVN", "opset6", [p, b.const(np.array(axes, np.int64))], attrs), name="out")
    xml = str(tmp_path / "mvn.xml")
    b.write(xml)
    return xml


def _data(shape: tuple[int, ...], dtype: type) -> np.ndarray:
    rng = np.random.default_rng(sum(shape))
    x = rng.standard_normal(int(np.prod(shape))) * 3 + 1.5
    x[:len(SPECIALS)] = SPECIALS  # the first rows: NaN and inf propagate as NumPy's do
    x[100:300] = 7.25  # a constant row or two: variance zero, eps alone
    return x.astype(dtype).reshape(shape)


def _compare(xml: str, x: np.ndarray, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[bool] = []
    real = mvn_compiled.run
    monkeypatch.setattr(mvn_compiled, "run", lambda *a: calls.append(real(*a)) or calls[-1])
    compiled = irexec.run(xml, {"x": x})["out"]
    assert calls and all(calls), "the compiled kernel did not run"
    monkeypatch.setattr(mvn_compiled, "_module", None)
    plain = irexec.run(xml, {"x": x})["out"]
    assert compiled.dtype == x.dtype and compiled.shape == x.shape
    assert compiled.tobytes() == plain.tobytes()  # NaN where NaN, signs of zero, every bit


# (shape, axes): ConvNeXt's LayerNorm channels last (rows of 32, 64, 96, 768: pairwise halves from 129),
# rows shorter than 8 (a plain sum), rows not a multiple of 8, and the reduced axes moved last
CASES = {
    "convnext-32": ((1, 56, 56, 32), [3]),
    "convnext-64": ((1, 28, 28, 64), [-1]),
    "96": ((1, 20, 20, 96), [3]),
    "768": ((1, 7, 7, 768), [3]),
    "rows-of-5": ((1, 80, 100, 5), [3]),
    "rows-of-37": ((3, 40, 37), [2]),
    "rows-of-200": ((2, 100, 200), [2]),
    "rows-of-1031": ((40, 1031), [1]),
    "two-axes": ((1, 16, 48, 48), [2, 3]),
    "channels-first": ((1, 64, 32, 32), [1]),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("mode", ["inside_sqrt", "outside_sqrt", "mean-only"])
def test_compiled_gives_the_numpy_kernels_bits(case: str, mode: str, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    shape, axes = CASES[case]
    attrs = {"normalize_variance": "false" if mode == "mean-only" else "true", "eps": "1e-6",
             "eps_mode": "inside_sqrt" if mode == "mean-only" else mode}
    _compare(_model(tmp_path, shape, axes, attrs), _data(shape, np.float32), monkeypatch)


def test_f64_rows_compiled_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shape = (1, 28, 28, 64)
    xml = _model(tmp_path, shape, [3], {"normalize_variance": "true", "eps": "1e-5", "eps_mode": "inside_sqrt"}, "f64")
    _compare(xml, _data(shape, np.float64), monkeypatch)


def test_close_to_an_f64_evaluation(tmp_path: Path) -> None:
    shape = (1, 56, 56, 32)
    x = _data(shape, np.float32)[:, 1:]  # without the specials' rows
    x = np.ascontiguousarray(x)
    xml = _model(tmp_path, x.shape, [3], {"normalize_variance": "true", "eps": "1e-6", "eps_mode": "inside_sqrt"})
    got = irexec.run(xml, {"x": x})["out"].astype(np.float64)
    d = x.astype(np.float64) - x.astype(np.float64).mean(axis=-1, keepdims=True)
    want = d / np.sqrt((d * d).mean(axis=-1, keepdims=True) + 1e-6)
    assert np.max(np.abs(got - want)) < 1e-5


def test_small_blocks_stay_on_numpy_until_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    x = np.ones((64, 32), np.float32)  # 2,048 elements: below MIN_SIZE
    monkeypatch.setattr(mvn_compiled, "_module", False)
    assert not mvn_compiled.run(x, np.empty_like(x), True, 1e-6, True)
    assert mvn_compiled._module is False  # not even asked for
    big = np.ones((mvn_compiled.MIN_SIZE // 32, 32), np.float32)
    assert mvn_compiled.run(big, np.empty_like(big), True, 1e-6, True)
    assert mvn_compiled.run(x, np.empty_like(x), True, 1e-6, True)  # once loaded, small blocks too
    assert not mvn_compiled.run(x.astype(np.float16), np.empty(x.shape, np.float16), True, 1e-6, True)


_run = run_reporting_numba


def test_cli_runs_a_large_mvn_compiled_and_the_same_without(tmp_path: Path) -> None:
    shape = (1, 56, 56, 32)
    xml = _model(tmp_path, shape, [3], {"normalize_variance": "true", "eps": "1e-6", "eps_mode": "inside_sqrt"})
    np.savez(tmp_path / "in.npz", x=_data(shape, np.float32))
    assert _run(xml, tmp_path / "in.npz", tmp_path / "jit.npz", "1") == "NUMBA True"
    assert _run(xml, tmp_path / "in.npz", tmp_path / "plain.npz", "0") == "NUMBA False"
    assert np.load(tmp_path / "jit.npz")["out"].tobytes() == np.load(tmp_path / "plain.npz")["out"].tobytes()


def test_a_small_mvn_does_not_import_numba(tmp_path: Path) -> None:
    shape = (1, 24, 128)  # a small transformer's LayerNorm: 3,072 elements
    xml = _model(tmp_path, shape, [2], {"normalize_variance": "true", "eps": "1e-5", "eps_mode": "inside_sqrt"})
    np.savez(tmp_path / "in.npz", x=_data(shape, np.float32))
    assert _run(xml, tmp_path / "in.npz", tmp_path / "o.npz", "1") == "NUMBA False"
