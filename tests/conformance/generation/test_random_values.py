"""RandomUniform-8 and Multinomial-13 values: support, shape, dtype,
determinism for a fixed seed and the distribution's rough shape."""

from __future__ import annotations

import numpy as np

from irexec.base import dtypes
from irexec.ops.generation.random import Multinomial13, RandomUniform8


def uniform(out: str, lo, hi, shape, g=3, o=4):
    op = RandomUniform8(None, {"output_type": dtypes.get(out), "global_seed": g, "op_seed": o})
    return op.run(np.array(shape, np.int64), lo, hi)[0]


def test_uniform_support_shape_dtype_and_determinism():
    a = uniform("f32", np.float32(-2), np.float32(3), [50, 40])
    assert a.shape == (50, 40) and a.dtype == np.float32
    assert a.min() >= -2 and a.max() < 3 and abs(float(a.mean()) - 0.5) < 0.1
    np.testing.assert_array_equal(a, uniform("f32", np.float32(-2), np.float32(3), [50, 40]))
    assert not np.array_equal(a, uniform("f32", np.float32(-2), np.float32(3), [50, 40], o=5))


def test_uniform_integers_cover_the_half_open_range():
    a = uniform("i32", np.int32(-3), np.int32(4), [2000])
    assert a.dtype == np.int32 and set(np.unique(a).tolist()) == set(range(-3, 4))


def test_uniform_f16_stays_below_maxval():
    a = uniform("f16", np.float16(0), np.float16(0.001), [5000])
    assert a.dtype == np.float16 and (a < np.float16(0.001)).all() and (a >= 0).all()


def test_uniform_zero_seeds_draw_fresh_values():
    a = uniform("f64", np.float64(0), np.float64(1), [64], g=0, o=0)
    b = uniform("f64", np.float64(0), np.float64(1), [64], g=0, o=0)
    assert not np.array_equal(a, b)


def multinomial(probs, n, replace, log=False, out="i64"):
    op = Multinomial13(None, {"convert_type": dtypes.get(out), "with_replacement": replace, "log_probs": log,
                              "global_seed": 1, "op_seed": 2})
    return op.run(probs, np.array(n, np.int64))[0]


def test_multinomial_with_replacement_follows_the_probabilities():
    probs = np.array([[0.1, 0.0, 0.9], [1.0, 1.0, 2.0]], np.float32)  # unnormalised rows are fine
    s = multinomial(probs, 4000, True)
    assert s.shape == (2, 4000) and s.dtype == np.int64
    assert not (s[0] == 1).any()
    assert abs((s[0] == 2).mean() - 0.9) < 0.03 and abs((s[1] == 2).mean() - 0.5) < 0.04
    np.testing.assert_array_equal(s, multinomial(probs, 4000, True))


def test_multinomial_without_replacement_draws_distinct_classes():
    probs = np.log(np.array([[0.5, 0.2, 0.2, 0.1]] * 30, np.float32))
    s = multinomial(probs, 4, False, log=True, out="i32")
    assert s.dtype == np.int32 and s.shape == (30, 4)
    assert all(sorted(row) == [0, 1, 2, 3] for row in s.tolist())


def test_uniform_shape_from_a_parameter_is_checked_and_run(tmp_path):
    import irexec
    from irexec.model.builder import IRBuilder

    b = IRBuilder()
    shape = b.parameter("shape", [2], "i64")
    y = b.layer("RandomUniform", "opset8", [shape, b.const(np.float32(1)), b.const(np.float32(3))],
                {"output_type": "f32", "global_seed": "1", "op_seed": "2"})
    b.result(y)
    b.write(tmp_path / "m.xml")
    assert not irexec.check(str(tmp_path / "m.xml")).errors
    out = next(iter(irexec.run(str(tmp_path / "m.xml"), {"shape": np.array([3, 5], np.int64)}).values()))
    assert out.shape == (3, 5) and out.dtype == np.float32 and out.min() >= 1 and out.max() < 3
