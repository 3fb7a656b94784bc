"""A program's small activations and MVNs run compiled (irexec/executor/compiled_steps.py): a
signature run often enough to get a program loads Numba's kernels once, where a
one-off run of a small model never imports Numba; the outputs stay the NumPy
kernels' bits."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numba_probe import _PROBE

from irexec.model.builder import IRBuilder

pytest.importorskip("numba")


def _gelu_block(tmp_path: Path, mode: str) -> str:
    """A tiny transformer's feed-forward: LayerNorm (MVN), MatMul, Gelu on [2, 12, 128], MatMul."""
    rng = np.random.default_rng(5)
    b = IRBuilder()
    x = b.parameter("x", [2, 12, 64])
    norm = b.layer("MVN", "opset6", [x, b.const(np.array([-1], np.int64))],
                   {"normalize_variance": "true", "eps": "1e-05", "eps_mode": "inside_sqrt"})
    up = b.layer("MatMul", "opset1", [norm, b.const((rng.standard_normal((128, 64)) * 0.3).astype(np.float32))],
                 {"transpose_a": "false", "transpose_b": "true"})
    g = b.layer("Gelu", "opset7", [up], {"approximation_mode": mode})
    down = b.layer("MatMul", "opset1", [g, b.const((rng.standard_normal((64, 128)) * 0.3).astype(np.float32))],
                   {"transpose_a": "false", "transpose_b": "true"})
    b.result(down, "out")
    xml = tmp_path / f"gelu-{mode}.xml"
    b.write(xml)
    return str(xml)


def _run(xml: str, inputs: Path, out: Path, jit: str, repeat: int) -> str:
    args = ["run", xml, "--inputs", str(inputs), "--output", str(out)] + (["--repeat", str(repeat)] if repeat else [])
    proc = subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True, text=True,
                          env={**os.environ, "IREXEC_JIT": jit}, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return [x for x in proc.stderr.splitlines() if x.startswith("NUMBA ")][-1]


@pytest.mark.parametrize("mode", ["ERF", "TANH"])
def test_repeated_runs_of_a_small_gelu_run_compiled_with_the_same_bits(tmp_path: Path, mode: str) -> None:
    xml = _gelu_block(tmp_path, mode)
    x = np.random.default_rng(3).standard_normal((2, 12, 64)).astype(np.float32)
    x.reshape(-1)[::53] = -0.0
    np.savez(tmp_path / "in.npz", x=x)
    assert _run(xml, tmp_path / "in.npz", tmp_path / "once.npz", "1", 0) == "NUMBA False"  # one run: no import
    assert _run(xml, tmp_path / "in.npz", tmp_path / "plain.npz", "0", 5) == "NUMBA False"
    assert _run(xml, tmp_path / "in.npz", tmp_path / "jit.npz", "1", 5) == "NUMBA True"  # the program loaded it
    once, plain, jit = (np.load(tmp_path / f"{n}.npz")["out"] for n in ("once", "plain", "jit"))
    assert jit.tobytes() == plain.tobytes() == once.tobytes()


def _pools(tmp_path: Path, dtype: str) -> str:
    """MaxPools over two spatial axes of every kind the compiled kernel takes: strides of 1
    and 2, dilations, uneven kernels, padding and ceil rounding, one whose indexes are read."""
    b = IRBuilder()
    x = b.parameter("x", [2, 3, 13, 12], dtype)
    kinds = [("opset1", "3,3", "2,2", None, "0,0", "0,0", "floor"),
             ("opset8", "2,3", "1,2", "2,1", "1,0", "0,2", "ceil"),
             ("opset14", "3,2", "2,1", "1,2", "1,1", "1,1", "ceil_torch"),
             ("opset8", "3,3", "3,3", "1,1", "0,0", "0,0", "ceil")]
    for index, (opset, kernel, strides, dilations, begin, end, rounding) in enumerate(kinds):
        attrs = {"strides": strides, "pads_begin": begin, "pads_end": end, "kernel": kernel,
                 "rounding_type": rounding, "auto_pad": "explicit"}
        if dilations is not None:
            attrs.update({"dilations": dilations, "index_element_type": "i64", "axis": "0"})
        pool = b.layer("MaxPool", opset, [x], attrs)
        b.result(pool, f"pooled{index}")
        if index == 1:
            b.result(b.outputs_of(pool)[1], "indexes")
    xml = tmp_path / f"pools-{dtype}.xml"
    b.write(xml)
    return str(xml)


