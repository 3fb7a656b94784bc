"""The columns of an image model's first convolution (few input channels, strides 1 or 2)
made by a compiled kernel once another layer has imported Numba: the tiles and BLAS
products are the NumPy path's, so the outputs are bit for bit the same, padding, batch,
odd widths and f64 included; a model of such convolutions alone never imports Numba."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from numba_probe import run_reporting_numba

import irexec
from irexec.kernels import im2col_compiled
from irexec.model.builder import IRBuilder

pytest.importorskip("numba")

# (input, filters [O, C, KH, KW], strides, pads begin, end)
CASES = {
    "mobilenet-first": ((1, 3, 224, 224), (16, 3, 3, 3), (2, 2), (1, 1), (1, 1)),
    "pads-at-the-end-only": ((1, 3, 64, 65), (8, 3, 3, 3), (2, 2), (0, 0), (1, 1)),
    "batch-odd-widths": ((2, 3, 31, 29), (4, 3, 3, 3), (2, 2), (1, 1), (1, 1)),
    "one-channel-5x5-stride-1": ((1, 1, 20, 21), (5, 1, 5, 5), (1, 1), (2, 2), (2, 2)),
    "mixed-strides-uneven-pads": ((1, 4, 17, 18), (7, 4, 3, 2), (2, 1), (0, 1), (2, 0)),
    "7x7-beyond-the-data": ((1, 3, 9, 9), (4, 3, 7, 7), (2, 2), (3, 3), (3, 3)),
    "pads-wider-than-kernel-reach": ((1, 2, 5, 6), (3, 2, 3, 3), (2, 2), (2, 1), (0, 3)),
}


def _model(tmp_path: Path, case: tuple, etype: str, w: np.ndarray) -> str:
    shape, _, strides, begin, end = case
    b = IRBuilder()
    p = b.parameter("x", ",".join(map(str, shape)), etype)
    attrs = {"strides": ",".join(map(str, strides)), "pads_begin": ",".join(map(str, begin)),
             "pads_end": ",".join(map(str, end)), "dilations": "1,1", "auto_pad": "explicit"}
    b.result(b.layer("Convolution", "opset1", [p, b.const(w)], attrs), name="out")
    xml = str(tmp_path / "conv.xml")
    b.write(xml)
    return xml


@pytest.mark.parametrize("dtype", ["f32", "f64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_compiled_columns_give_the_numpy_paths_bits(name: str, dtype: str, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import numba  # noqa: F401 - as an earlier layer of the same run would have imported it

    case = CASES[name]
    rng = np.random.default_rng(sorted(CASES).index(name))
    np_type = np.float32 if dtype == "f32" else np.float64
    x = rng.standard_normal(case[0]).astype(np_type)
    w = rng.standard_normal(case[1]).astype(np_type)
    xml = _model(tmp_path, case, dtype, w)
    made: list[int] = []
    real = im2col_compiled.columns
    monkeypatch.setattr(im2col_compiled, "columns", lambda *a: made.append(1) or real(*a))
    compiled = irexec.run(xml, {"x": x})["out"]
    assert made, "the compiled columns were not made"
    monkeypatch.setattr(im2col_compiled, "_module", None)
    plain = irexec.run(xml, {"x": x})["out"]
    assert compiled.dtype == plain.dtype and compiled.shape == plain.shape
    assert compiled.tobytes() == plain.tobytes()


def test_many_channels_dilations_and_other_strides_stay_on_numpy() -> None:
    import numba  # noqa: F401

    x = np.zeros((1, 8, 16, 16), np.float32)
    out = np.zeros(1, np.float32)
    w = np.zeros((1, 4, 8, 3, 3), np.float32)
    assert not im2col_compiled.applies(x, w, (2, 2), (1, 1), ((1, 1), (1, 1)), out)  # 8 input channels
    w3 = np.zeros((1, 4, 3, 3, 3), np.float32)
    x3 = np.zeros((1, 3, 16, 16), np.float32)
    assert im2col_compiled.applies(x3, w3, (2, 2), (1, 1), ((1, 1), (1, 1)), out)
    assert not im2col_compiled.applies(x3, w3, (2, 2), (2, 2), ((1, 1), (1, 1)), out)  # dilated
    assert not im2col_compiled.applies(x3, w3, (3, 3), (1, 1), ((1, 1), (1, 1)), out)  # stride 3
    assert not im2col_compiled.applies(x3, w3, (2, 2), (1, 1), ((-1, 0), (1, 1)), out)  # a crop


def test_a_model_of_such_convolutions_alone_does_not_import_numba(tmp_path: Path) -> None:
    case = CASES["batch-odd-widths"]
    rng = np.random.default_rng(3)
    w = rng.standard_normal(case[1]).astype(np.float32)
    x = rng.standard_normal(case[0]).astype(np.float32)
    xml = _model(tmp_path, case, "f32", w)
    np.savez(tmp_path / "in.npz", x=x)
    assert run_reporting_numba(xml, tmp_path / "in.npz", tmp_path / "o.npz", "1") == "NUMBA False"
    assert np.load(tmp_path / "o.npz")["out"].tobytes() == irexec.run(xml, {"x": x})["out"].tobytes()
