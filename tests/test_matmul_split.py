"""A 2-D product of a weight stored [N, K] and read transposed (a linear layer; a big
one, an LLM's output projection, cut into pieces for the threads) gives each element
the dot product an f64 evaluation gives, to f32 accumulation error, whatever the
thread count and however the product is oriented for BLAS, in a row-major output."""

from __future__ import annotations

import numpy as np
import pytest

from irexec.ops.matmul.matmul import MatMul1


@pytest.mark.parametrize("threads", ["1", "2", "4"])
@pytest.mark.parametrize("rows", [1, 7, 32])
@pytest.mark.parametrize("columns", [20000, 300])
def test_linear_product_in_pieces(rows, columns, threads, monkeypatch):
    monkeypatch.setenv("IREXEC_NUM_THREADS", threads)
    rng = np.random.default_rng(rows)
    a = rng.normal(size=(1, rows, 576)).astype(np.float32)
    w = rng.normal(size=(columns, 576)).astype(np.float32)  # used transposed, as a tied embedding is
    (out,) = MatMul1(attrs={"transpose_a": False, "transpose_b": True}).run(a, w)
    exact = a.astype(np.float64) @ w.astype(np.float64).T
    assert out.shape == (1, rows, columns) and out.dtype == np.float32 and out.flags.c_contiguous
    bound = 576 * np.finfo(np.float32).eps * (np.abs(a).astype(np.float64) @ np.abs(w).astype(np.float64).T)
    assert np.all(np.abs(out - exact) <= bound)
