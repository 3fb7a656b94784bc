"""Small kernels decide what they would work out from their inputs' layout on every call
once per layout (irexec/ops/framework/shape_plans.py).  A plan made for one layout must
never serve another: one op instance fed shapes, dtypes and strides in turn gives, bit for
bit, what the general path gives each alone."""

from __future__ import annotations

import numpy as np

import irexec
from irexec.ops.matmul import matmul
from irexec.ops.matmul.matmul import MatMul1


def _general_product(a: np.ndarray, b: np.ndarray, ta: bool, tb: bool) -> np.ndarray:
    return matmul.product(np.swapaxes(a, -1, -2) if ta else a, np.swapaxes(b, -1, -2) if tb else b)


def _same(got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()  # bit for bit, NaN and -0 included


def test_matmul_plans_do_not_leak_across_layouts():
    rng = np.random.default_rng(0)
    for ta, tb in ((False, True), (False, False), (True, False)):
        op = MatMul1(attrs={"transpose_a": ta, "transpose_b": tb})
        cases = []
        for dtype in (np.float32, np.float64, np.float16, np.int32):
            for a_shape, k, n in (((2, 12), 64, 64), ((24,), 64, 1000), ((3, 5), 7, 9), ((1, 1), 64, 300)):
                a = (rng.standard_normal((*a_shape, k)) * 4).astype(dtype)
                b = (rng.standard_normal((n, k) if tb else (k, n)) * 4).astype(dtype)
                if ta:
                    a = np.ascontiguousarray(np.swapaxes(a, -1, -2))
                cases.append((a, b))
                if a.ndim > 2:  # the same shape, another layout: a strided view
                    wide = np.zeros((*a.shape[:-1], a.shape[-1] * 2), dtype)
                    wide[..., ::2] = a
                    cases.append((wide[..., ::2], b))
                cases.append((a, np.asfortranarray(b)))  # the same weight, stored the other way
        for _ in range(3):  # every layout in turn, each after the others made their plans
            for a, b in cases:
                plan = op.plan_for([a, b]).plan
                (got,) = op.compute(plan, a, b)
                _same(np.asarray(got), _general_product(a, b, ta, tb))


def test_a_linear_layer_fed_shapes_in_turn(builder, write_ir):
    """Through a model: a product of rows by a weight read transposed, with rows of any
    count; each signature gives what NumPy's product of the same layout gives."""
    rng = np.random.default_rng(1)
    w = rng.standard_normal((96, 64)).astype(np.float32)
    x = builder.parameter("x", "?,?,64")
    builder.result(builder.layer("MatMul", "opset1", [x, builder.const(w)],
                                 {"transpose_a": "false", "transpose_b": "true"}), "y")
    model = irexec.load(write_ir(builder))
    feeds = [rng.standard_normal(shape).astype(np.float32) for shape in ((2, 12, 64), (1, 1, 64), (4, 3, 64), (1, 40, 64))]
    for _ in range(4):
        for a in feeds:
            _same(irexec.run(model, {"x": a})["y"], matmul.product(a, w.T))


def test_attention_on_short_rows_is_the_row_by_row_softmax():
    """ScaledDotProductAttention's max over short score rows (taken across columns) gives,
    bit for bit, the softmax of the plain row-by-row max, -0, infinities and NaN included."""
    from irexec.ops.attention.scaled_dot_product_attention import ScaledDotProductAttention13

    def reference(q, k, v, mask, scale):  # the kernel's steps with NumPy's own row max
        scores = np.matmul(q, np.swapaxes(k, -1, -2))
        scores *= scale
        scores = scores + mask
        scores = scores - scores.max(axis=-1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(axis=-1, keepdims=True)
        return np.matmul(scores, v)

    rng = np.random.default_rng(2)
    op = ScaledDotProductAttention13(attrs={"causal": False})
    with np.errstate(all="ignore"):
        for lead, L, S in (((2, 4), 12, 12), ((1, 2), 1, 5), ((1, 8), 40, 32), ((1, 2), 16, 33), ((3,), 2, 1)):
            q, k, v = (rng.standard_normal((*lead, n, 16)).astype(np.float32) for n in (L, S, S))
            mask = rng.choice(np.array([0, -0.0, -np.inf, np.inf, np.nan, 3], np.float32), (*lead, L, S),
                              p=[0.6, 0.1, 0.1, 0.05, 0.05, 0.1])
            scale = np.array(0.25, np.float32)
            plan = op.plan_for([q, k, v, mask, scale]).plan
            (got,) = op.compute(plan, q, k, v, mask, scale)
            want = reference(q, k, v, mask, scale)
            assert got.dtype == want.dtype and got.shape == want.shape
            same = (got == want) | (np.isnan(got) & np.isnan(want))
            assert same.all() and np.array_equal(np.signbit(got[~np.isnan(got)]), np.signbit(want[~np.isnan(want)]))


def test_row_normalisations_keep_one_plan_per_shape():
    """MVN and SoftMax keep per shape whether their rows are one block; one op fed shapes,
    dtypes and axes in turn gives what a fresh op gives each alone."""
    from irexec.ops.normalization.normalization import MVN6, SoftMax8

    rng = np.random.default_rng(3)
    shapes = ((2, 12, 64), (1, 1, 64), (3, 4, 5), (2, 300, 600), (7,))
    for make, extra in ((lambda: MVN6(attrs={"normalize_variance": True, "eps": 1e-5, "eps_mode": "inside_sqrt"}),
                         lambda x: [np.array([-1], np.int64)]),
                        (lambda: SoftMax8(attrs={"axis": -1}), lambda x: [])):
        op = make()
        cases = [rng.standard_normal(s).astype(t) for s in shapes for t in (np.float32, np.float64, np.float16)]
        cases += [np.swapaxes(rng.standard_normal((64, 12)).astype(np.float32), 0, 1)]  # a strided view
        for _ in range(2):
            for x in cases:
                args = [x, *extra(x)]
                fresh = make()
                (want,) = fresh.compute(fresh.plan_for(args).plan, *args)
                (got,) = op.compute(op.plan_for(args).plan, *args)
                _same(got, want)
    mvn = MVN6(attrs={"normalize_variance": False, "eps": 0.0, "eps_mode": "inside_sqrt"})
    x = rng.standard_normal((4, 6, 8)).astype(np.float32)
    for axes in ([2], [1, 2], [0], [2], [0, 1, 2]):  # the same shape, other axes
        args = [x, np.array(axes, np.int64)]
        fresh = MVN6(attrs={"normalize_variance": False, "eps": 0.0, "eps_mode": "inside_sqrt"})
        _same(mvn.compute(mvn.plan_for(args).plan, *args)[0], fresh.compute(fresh.plan_for(args).plan, *args)[0])
