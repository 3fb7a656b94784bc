"""The harness's own comparisons: ulps on every float width, f64 included."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from conformance.harness import Tol, assert_close, ulp_distance


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, ml_dtypes.bfloat16])
def test_ulps_count_units_in_the_last_place(dtype):
    want = np.array([1.0, -1.0, 0.0, 1e-3, -2.5], dtype)
    one_up = np.nextafter(want.astype(np.float64), np.inf).astype(dtype) if dtype == np.float64 else None
    if one_up is None:  # step the bits of the narrower types directly
        bits = want.view(f"u{np.dtype(dtype).itemsize}").copy()
        bits += np.where(want.astype(np.float64) < 0, -1, 1).astype(bits.dtype) * (want.astype(np.float64) != 0)
        bits[2] = 1  # the smallest positive denormal next to +0
        one_up = bits.view(dtype)
    assert (ulp_distance(one_up, want) == 1).all()
    assert_close(one_up, want, Tol(ulps=1), "one ulp")
    with pytest.raises(AssertionError, match="beyond 0 ulp"):
        assert_close(one_up, want, Tol(ulps=0), "zero ulps")


def test_opposite_signs_and_huge_values_do_not_wrap():
    big = np.array([np.finfo(np.float64).max], np.float64)
    assert ulp_distance(big, -big)[0] == np.iinfo(np.int64).max
    tiny = np.array([5e-324], np.float64)
    assert ulp_distance(tiny, -tiny)[0] == 2
    with pytest.raises(AssertionError):
        assert_close(big, -big, Tol(ulps=4), "far apart")


def test_a_table_without_tol_takes_its_op_classs():
    """The harness reads each op's accuracy class (docs/accuracy.md) for the tolerance of its tables."""
    from conformance.harness import OpTable

    assert OpTable("Reshape", "opset1", cases=[]).tol == Tol.EXACT  # exact
    assert OpTable("Add", "opset1", cases=[]).tol == Tol.EXACT  # correctly rounded: the reference's bits
    assert OpTable("Exp", "opset1", cases=[]).tol == Tol(ulps=1)  # transcendental
    with pytest.raises(AssertionError, match="MatMul-1 is accumulating: the table states its tol"):
        OpTable("MatMul", "opset1", cases=[])
    assert OpTable("MatMul", "opset1", cases=[], tol=Tol(rtol=1e-5)).tol == Tol(rtol=1e-5)


@pytest.mark.parametrize("op, tol", [("Gather", Tol(ulps=1)), ("SliceScatter", Tol(rtol=1e-6)), ("Sqrt", Tol(ulps=1)),
                                     ("Tanh", Tol(ulps=2)), ("Tanh", Tol(rtol=1e-6))])
def test_a_table_looser_than_its_op_class_is_refused(op, tol):
    from conformance.harness import OpTable
    from irexec.ops.framework.registry import versions_of

    with pytest.raises(AssertionError, match=f"is looser than {versions_of(op)[-1].display()} promises"):
        OpTable(op, "opset16", cases=[], tol=tol)
