"""The compiled depthwise convolution (the ``jit`` extra): the same sums as the
NumPy paths, bit for bit on integer-valued data and in tap order on any data;
Numba imported by the first depthwise layer a process runs, not before, and
IREXEC_JIT=0 turns it off."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from numba_probe import run_reporting_numba

from irexec.kernels import depthwise_compiled
from irexec.kernels.windows import conv_nd
from irexec.model.builder import IRBuilder

pytest.importorskip("numba")

# (input [N, C, H, W], kernel, strides, dilations, pads begin, end)
CASES = {
    "3x3-pads": ((1, 32, 17, 19), (3, 3), (1, 1), (1, 1), (1, 1), (1, 1)),
    "5x5-stride-2": ((2, 24, 15, 14), (5, 5), (2, 2), (1, 1), (2, 2), (2, 2)),
    "stride-3-1-dilated": ((1, 8, 20, 11), (3, 2), (3, 1), (2, 3), (0, 2), (1, 0)),
    "crop-end": ((1, 5, 9, 9), (3, 3), (2, 2), (1, 1), (1, 0), (-1, -2)),
    "no-pads-wide": ((1, 3, 6, 40), (2, 4), (1, 2), (1, 1), (0, 0), (0, 0)),
    "one-row": ((1, 4, 1, 13), (1, 3), (1, 1), (1, 1), (0, 1), (0, 1)),
    "7x7": ((1, 6, 20, 18), (7, 7), (1, 1), (1, 1), (3, 3), (3, 3)),  # ConvNeXt's kernel
    # MobileNet's stride-2 layers: an odd left pad puts a row's first value in phase 1; odd and even widths
    "3x3-stride-2-odd-pad": ((1, 16, 23, 31), (3, 3), (2, 2), (1, 1), (1, 1), (1, 1)),
    "3x3-stride-2-even-width": ((1, 9, 28, 30), (3, 3), (2, 2), (1, 1), (1, 1), (0, 0)),
    # nine taps in one pass: dilated and strided, and a 1 x 9 kernel (its taps in one row)
    "3x3-dilated-stride-2": ((1, 10, 40, 44), (3, 3), (2, 2), (2, 2), (2, 2), (1, 1)),
    "1x9": ((1, 6, 5, 40), (1, 9), (1, 1), (1, 1), (0, 4), (0, 4)),
    # kernel rows of five taken two at a time: an even count of rows, dilated, strided along x
    "4x5-dilated": ((1, 5, 30, 40), (4, 5), (1, 2), (2, 1), (1, 2), (2, 2)),
    "rows-of-7-strided-dilated": ((1, 4, 23, 40), (2, 7), (2, 2), (1, 2), (1, 3), (0, 2)),
}


def _conv(x: np.ndarray, w: np.ndarray, case: tuple) -> np.ndarray:
    shape, kernel, strides, dilations, begin, end = case
    out = tuple((n + b + e - d * (k - 1) - 1) // s + 1
                for n, b, e, d, k, s in zip(shape[2:], begin, end, dilations, kernel, strides))
    return conv_nd(x, w, shape[1], strides, dilations, out, x.dtype, (begin, end))


def _both(x: np.ndarray, w: np.ndarray, case: tuple, monkeypatch: pytest.MonkeyPatch) -> tuple[np.ndarray, np.ndarray]:
    assert depthwise_compiled.compiled_planes() is not None
    monkeypatch.setattr(depthwise_compiled, "COMPILED_FROM_WIDTH", 1)  # every geometry, however narrow
    calls = []
    real = depthwise_compiled.run
    monkeypatch.setattr(depthwise_compiled, "run", lambda *a: calls.append(real(*a)) or calls[-1])
    compiled = _conv(x, w, case)
    assert calls == [True], "the case did not take the compiled kernel"
    monkeypatch.setattr(depthwise_compiled, "_planes", None)
    return compiled, _conv(x, w, case)


@pytest.mark.parametrize("name", sorted(CASES))
def test_compiled_matches_numpy_exactly_on_integers(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    case = CASES[name]
    rng = np.random.default_rng(sorted(CASES).index(name))
    x = rng.integers(-8, 8, case[0]).astype(np.float32)
    w = rng.integers(-4, 4, (case[0][1], 1, 1, *case[1])).astype(np.float32)
    compiled, numpy_path = _both(x, w, case, monkeypatch)
    assert compiled.shape == numpy_path.shape and compiled.size
    np.testing.assert_array_equal(compiled, numpy_path)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["5x5-stride-2", "stride-3-1-dilated"])
def test_compiled_matches_numpy_on_random_data(name: str, dtype: type, monkeypatch: pytest.MonkeyPatch) -> None:
    case = CASES[name]
    rng = np.random.default_rng(7)
    x = rng.standard_normal(case[0]).astype(dtype)
    w = rng.standard_normal((case[0][1], 1, 1, *case[1])).astype(dtype)
    compiled, numpy_path = _both(x, w, case, monkeypatch)
    assert compiled.dtype == dtype
    # the taps added in the same order: equal up to the order NumPy's einsum may pick
    np.testing.assert_allclose(compiled, numpy_path, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-6)


def _both_channels_last(x: np.ndarray, w: np.ndarray, case: tuple,
                        monkeypatch: pytest.MonkeyPatch) -> tuple[np.ndarray, np.ndarray]:
    """The channels-last kernel's result (every geometry taken as narrow) and the NumPy paths'."""
    assert depthwise_compiled.compiled_channels_last() is not None
    monkeypatch.setattr(depthwise_compiled, "COMPILED_FROM_WIDTH", 1 << 30)
    monkeypatch.setattr(depthwise_compiled, "CHANNELS_LAST_FROM", 1)
    calls = []
    real = depthwise_compiled.run
    monkeypatch.setattr(depthwise_compiled, "run", lambda *a: calls.append(real(*a)) or calls[-1])
    compiled = _conv(x, w, case)
    assert calls == [True], "the case did not take the compiled kernel"
    monkeypatch.setattr(depthwise_compiled, "_channels_last", None)
    return compiled, _conv(x, w, case)


@pytest.mark.parametrize("name", sorted(CASES))
def test_channels_last_matches_numpy_exactly_on_integers(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    case = CASES[name]
    rng = np.random.default_rng(sorted(CASES).index(name) + 50)
    x = rng.integers(-8, 8, case[0]).astype(np.float32)
    w = rng.integers(-4, 4, (case[0][1], 1, 1, *case[1])).astype(np.float32)
    compiled, numpy_path = _both_channels_last(x, w, case, monkeypatch)
    assert compiled.shape == numpy_path.shape and compiled.size
    np.testing.assert_array_equal(compiled, numpy_path)


# (input, kernel, strides, dilations, pads begin, end): EfficientNet's and MobileNet's 7 x 7 layers
NARROW = {
    "7x7-5x5": ((1, 576, 7, 7), (5, 5), (1, 1), (1, 1), (2, 2), (2, 2)),
    "7x7-3x3-batch-2": ((2, 96, 7, 7), (3, 3), (1, 1), (1, 1), (1, 1), (1, 1)),
    "14-to-7-stride-2": ((1, 72, 14, 14), (5, 5), (2, 2), (1, 1), (2, 2), (2, 2)),
    "convnext-7x7": ((1, 40, 7, 7), (7, 7), (1, 1), (1, 1), (3, 3), (3, 3)),
    "4-wide-kernel-row-2": ((1, 16, 6, 6), (3, 2), (1, 1), (2, 1), (1, 0), (1, 1)),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(NARROW))
def test_channels_last_matches_numpy_on_random_data(name: str, dtype: type, monkeypatch: pytest.MonkeyPatch) -> None:
    """Narrow maps take the channels-last kernel by default; the taps in kernel order:
    bit for bit the einsum's at stride 1, within f32 accumulation error where the NumPy
    path sums a strided layer's taps phase by phase."""
    case = NARROW[name]
    rng = np.random.default_rng(9)
    x = rng.standard_normal(case[0]).astype(dtype)
    w = rng.standard_normal((case[0][1], 1, 1, *case[1])).astype(dtype)
    calls = []
    real = depthwise_compiled.run
    monkeypatch.setattr(depthwise_compiled, "run", lambda *a: calls.append(real(*a)) or calls[-1])
    compiled = _conv(x, w, case)
    assert calls == [True] and compiled.dtype == dtype
    monkeypatch.setattr(depthwise_compiled, "_channels_last", None)
    numpy_path = _conv(x, w, case)
    if case[2] == (1, 1):
        assert compiled.tobytes() == numpy_path.tobytes()
    else:
        np.testing.assert_allclose(compiled, numpy_path, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-6)


