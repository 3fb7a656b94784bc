"""Decompressed weights are kept between runs within an eighth of the memory
limit; a limit below the weights' f32 size still runs (what is not kept is
computed again by every run), and a weight is decompressed in about its own
memory.  (Without the jit extra's kernels: with them, a linear layer's weight is
never decompressed whole, tests/test_compressed_linear.py.)"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("openvino")
import openvino as ov  # noqa: E402
import openvino.opset8 as o8  # noqa: E402

from irexec import IRExecError  # noqa: E402
from irexec.api.load import load  # noqa: E402
from irexec.api.session import Session  # noqa: E402
from irexec.executor.cache import run_cache  # noqa: E402
from irexec.executor.engine import run_model  # noqa: E402
from irexec.kernels import compressed_linear  # noqa: E402


@pytest.fixture(autouse=True)
def _f32_weights(monkeypatch):
    monkeypatch.setattr(compressed_linear, "_kernels", None)  # as without Numba, or with IREXEC_JIT=0

ROWS, COLS = 4096, 512  # each weight: 8 MiB of f32


def _compressed_linear(tmp_path, layers: int = 2, group: bool = False) -> str:
    """x [2,COLS] through ``layers`` linear layers whose u8 weights are decompressed as NNCF
    writes it: Convert f16 -> Subtract zero point -> Multiply scale (-> Reshape) -> Convert f32."""
    rng = np.random.default_rng(0)
    x = o8.parameter([2, COLS], np.float32, name="x")
    h = x
    for i in range(layers):
        if group:  # u8 [ROWS, COLS/64, 64] with a zero point and scale per group of 64, then Reshape
            w = o8.constant(rng.integers(0, 255, (ROWS, COLS // 64, 64), dtype=np.uint8))
            zp = o8.constant(rng.integers(0, 255, (ROWS, COLS // 64, 1), dtype=np.uint8))
            scale = o8.constant(rng.uniform(1e-3, 1e-2, (ROWS, COLS // 64, 1)).astype(np.float16))
        else:
            w = o8.constant(rng.integers(0, 255, (ROWS, COLS), dtype=np.uint8))
            zp = o8.constant(rng.integers(0, 255, (ROWS, 1), dtype=np.uint8))
            scale = o8.constant(rng.uniform(1e-3, 1e-2, (ROWS, 1)).astype(np.float16))
        sub = o8.subtract(o8.convert(w, "f16"), o8.convert(zp, "f16"))
        weight = o8.multiply(sub, scale)
        if group:
            weight = o8.reshape(weight, o8.constant(np.int64([ROWS, COLS])), False)
        h = o8.matmul(h, o8.convert(weight, "f32"), False, True)
        if i + 1 < layers:
            h = o8.slice(h, [0, 0], [2, COLS], [1, 1])
    path = str(tmp_path / "model.xml")
    ov.save_model(ov.Model([o8.result(h)], [x], "compressed"), path, compress_to_fp16=False)
    return path


def test_a_weight_is_decompressed_in_about_its_own_memory(tmp_path):
    path = _compressed_linear(tmp_path, layers=1, group=True)
    x = {"x": np.ones((2, COLS), np.float32)}
    expected = ov.Core().compile_model(path, "CPU", {"INFERENCE_PRECISION_HINT": "f32"}).create_infer_request().infer(x)[0]
    got = next(iter(run_model(load(path), x, max_memory=11 << 20).outputs.values()))  # the weight: 8 MiB of f32
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * np.abs(expected).max())
    with pytest.raises(IRExecError) as e:
        run_model(load(path), x, max_memory=6 << 20)
    assert e.value.code == "memory-limit"


def test_weights_are_kept_within_the_limit_and_recomputed_beyond_it(tmp_path):
    path = _compressed_linear(tmp_path, layers=2)
    x = {"x": np.ones((2, COLS), np.float32)}
    with Session(path) as s:  # default limit: both weights kept after the first run
        first = s.run(x).outputs
        kept = run_cache(s.model)
        assert len(kept.rewired) == 2 and all(end in kept.outputs for end in kept.rewired)
        np.testing.assert_array_equal(s.run(x).outputs[s.output_names[0]], first[s.output_names[0]])
    with Session(path, max_memory=12 << 20) as s:  # below the weights' 16 MiB of f32: none kept, each run recomputes
        for _ in range(2):
            np.testing.assert_array_equal(s.run(x).outputs[s.output_names[0]], first[s.output_names[0]])
        kept = run_cache(s.model)
        assert not any(end in kept.outputs for end in kept.rewired)
