"""The one-row and few-row product by a big compressed weight is cut over threads by
output rows, each output element computed whole by one thread as one thread computes it:
the same bits for one thread and for several, by the API and by `irexec run`."""

from __future__ import annotations

import numpy as np
import pytest

from irexec.kernels import compressed_linear
from irexec.kernels.compressed_linear import CompressedWeight
from irexec.system import handoff, parallel

pytest.importorskip("numba")


def _weight(rng: np.random.Generator, n: int, k: int, bits: int, groups: int, signed: bool = False,
            entries: int = 0) -> CompressedWeight:
    """Random bytes as the .bin holds them, a zero point and a full f32 scale per row and group."""
    q = rng.integers(0, 256, (n, k * bits // 8), dtype=np.uint8)
    top = (1 << bits) - 1
    zero = rng.integers(0, top + 1, (n, groups)).astype(np.float32) - (top + 1) // 2 * signed
    scale = rng.uniform(1e-3, 1e-1, (n, groups)).astype(np.float32)
    table = rng.standard_normal(entries).astype(np.float32) if entries else None
    return CompressedWeight(q.view(np.int8) if signed and bits == 8 else q, bits, zero, scale, signed, table)


def _activations(rng: np.random.Generator, rows: int, k: int) -> np.ndarray:
    # magnitudes over six decades: a sum in another order rounds differently
    return (rng.standard_normal((rows, k)) * 10.0 ** rng.uniform(-3, 3, (rows, k))).astype(np.float32)


def _split_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of tasks of every fork of the compressed product (handoff.run) from now on."""
    calls: list[int] = []
    run = handoff.run
    monkeypatch.setattr(handoff, "run", lambda tasks: calls.append(len(tasks)) or run(tasks))
    return calls


@pytest.mark.parametrize("bits, signed, entries", [(8, False, 0), (8, True, 0), (4, False, 0), (4, True, 0), (4, False, 16),
                                                   (8, False, 256)], ids=["u8", "i8", "u4", "i4", "nf4", "f8"])
@pytest.mark.parametrize("groups", [1, 9])
@pytest.mark.parametrize("rows", [1, 3])
def test_one_thread_and_several_give_the_same_bits(monkeypatch, bits, signed, entries, groups, rows):
    monkeypatch.setattr(compressed_linear, "MIN_PARALLEL_WEIGHTS", 0)  # a small weight cut as a big one is
    rng = np.random.default_rng(bits * 100 + groups * 10 + rows)
    weight = _weight(rng, 1001, 576, bits, groups, signed, entries)
    a = _activations(rng, rows, 576)
    monkeypatch.setenv(parallel.ENV_VAR, "1")
    calls = _split_calls(monkeypatch)
    alone = weight.product(a)
    assert alone is not None and calls == []  # one thread: no hand-off at all
    for threads in (2, 3):
        monkeypatch.setenv(parallel.ENV_VAR, str(threads))
        got = weight.product(a)
        assert calls[-1] == threads  # cut, one contiguous span of rows a thread
        assert got is not None and got.tobytes() == alone.tobytes()


def test_a_weight_is_cut_from_its_number_of_values_not_of_bytes(monkeypatch):
    """The product is bound by the arithmetic on each value: a u4 weight of 4M values (2 MiB)
    is cut like a u8 one of 4M values (4 MiB); one of fewer values is not."""
    monkeypatch.setenv(parallel.ENV_VAR, "2")
    rng = np.random.default_rng(0)
    calls = _split_calls(monkeypatch)
    big, small = (_weight(rng, n, 512, 4, 8) for n in (8192, 8190))
    assert big.shape[0] * big.shape[1] == compressed_linear.MIN_PARALLEL_WEIGHTS and big.q.nbytes == 2 << 20
    a = _activations(rng, 1, 512)
    small.product(a)
    assert calls == []
    big.product(a)
    assert calls == [2]


def _big_model(tmp_path, group: bool) -> str:
    """A linear layer of 4M weights as NNCF writes it: u8 per row (4 MiB), or u4 in groups of
    64 (2 MiB), with zero points."""
    ov = pytest.importorskip("openvino")
    import openvino.opset8 as o8

    rng = np.random.default_rng(3)
    n, k = 8192, 512
    x = o8.parameter([-1, k], np.float32, name="x")
    shape = (n, k // 64, 64) if group else (n, k)
    top = 15 if group else 255
    values = rng.integers(0, top + 1, shape).astype(np.uint8)
    if group:
        flat = values.reshape(-1)
        w = ov.op.Constant(ov.Tensor(flat[0::2] | (flat[1::2] << 4), ov.Shape(list(shape)), ov.Type.u4))
    else:
        w = o8.constant(values)
    zero = o8.convert(o8.constant(rng.integers(0, top + 1, (*shape[:-1], 1)).astype(np.uint8)), "f16")
    scale = o8.constant(rng.uniform(1e-3, 1e-2, (*shape[:-1], 1)).astype(np.float16))
    weight = o8.multiply(o8.subtract(o8.convert(w, "f16"), zero), scale)
    if group:
        weight = o8.reshape(weight, o8.constant(np.int64([n, k])), False)
    y = o8.matmul(x, o8.convert(weight, "f32"), False, True)
    path = str(tmp_path / "model.xml")
    ov.save_model(ov.Model([o8.result(y)], [x], "linear"), path, compress_to_fp16=False)
    return path


@pytest.mark.parametrize("group", [False, True], ids=["u8-per-row", "u4-groups"])
def test_irexec_run_gives_the_same_bits_on_one_thread_and_two(tmp_path, run_cli, group):
    path = _big_model(tmp_path, group)
    rng = np.random.default_rng(4)
    for rows in (1, 3):  # a decode step's row, a few rows
        inputs = tmp_path / f"x{rows}.npz"
        np.savez(inputs, x=_activations(rng, rows, 512))
        outputs = {}
        for threads in ("1", "2"):
            out = tmp_path / f"out{rows}-{threads}.npz"
            r = run_cli.subprocess("run", path, "--inputs", inputs, "-o", out, "--quiet",
                                   env={parallel.ENV_VAR: threads})
            assert r.returncode == 0, r.stderr
            with np.load(out) as saved:
                (outputs[threads],) = saved.values()
        assert outputs["1"].shape == (rows, 8192) and np.isfinite(outputs["1"]).all()
        assert outputs["1"].tobytes() == outputs["2"].tobytes()
