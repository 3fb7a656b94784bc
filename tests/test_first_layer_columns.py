"""A first layer's im2col columns built by a compiled kernel (kernels/im2col_jit.py): taken
only once another layer has loaded Numba, never importing it itself, and giving bit for bit
the outputs of the NumPy columns (the product and the fused ReLU are the same calls)."""

from __future__ import annotations

import numpy as np
import pytest
from numba_probe import run_reporting_numba

from irexec.kernels import conv_direct, windows
from irexec.model.builder import IRBuilder

pytest.importorskip("numba")

# (input [1, C, H, W], filters, kernel, strides, dilations, pads begin, end)
CASES = {
    "mobilenet-first": ((1, 3, 224, 224), 16, (3, 3), (2, 2), (1, 1), (1, 1), (1, 1)),
    "efficientnet-first": ((1, 3, 224, 224), 32, (3, 3), (2, 2), (1, 1), (0, 0), (1, 1)),
    "odd-sizes": ((1, 3, 23, 31), 8, (3, 3), (2, 2), (1, 1), (1, 1), (1, 1)),
    "odd-left-pad-dilated": ((1, 2, 20, 19), 5, (5, 3), (1, 2), (2, 1), (2, 1), (1, 2)),
    "stride-1-crop-end": ((1, 4, 17, 18), 7, (3, 4), (2, 1), (1, 2), (0, 3), (-1, 0)),
    "stride-3-rows": ((1, 3, 15, 16), 6, (2, 3), (3, 2), (1, 3), (1, 1), (2, 2)),
    "pads-past-the-kernel": ((1, 1, 4, 5), 5, (2, 2), (2, 2), (1, 1), (3, 4), (3, 4)),
    "squeezenet-expand-16": ((1, 16, 55, 55), 64, (3, 3), (1, 1), (1, 1), (1, 1), (1, 1)),
    "squeezenet-expand-64": ((1, 64, 13, 13), 256, (3, 3), (1, 1), (1, 1), (1, 1), (1, 1)),
}


def _conv(x: np.ndarray, w: np.ndarray, case: tuple, relu: bool) -> np.ndarray:
    shape, _, kernel, strides, dilations, begin, end = case
    out = tuple((n + b + e - d * (k - 1) - 1) // s + 1
                for n, b, e, d, k, s in zip(shape[2:], begin, end, dilations, kernel, strides))
    return windows.conv_nd(x, w[None], 1, strides, dilations, out, x.dtype, (begin, end), relu=relu)


@pytest.mark.parametrize("relu", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(CASES))
def test_compiled_columns_give_the_numpy_columns_bits(name: str, dtype: type, relu: bool,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import numba  # noqa: F401  (loaded, as a model's compiled layers load it)

    case = CASES[name]
    rng = np.random.default_rng(sorted(CASES).index(name))
    x = rng.standard_normal(case[0]).astype(dtype)
    x.reshape(-1)[::53] = -0.0
    w = rng.standard_normal((case[1], case[0][1], *case[2])).astype(dtype)
    calls: list[bool] = []
    real = conv_direct.compiled_first_layer
    monkeypatch.setattr(windows, "compiled_first_layer", lambda *a: calls.append(real(*a)) or calls[-1])
    compiled = _conv(x, w, case, relu)
    assert calls == [True], "the layer did not take the compiled columns"
    monkeypatch.setattr(conv_direct, "_compiled_columns", lambda: None)
    numpy_path = _conv(x, w, case, relu)
    assert calls[-1] is False and compiled.shape == numpy_path.shape and compiled.size
    assert compiled.tobytes() == numpy_path.tobytes()


def _first_layer_model(after_depthwise: bool) -> IRBuilder:
    """An RGB image through a 3 x 3 stride-2 Convolution of 16 filters (MobileNet's first
    layer), after a depthwise layer that loads Numba or straight from the input."""
    rng = np.random.default_rng(3)
    b = IRBuilder()
    x = b.parameter("x", [1, 3, 40, 38])
    attrs = {"strides": "1,1", "dilations": "1,1", "pads_begin": "1,1", "pads_end": "1,1", "auto_pad": "explicit"}
    if after_depthwise:
        dw = rng.standard_normal((3, 1, 1, 3, 3)).astype(np.float32)
        x = b.layer("GroupConvolution", "opset1", [x, b.const(dw)], attrs)
    w = rng.standard_normal((16, 3, 3, 3)).astype(np.float32)
    y = b.layer("Convolution", "opset1", [x, b.const(w)], {**attrs, "strides": "2,2"})
    b.result(b.layer("ReLU", "opset1", [y]), "y")
    return b


@pytest.mark.parametrize("after_depthwise", [True, False])
def test_cli_outputs_the_same_bits_with_and_without_numba(write_ir, tmp_path, after_depthwise: bool) -> None:
    path = write_ir(_first_layer_model(after_depthwise))
    inputs = tmp_path / "in.npz"
    np.savez(inputs, x=np.random.default_rng(5).standard_normal((1, 3, 40, 38)).astype(np.float32))
    # the first layer never imports Numba itself: only the depthwise layer does
    assert run_reporting_numba(path, inputs, tmp_path / "jit.npz", "1") == f"NUMBA {after_depthwise}"
    assert run_reporting_numba(path, inputs, tmp_path / "nojit.npz", "0") == "NUMBA False"
    with np.load(tmp_path / "jit.npz") as jit, np.load(tmp_path / "nojit.npz") as nojit:
        assert jit["y"].shape == (1, 16, 20, 19)
        assert jit["y"].tobytes() == nojit["y"].tobytes()