@pytest.mark.parametrize("dtype", ["f32", "f64"])
def test_repeated_runs_of_max_pools_run_compiled_with_the_same_bits(tmp_path: Path, dtype: str) -> None:
    xml = _pools(tmp_path, dtype)
    x = np.random.default_rng(8).standard_normal((2, 3, 13, 12)).astype(dtype.replace("f", "float"))
    flat = x.reshape(-1)
    flat[::7] = -0.0  # ties of -0 and +0 in most windows: the sign NumPy's maximum picks
    flat[3::11] = 0.0
    flat[5::37] = np.nan
    flat[9::41] = np.inf
    flat[2::43] = -np.inf
    flat[:12] = np.nan  # a whole row of NaN: windows of NaN alone give the lowest value
    np.savez(tmp_path / "in.npz", x=x)
    assert _run(xml, tmp_path / "in.npz", tmp_path / "once.npz", "1", 0) == "NUMBA False"  # one run: no import
    assert _run(xml, tmp_path / "in.npz", tmp_path / "plain.npz", "0", 5) == "NUMBA False"
    assert _run(xml, tmp_path / "in.npz", tmp_path / "jit.npz", "1", 5) == "NUMBA True"  # the program loaded it
    once, plain, jit = (np.load(tmp_path / f"{n}.npz") for n in ("once", "plain", "jit"))
    assert sorted(jit.files) == sorted(plain.files) == ["indexes"] + [f"pooled{i}" for i in range(4)]
    for name in jit.files:
        assert jit[name].dtype == plain[name].dtype
        assert jit[name].tobytes() == plain[name].tobytes() == once[name].tobytes(), name


_MODULES_PROBE = _PROBE.replace('"NUMBA " + str("numba" in sys.modules)',
                                '"NUMBA " + str(sorted(m for m in sys.modules if m.endswith("_jit")))')


def test_repeated_runs_of_a_pooled_cnn_take_the_compiled_relu_too(tmp_path: Path) -> None:
    """Convolution -> ReLU -> MaxPool -> Convolution -> ReLU (SqueezeNet's start): once the
    program loads the compiled pooling, its ReLUs (applied in the convolutions' tiles) run
    compiled as well, with the NumPy kernels' bits."""
    rng = np.random.default_rng(11)
    b = IRBuilder()
    x = b.parameter("x", [1, 3, 23, 23])
    y = b.layer("Convolution", "opset1", [x, b.const(rng.standard_normal((8, 3, 3, 3)).astype(np.float32))],
                {"strides": "1,1", "pads_begin": "0,0", "pads_end": "0,0", "dilations": "1,1", "auto_pad": "explicit"})
    y = b.layer("ReLU", "opset1", [y])
    y = b.layer("MaxPool", "opset1", [y], {"strides": "2,2", "pads_begin": "0,0", "pads_end": "0,0", "kernel": "3,3",
                                           "rounding_type": "ceil", "auto_pad": "explicit"})
    y = b.layer("Convolution", "opset1", [y, b.const(rng.standard_normal((4, 8, 1, 1)).astype(np.float32))],
                {"strides": "1,1", "pads_begin": "0,0", "pads_end": "0,0", "dilations": "1,1", "auto_pad": "explicit"})
    b.result(b.layer("ReLU", "opset1", [y]), "out")
    xml = tmp_path / "cnn.xml"
    b.write(xml)
    data = rng.standard_normal((1, 3, 23, 23)).astype(np.float32)
    data.reshape(-1)[::13] = -0.0
    data.reshape(-1)[5::97] = np.float32(1e30)  # products overflow: inf - inf gives NaN for the ReLU
    data.reshape(-1)[7::89] = -np.float32(1e30)
    np.savez(tmp_path / "in.npz", x=data)
    loaded = {}
    for name, jit, repeat in (("once", "1", []), ("plain", "0", ["--repeat", "5"]), ("jit", "1", ["--repeat", "5"])):
        args = ["run", str(xml), "--inputs", str(tmp_path / "in.npz"), "--output", str(tmp_path / f"{name}.npz"), *repeat]
        proc = subprocess.run([sys.executable, "-c", _MODULES_PROBE, *args], capture_output=True, text=True,
                              env={**os.environ, "IREXEC_JIT": jit}, timeout=300)
        assert proc.returncode == 0, proc.stderr
        loaded[name] = [x for x in proc.stderr.splitlines() if x.startswith("NUMBA ")][-1]
    assert loaded["once"] == loaded["plain"] == "NUMBA []"  # one run, or IREXEC_JIT=0: nothing compiled
    assert "irexec.kernels.activations_jit" in loaded["jit"] and "irexec.kernels.pool_jit" in loaded["jit"]
    once, plain, jit = (np.load(tmp_path / f"{n}.npz")["out"] for n in ("once", "plain", "jit"))
    assert jit.tobytes() == plain.tobytes() == once.tobytes()
    assert np.isnan(data).sum() == 0 and (jit == 0).any()
