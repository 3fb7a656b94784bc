"""Sums over trailing axes (ReduceMean, ReduceSum, ReduceL1 of a squeeze-and-excite
block) run compiled once another layer has imported Numba, with NumPy's pairwise
sums: the results are the NumPy kernel's bit for bit over row lengths, types,
signed zeros, NaN and inf; a model of reductions alone never imports Numba."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from numba_probe import run_reporting_numba

import irexec
from irexec.kernels import reduce_compiled
from irexec.model.builder import IRBuilder

pytest.importorskip("numba")

SPECIALS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, 3e38, -3e38]


def _model(tmp_path: Path, op: str, shape: tuple[int, ...], axes: list[int], etype: str = "f32", keep: bool = True) -> str:
    b = IRBuilder()
    p = b.parameter("x", ",".join(map(str, shape)), etype)
    b.result(b.layer(op, "opset4" if op == "ReduceL1" else "opset1", [p, b.const(np.array(axes, np.int64))],
                     {"keep_dims": "true" if keep else "false"}), name="out")
    xml = str(tmp_path / f"{op}.xml")
    b.write(xml)
    return xml


def _data(shape: tuple[int, ...], dtype: type, specials: bool) -> np.ndarray:
    rng = np.random.default_rng(sum(shape))
    x = rng.standard_normal(int(np.prod(shape))) * rng.uniform(0.1, 100)
    if specials:
        x[:len(SPECIALS)] = SPECIALS  # NaN and inf propagate as NumPy's do
    x[-3:] = -0.0  # a row of -0.0 where rows are short: NumPy's sum starts from +0
    return x.astype(dtype).reshape(shape)


# (op, shape, axes): MobileNet's and EfficientNet's squeeze-and-excite means over 7 x 7 maps,
# rows shorter than 8, rows not a multiple of 8, a whole pairwise block of 128, the last axis alone
CASES = {
    "se-7x7": ("ReduceMean", (1, 576, 7, 7), [2, 3]),
    "se-8x16": ("ReduceMean", (1, 240, 8, 16), [-1, -2]),
    "rows-of-3": ("ReduceMean", (2, 50, 3), [2]),
    "rows-of-1": ("ReduceSum", (4, 9, 1, 1), [2, 3]),
    "rows-of-37": ("ReduceSum", (3, 40, 37), [2]),
    "all-axes": ("ReduceSum", (5, 23), [0, 1]),
    "l1": ("ReduceL1", (1, 16, 11, 11), [2, 3]),
}
# rows longer than reduce_compiled.MAX_ROW stay on NumPy (as fast per value there)
LONG = {
    "se-14x14": ("ReduceMean", (1, 240, 14, 14), [2, 3]),
    "se-112x112": ("ReduceMean", (1, 8, 112, 112), [2, 3]),
}


@pytest.mark.parametrize("dtype", ["f32", "f64"])
@pytest.mark.parametrize("case", sorted(CASES) + sorted(LONG))
def test_compiled_gives_the_numpy_kernels_bits(case: str, dtype: str, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import numba  # noqa: F401 - as a larger layer of the same run would have imported it

    op, shape, axes = CASES[case] if case in CASES else LONG[case]
    xml = _model(tmp_path, op, shape, axes, dtype, keep=case != "rows-of-37")
    real = reduce_compiled.trailing_sum
    ran: list[bool] = []

    def spy(*a: object) -> object:
        r = real(*a)  # type: ignore[arg-type]
        ran.append(r is not None)
        return r

    for specials in (False, True):
        x = _data(shape, np.float32 if dtype == "f32" else np.float64, specials)
        ran.clear()
        monkeypatch.setattr(reduce_compiled, "trailing_sum", spy)
        compiled = irexec.run(xml, {"x": x})["out"]
        assert ran == [case in CASES], "the compiled kernel did not run where it should, or ran where it should not"
        monkeypatch.setattr(reduce_compiled, "trailing_sum", lambda *a: None)
        plain = irexec.run(xml, {"x": x})["out"]
        monkeypatch.undo()
        assert compiled.dtype == plain.dtype and compiled.shape == plain.shape
        assert compiled.tobytes() == plain.tobytes()  # NaN where NaN, signs of zero, every bit


def test_leading_or_middle_axes_stay_on_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    import numba  # noqa: F401

    x = _data((4, 6, 5), np.float32, False)
    assert reduce_compiled.trailing_sum(x, (1,), True) is None
    assert reduce_compiled.trailing_sum(x, (0, 1), False) is None
    assert reduce_compiled.trailing_sum(np.asfortranarray(x), (2,), False) is None
    assert reduce_compiled.trailing_sum(x.astype(np.float16), (2,), False) is None
    got = reduce_compiled.trailing_sum(x, (1, 2), True)
    assert got is not None and got.tobytes() == np.sum(x, axis=(1, 2), keepdims=True).tobytes()


def test_a_model_of_reductions_alone_does_not_import_numba(tmp_path: Path) -> None:
    xml = _model(tmp_path, "ReduceMean", (1, 576, 7, 7), [2, 3])
    x = _data((1, 576, 7, 7), np.float32, True)
    np.savez(tmp_path / "in.npz", x=x)
    assert run_reporting_numba(xml, tmp_path / "in.npz", tmp_path / "o.npz", "1") == "NUMBA False"
    want = (np.sum(x, axis=(2, 3), keepdims=True) / np.float32(49)).astype(np.float32)
    assert np.load(tmp_path / "o.npz")["out"].tobytes() == want.tobytes()
