"""Depthwise convolution summed along whole output rows (stride 1 on the last
axis, at least ``ROW_RUNS_FROM`` wide, channels last) gives what the per-channel
runs give, bit for bit on integer-valued data, and what OpenVINO CPU gives."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from irexec.kernels import depthwise_compiled, windows
from irexec.kernels.windows import conv_nd


@pytest.fixture(autouse=True)
def _numpy_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests compare the NumPy paths: the compiled kernel (the ``jit``
    extra, tests/test_depthwise_jit.py) would take the wide cases over."""
    monkeypatch.setattr(depthwise_compiled, "_planes", None)

# (input [N, C, *sp], groups, out/in channels per group, kernel, strides, dilations, pads begin, end)
CASES = {
    "2d-pads": ((1, 80, 9, 16), 80, (1, 1), (3, 3), (1, 1), (1, 1), (1, 1), (1, 1)),
    "2d-stride-rows-dilated": ((2, 72, 11, 20), 72, (1, 1), (3, 5), (2, 1), (1, 2), (2, 0), (0, 3)),
    "2d-multiplier": ((1, 40, 6, 18), 40, (2, 1), (2, 3), (1, 1), (1, 1), (0, 1), (1, 1)),
    "2d-two-inputs-per-group": ((1, 80, 5, 17), 40, (2, 2), (3, 3), (1, 1), (1, 1), (1, 1), (1, 1)),
    "2d-few-channels": ((1, 8, 7, 15), 8, (1, 1), (3, 3), (1, 1), (1, 1), (1, 1), (1, 1)),
    "1d": ((2, 96, 30), 96, (1, 1), (5,), (1,), (1,), (2,), (2,)),
    "3d": ((1, 72, 4, 5, 16), 72, (1, 1), (2, 3, 3), (1, 2, 1), (1, 1, 1), (1, 1, 1), (0, 1, 1)),
}


def _case(name: str) -> tuple[np.ndarray, np.ndarray, tuple, tuple, tuple, tuple[tuple, tuple]]:
    shape, g, (og, cg), kernel, strides, dilations, begin, end = CASES[name]
    rng = np.random.default_rng(sorted(CASES).index(name))
    x = rng.integers(-8, 8, shape).astype(np.float32)
    w = rng.integers(-4, 4, (g, og, cg, *kernel)).astype(np.float32)
    out = tuple((n + b + e - d * (k - 1) - 1) // s + 1
                for n, b, e, d, k, s in zip(shape[2:], begin, end, dilations, kernel, strides))
    return x, w, strides, dilations, out, (begin, end)


@pytest.mark.parametrize("name", sorted(CASES))
def test_row_runs_match_channel_runs_exactly(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    x, w, strides, dilations, out, pads = _case(name)
    assert windows._row_runs(w.shape[0] * w.shape[1], strides, out)  # the case takes the row path
    rows = conv_nd(x, w, w.shape[0], strides, dilations, out, x.dtype, pads)
    monkeypatch.setattr(windows, "ROW_RUNS_FROM", 1 << 30)
    monkeypatch.setattr(windows, "CHANNELS_LAST_FROM", 1)
    channels = conv_nd(x, w, w.shape[0], strides, dilations, out, x.dtype, pads)
    monkeypatch.setattr(windows, "CHANNELS_LAST_FROM", 1 << 30)
    monkeypatch.setattr(windows, "ROW_RUNS_CHANNELS_FROM", 1 << 30)
    first = conv_nd(x, w, w.shape[0], strides, dilations, out, x.dtype, pads)
    assert rows.shape == (x.shape[0], w.shape[0] * w.shape[1], *out)
    np.testing.assert_array_equal(rows, channels)
    np.testing.assert_array_equal(rows, first)


def test_row_runs_match_openvino(tmp_path: Path) -> None:
    ov = pytest.importorskip("openvino")
    import irexec
    from irexec.model.builder import IRBuilder

    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 96, 20, 28)).astype(np.float32)
    w = rng.standard_normal((96, 1, 1, 3, 3)).astype(np.float32)
    b = IRBuilder()
    p = b.parameter("x", "1,96,20,28")
    b.result(b.layer("GroupConvolution", "opset1", [p, b.const(w)],
                     {"strides": "1,1", "dilations": "1,1", "pads_begin": "1,1", "pads_end": "1,1"}))
    b.write(tmp_path / "m.xml")
    ours = next(iter(irexec.run(str(tmp_path / "m.xml"), {"x": x}).values()))
    theirs = ov.Core().compile_model(str(tmp_path / "m.xml"), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})({"x": x})[0]
    assert ours.shape == (1, 96, 20, 28)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)
