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


@pytest.mark.parametrize("columns", [32, 128])
def test_a_tall_product_is_cut_by_rows(columns, monkeypatch):
    """Many rows by few columns (a ConvNeXt's linear layer over 3,136 pixels) is multiplied
    as stored, cut by rows over the threads: the same values as on one thread, in a
    row-major output, each within the f32 accumulation bound."""
    from irexec.ops.matmul import matmul

    rng = np.random.default_rng(columns)
    a = rng.normal(size=(1, 56, 56, 160 - columns)).astype(np.float32)
    w = rng.normal(size=(columns, 160 - columns)).astype(np.float32)  # used transposed
    op = MatMul1(attrs={"transpose_a": False, "transpose_b": True})
    monkeypatch.setenv("IREXEC_NUM_THREADS", "1")
    (one,) = op.run(a, w)
    pieces: list[int] = []
    real = matmul.run_tasks
    monkeypatch.setattr(matmul, "run_tasks", lambda tasks, parts: pieces.append(len(tasks)) or real(tasks, parts))
    monkeypatch.setenv("IREXEC_NUM_THREADS", "2")
    (out,) = op.run(a, w)
    assert pieces and pieces[0] > 1, "the tall product was not cut by rows"
    assert out.shape == (1, 56, 56, columns) and out.flags.c_contiguous
    np.testing.assert_array_equal(out, one)
    exact = a.astype(np.float64) @ w.astype(np.float64).T
    bound = a.shape[-1] * np.finfo(np.float32).eps * (np.abs(a).astype(np.float64) @ np.abs(w).astype(np.float64).T)
    assert np.all(np.abs(out - exact) <= bound)
