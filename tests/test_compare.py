"""Comparing outputs with a reference: exactness, NaN, dtypes, tolerances and
the "smallest tolerance that passes" hint."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irexec.api.comparison import Tolerance, compare_outputs, compare_tensor
from irexec.base.errors import CompareError, UsageError
from irexec.cli.options import parse_tolerance


def test_exact_when_asked_one_ulp_is_a_mismatch():
    a = np.array([1.0, 2.0, 3.0], np.float32)
    b = a.copy()
    b[1] = np.nextafter(b[1], np.float32(3))
    assert compare_tensor("y", a, a.copy(), atol=0, rtol=0).ok
    c = compare_tensor("y", a, b, atol=0, rtol=0)
    assert c.status == "mismatch" and c.mismatches == 1 and c.worst_index == (1,)
    assert c.code == "compare-mismatch"
    assert "differ beyond exact (atol=0, rtol=0), as given" in c.summary()
    assert compare_tensor("y", a, b).ok  # the f32 default lets an ulp pass


@pytest.mark.parametrize(("dtype", "scale", "rtol"), [(np.float32, 1e-4, 1e-5), (np.float64, 1e-4, 1e-5),
                                                      (np.float16, 1e-2, 1e-2), (ml_dtypes.bfloat16, 8e-2, 8e-2),
                                                      (np.int32, 0, 0), (np.uint8, 0, 0), (np.bool_, 0, 0)])
def test_defaults_by_element_type(dtype, scale, rtol):
    ref = np.array([4, 0, 1], dtype) if dtype is not np.bool_ else np.array([1, 0, 1], dtype)
    c = compare_tensor("y", ref, ref.copy())
    atol = scale * float(np.max(np.abs(ref.astype(np.float64))))  # scaled by the largest |ref|
    assert (c.atol, c.rtol, c.tolerance_from) == (pytest.approx(atol), rtol, "default")
    if scale:  # just inside passes, just outside fails
        f = np.float64
        inside = (np.array([4 + 0.9 * (atol + 4 * rtol), 0.9 * atol, 1], f)).astype(dtype)
        outside = (np.array([4, 1.5 * atol, 1], f)).astype(dtype)
        assert compare_tensor("y", inside, ref).ok
        c = compare_tensor("y", outside, ref)
        assert not c.ok and f"x max|ref| 4), rtol={rtol:g}, the {np.dtype(dtype).name} default" in c.summary()
    else:
        other = ref.copy()
        other[1] = 1 if dtype is np.bool_ else ref[1] + 1
        c = compare_tensor("y", other, ref)
        assert not c.ok and f"exact (atol=0, rtol=0), the {np.dtype(dtype).name} default" in c.summary()


def test_the_default_atol_follows_the_reference_scale():
    """An error of 1e-4 is within tolerance on logits near 12 and far outside on outputs near 1e-3."""
    big = np.array([12.0, -3.0, 0.0], np.float32)
    assert compare_tensor("y", big + np.float32(1e-4), big).ok
    small = big * np.float32(1e-4)
    assert not compare_tensor("y", small + np.float32(1e-5), small).ok
    zeros = np.zeros(3, np.float32)
    assert compare_tensor("y", zeros, zeros).atol == pytest.approx(1e-4)  # as if the scale were 1


def test_one_tolerance_given_the_other_by_type():
    ref = np.array([100.0, 0.0], np.float32)
    run = np.array([100.0005, 0.0], np.float32)
    assert compare_tensor("y", run, ref, atol=0).ok  # rtol 1e-5 of 100 is 1e-3
    c = compare_tensor("y", run, ref, atol=0, rtol=0)
    assert not c.ok
    c = compare_tensor("y", np.array([100.01, 0], np.float32), ref, atol=0)
    assert "atol=0 as given, rtol=1e-05 by the float32 default" in c.summary()
    # the API: None and a mapping without a global value leave the type's default
    report = compare_outputs({"y": run, "i": np.array([1], np.int64)}, {"y": ref, "i": np.array([1], np.int64)},
                             atol={"y": 0})
    assert report.ok and report["i"].tolerance_text() == "exact (atol=0, rtol=0), the int64 default"


def test_nan_equals_nan_only_at_the_same_positions():
    a = np.array([np.nan, 1.0, np.inf, -np.inf], np.float32)
    assert compare_tensor("y", a, a.copy()).ok
    moved = np.array([1.0, np.nan, np.inf, -np.inf], np.float32)
    c = compare_tensor("y", a, moved, atol=1e9, rtol=1e9)
    assert c.status == "mismatch" and c.mismatches == 2 and c.unfixable == 2
    assert c.suggested_atol is None and c.suggested_rtol is None
    assert "no tolerance passes" in c.summary()


def test_opposite_infinities_differ():
    c = compare_tensor("y", np.array([np.inf]), np.array([-np.inf]), atol=1.0)
    assert c.status == "mismatch" and c.max_abs_error == np.inf


def test_dtype_and_shape_differences_are_reported_not_compared():
    a = np.zeros((2, 3), np.float32)
    c = compare_tensor("y", a, a.astype(np.float64))
    assert c.status == "dtype" and c.code == "compare-dtype-mismatch"
    assert "dtype float32 from the run but float64 in the reference" in c.summary()
    c = compare_tensor("y", a, a.reshape(3, 2))
    assert c.code == "compare-shape-mismatch" and "shape [2,3] from the run but [3,2] in the reference" in c.summary()


def test_big_endian_reference_of_the_same_type():
    a = np.array([1, 2, 300], np.int32)
    assert compare_tensor("y", a, a.astype(">i4")).ok
    c = compare_tensor("y", a, np.array([1, 2, 301], ">i4"))
    assert c.mismatches == 1 and c.worst_index == (2,)


def test_missing_and_extra_outputs_are_named():
    x = np.zeros(2, np.int32)
    report = compare_outputs({"a": x, "b": x}, {"a": x, "c": x})
    assert not report.ok
    assert {c.name: c.code for c in report.failures} == {"b": "compare-missing-output", "c": "compare-extra-output"}
    with pytest.raises(CompareError) as e:
        report.raise_if_failed()
    assert {d.code for d in e.value.diagnostics} == {"compare-missing-output", "compare-extra-output"}
    assert "output 'b'" in str(e.value) and "'c'" in str(e.value)


def test_a_reference_saved_by_position_is_paired_by_position():
    x, y = np.arange(3, dtype=np.float32), np.ones((2, 2), np.int64)
    report = compare_outputs({"Result_9": x, "Result_4": y}, {"output_0": x, "output_1": y})
    assert report.ok and report.by_position == [("Result_9", "output_0"), ("Result_4", "output_1")]
    swapped = compare_outputs({"Result_9": x, "Result_4": y}, {"output_0": y, "output_1": x})
    assert {c.name: c.code for c in swapped.failures} == {"Result_9": "compare-dtype-mismatch",
                                                          "Result_4": "compare-dtype-mismatch"}
    # one shared name, or another count: names rule, nothing is paired by position
    assert not compare_outputs({"a": x, "b": x}, {"a": x, "c": x}).by_position
    assert not compare_outputs({"a": x}, {"p": x, "q": x}).by_position


@pytest.mark.parametrize("dtype", [np.int64, np.uint64, np.int8, np.uint8])
def test_integer_extremes_do_not_overflow(dtype):
    info = np.iinfo(dtype)
    a = np.array([info.min, 5, info.max], dtype)
    r = np.array([info.max, 5, info.min], dtype)
    with np.errstate(all="raise"):
        c = compare_tensor("y", a, r)
    span = float(int(info.max) - int(info.min))
    assert c.mismatches == 2 and c.max_abs_error == span
    assert c.worst_index == (0,) and int(c.worst_actual) == int(info.min) and int(c.worst_reference) == int(info.max)


def test_large_int64_values_one_apart_are_not_equal():
    big = np.array([2**62 + 1], np.int64)  # float64 cannot tell these apart
    c = compare_tensor("y", big, big - 1)
    assert c.mismatches == 1 and c.max_abs_error == 1.0
    assert c.suggested_atol == 1.0


def test_bool_and_bf16_including_void_reference():
    a = np.array([True, False, True])
    c = compare_tensor("m", a, np.array([True, True, True]))
    assert c.mismatches == 1 and c.worst_index == (1,)
    x = np.array([1.5, -2.0, np.nan], ml_dtypes.bfloat16)
    as_void = x.view("V2")  # how np.savez stores bf16
    assert compare_tensor("b", x, as_void).ok
    y = x.copy()
    y[0] = ml_dtypes.bfloat16(1.0)
    c = compare_tensor("b", x, y.view("V2"), atol=0, rtol=0)
    assert c.mismatches == 1 and c.max_abs_error == 0.5 and c.suggested_atol == 0.5


def test_required_tolerances_for_a_known_difference():
    ref = np.array([[1.0, 2.0], [4.0, 10.0]], np.float64)
    run = ref + np.array([[0.0, 0.0], [0.0, 0.5]])
    c = compare_tensor("y", run, ref, atol=0, rtol=0)
    assert (c.max_abs_error, c.max_rel_error, c.worst_index) == (0.5, 0.05, (1, 1))
    assert (c.worst_actual, c.worst_reference) == (10.5, 10.0)
    assert (c.suggested_atol, c.suggested_rtol) == (0.5, 0.05)
    assert "`atol=y:0.5` (with rtol 0)" in c.summary() and "`rtol=y:0.05` (with atol 0)" in c.summary()  # API parameters
    # with an rtol given, the atol needed shrinks accordingly
    c = compare_tensor("y", run, ref, rtol=0.01)
    assert c.required_atol == pytest.approx(0.4) and c.suggested_atol == pytest.approx(0.4)
    assert compare_tensor("y", run, ref, atol=0.4, rtol=0.01).ok


finite = st.floats(-1e6, 1e6, allow_nan=False, width=32)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(finite, finite), min_size=1, max_size=20), st.sampled_from([0.0, 1e-3, 0.5]),
       st.sampled_from([0.0, 1e-6, 1.0]))
def test_suggested_tolerances_pass_and_nothing_much_smaller_does(pairs, rtol, atol):
    run = np.array([p[0] for p in pairs], np.float32)
    ref = np.array([p[1] for p in pairs], np.float32)
    c = compare_tensor("y", run, ref, atol=atol, rtol=rtol)
    if c.ok:
        return
    if c.suggested_atol is not None:
        assert compare_tensor("y", run, ref, atol=c.suggested_atol, rtol=rtol).ok
        if c.required_atol > 0:
            assert not compare_tensor("y", run, ref, atol=c.required_atol * 0.99, rtol=rtol).ok
    if c.suggested_rtol is not None:
        assert compare_tensor("y", run, ref, atol=atol, rtol=c.suggested_rtol).ok
        if c.required_rtol > 0:
            assert not compare_tensor("y", run, ref, atol=atol, rtol=c.required_rtol * 0.99).ok
    else:
        assert np.any((ref == 0) & (run != ref) & (np.abs(run.astype(np.float64)) > atol))


def test_parse_tolerance_global_and_per_output():
    t = parse_tolerance(["1e-5", "y:1e-3", "Result_4:4:0.5"], "--atol")
    assert t.default == 1e-5 and dict(t.per_output) == {"y": 1e-3, "Result_4:4": 0.5}
    assert t.get("y") == 1e-3 and t.get("other") == 1e-5
    assert parse_tolerance([], "--atol") == Tolerance() and Tolerance().get("y") is None  # None: by element type
    for bad, words in [(["y:abc"], "'abc' is not a number"), (["-1"], "must be a finite number >= 0"),
                       (["1e-3", "1e-4"], "given twice")]:
        with pytest.raises(UsageError, match=words) as e:
            parse_tolerance(bad, "--atol")
        assert e.value.code == "bad-tolerance"


def test_per_output_tolerance_for_an_unknown_output():
    x = np.zeros(1, np.float32)
    with pytest.raises(UsageError, match="'nope', which is not an output") as e:
        compare_outputs({"y": x}, {"y": x}, atol={"nope": 1.0})
    assert e.value.code == "unknown-name"
    assert compare_outputs({"y": x}, {"y": x + 1}, atol={"y": 1.0, "*": 0.0}).ok
