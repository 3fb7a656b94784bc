"""Power of f32 data by a constant 2 (an RMSNorm's square) is one f32 multiply: the same
bits as the f64 computation rounded once, for every kind of f32 value."""

from __future__ import annotations

import numpy as np

from irexec.model.builder import IRBuilder


def _model(write_ir, exponent: np.ndarray, shape: str = "4,1024") -> str:
    b = IRBuilder()
    x = b.parameter("x", shape, "f32")
    b.result(b.layer("Power", "opset1", [x, b.const(exponent)], name="square", names=["y"]))
    return write_ir(b)


def _values() -> np.ndarray:
    rng = np.random.default_rng(7)
    bits = rng.integers(0, 2**32, 4 * 1024, dtype=np.uint64).astype(np.uint32)
    x = bits.view(np.float32).copy()
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-23, 1.8e19, 1.9e19, 3.4e38, 1.0842021e-19, 1.5, -3.0]
    x[:len(special)] = np.array(special, np.float32)
    return x.reshape(4, 1024)


def _want(x: np.ndarray, exponent: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.power(x.astype(np.float64), exponent.astype(np.float64)).astype(np.float32)


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(((a.view(np.uint32) == b.view(np.uint32)) | (np.isnan(a) & np.isnan(b))).all())


def test_square_matches_f64_rounded_once(run_cli, write_ir, save_npz, tmp_path):
    x = _values()
    for exponent in (np.array(2, np.float32), np.full((1, 1), 2, np.float32)):
        out = tmp_path / "out.npz"
        r = run_cli("run", _model(write_ir, exponent), "--inputs", save_npz(x=x), "--output", out)
        assert r.exit_code == 0, r.output
        got = np.load(out)["y"]
        assert _same_bits(got, _want(x, exponent))


def test_other_exponents_and_broadcast_still_general(run_cli, write_ir, save_npz, tmp_path):
    x = np.abs(_values())
    for exponent in (np.array(3, np.float32), np.array(0.5, np.float32), np.full((2, 4, 1024), 2, np.float32)):
        out = tmp_path / "out.npz"
        r = run_cli("run", _model(write_ir, exponent), "--inputs", save_npz(x=x), "--output", out)
        assert r.exit_code == 0, r.output
        got = np.load(out)["y"]
        assert _same_bits(got, np.broadcast_to(_want(x, exponent), np.broadcast_shapes(x.shape, exponent.shape)))