@pytest.mark.parametrize(("width", "stride", "channels", "kernel"),
                         [(14, 1, 96, "planes"), (13, 1, 96, "channels-last"), (14, 2, 96, "planes"),
                          (7, 2, 96, "channels-last"), (7, 1, 8, "channels-last"), (7, 1, 4, None)])
def test_the_kernel_by_width_and_channels(width: int, stride: int, channels: int, kernel: str | None,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """From 14 wide the planes kernel; narrower, channels last from 8 channels; fewer stay on NumPy."""
    case = ((1, channels, 12, width * stride), (3, 3), (1, stride), (1, 1), (1, 1), (1, 1))
    ran: list[str] = []
    planes, last = depthwise_compiled.compiled_planes(), depthwise_compiled.compiled_channels_last()
    assert planes is not None and last is not None
    monkeypatch.setattr(depthwise_compiled, "_planes", lambda *a: ran.append("planes") or planes(*a))
    monkeypatch.setattr(depthwise_compiled, "_channels_last", lambda *a: ran.append("channels-last") or last(*a))
    x = np.ones(case[0], np.float32)
    out = _conv(x, np.ones((channels, 1, 1, 3, 3), np.float32), case)
    assert out.shape[-1] == width and set(ran) == ({kernel} if kernel else set())
    np.testing.assert_array_equal(out[0, :, 1:-1, 1:-1], 9)  # inside the padding: nine taps of ones


def _depthwise_model(tmp_path: Path) -> tuple[str, str, np.ndarray]:
    rng = np.random.default_rng(11)
    b = IRBuilder()
    p = b.parameter("x", "1,16,64,64", "f32")  # 32 wide at stride 2: compiled
    w = rng.integers(-3, 4, (16, 1, 1, 3, 3)).astype(np.float32)
    y = b.layer("GroupConvolution", "opset1", [p, b.const(w)],
                {"strides": "2,2", "dilations": "1,1", "pads_begin": "1,1", "pads_end": "1,1"})
    b.result(y, name="out")
    xml = str(tmp_path / "model.xml")
    b.write(xml)
    x = rng.integers(-5, 6, (1, 16, 64, 64)).astype(np.float32)
    np.savez(tmp_path / "inputs.npz", x=x)
    # the expected sums, straight from the definition
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    want = np.zeros((1, 16, 32, 32), np.float32)
    for ky in range(3):
        for kx in range(3):
            want += padded[:, :, ky:ky + 63:2, kx:kx + 63:2] * w[:, 0, 0, ky, kx][None, :, None, None]
    return xml, str(tmp_path / "inputs.npz"), want


@pytest.mark.parametrize("jit", ["1", "0"])
def test_a_depthwise_layer_runs_compiled_and_imports_numba_then(tmp_path: Path, jit: str) -> None:
    xml, inputs, want = _depthwise_model(tmp_path)
    out = tmp_path / "out.npz"
    imported = run_reporting_numba(xml, inputs, out, jit)
    assert imported == ("NUMBA True" if jit == "1" else "NUMBA False")
    got = np.load(out)["out"]
    np.testing.assert_array_equal(got, want)


def test_a_model_without_depthwise_layers_does_not_import_numba(tmp_path: Path) -> None:
    b = IRBuilder()
    p = b.parameter("x", "1,4,8,8", "f32")
    w = np.ones((4, 4, 3, 3), np.float32)
    b.result(b.layer("Convolution", "opset1", [p, b.const(w)],
                     {"strides": "1,1", "dilations": "1,1", "pads_begin": "1,1", "pads_end": "1,1"}), name="out")
    b.write(tmp_path / "m.xml")
    np.savez(tmp_path / "in.npz", x=np.ones((1, 4, 8, 8), np.float32))
    assert run_reporting_numba(tmp_path / "m.xml", tmp_path / "in.npz", tmp_path / "o.npz", "1") == "NUMBA False"
    assert json.dumps(np.load(tmp_path / "o.npz")["out"].shape) == "[1, 4, 8, 8]"
