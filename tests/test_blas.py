"""BLAS threading during a run: one thread, except for the duration of a
big product (or as IREXEC_BLAS_THREADS says), and the caller's setting back
after the run."""

from __future__ import annotations

import numpy as np
import pytest

import irexec
from irexec import blas, parallel

pytestmark = pytest.mark.skipif(blas.api() is None, reason="NumPy's BLAS exposes no thread setter")


def threads() -> int:
    return blas.api()[1]()  # type: ignore[index]


def test_a_run_keeps_blas_on_one_thread_but_gives_a_big_product_the_threads(monkeypatch):
    monkeypatch.delenv(blas.ENV_VAR, raising=False)
    monkeypatch.setenv(parallel.ENV_VAR, "2")
    before = threads()
    with blas.limited():
        assert threads() == 1
        with blas.product(blas.PARALLEL_MACS - 1):
            assert threads() == 1
        with blas.product(blas.PARALLEL_MACS):
            assert threads() == 2
        assert threads() == 1
    assert threads() == before


@pytest.mark.parametrize("setting, inside", [("1", 1), ("3", 3)])
def test_a_set_thread_count_holds_for_every_product(monkeypatch, setting, inside):
    monkeypatch.setenv(blas.ENV_VAR, setting)
    monkeypatch.setenv(parallel.ENV_VAR, "2")
    with blas.limited():
        with blas.product(1 << 40):
            assert threads() == inside


def test_a_big_matmul_in_a_model_gives_the_same_result_on_any_thread_count(write_ir, builder, monkeypatch):
    x = builder.parameter("x", [256, 512], "f32")
    w = np.random.default_rng(0).standard_normal((512, 128)).astype(np.float32)
    builder.result(builder.layer("MatMul", "opset1", [x, builder.const(w)]), "y")
    model = irexec.load(write_ir(builder))
    data = np.random.default_rng(1).standard_normal((256, 512)).astype(np.float32)
    assert data.size * 128 >= blas.PARALLEL_MACS
    got = {}
    for setting in ("", "1"):
        monkeypatch.setenv(blas.ENV_VAR, setting)
        got[setting] = irexec.run(model, {"x": data})["y"]
    np.testing.assert_allclose(got[""], data.astype(np.float64) @ w, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(got[""], got["1"], rtol=1e-5, atol=1e-4)  # f32 sums in another order
