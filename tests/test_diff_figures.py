"""The comparison core of irexec diff on its own: stated accuracy per op, the figures of
one tensor, and the origin rule, with no plugin involved."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

from irexec.diff.accuracy import DEVICE_SLACK, reduction_length, stated_accuracy
from irexec.diff.figures import Figures, tensor_figures
from irexec.diff.origins import classify
from irexec.diff.report import INHERITED, MATCH, ORIGIN, UNRESOLVED, LayerResult


def test_stated_accuracy_by_op_class() -> None:
    f32 = np.dtype(np.float32)
    assert stated_accuracy("Reshape", f32).units == 0 and stated_accuracy("Reshape", f32).kind == "exact"
    assert stated_accuracy("Add", np.dtype(np.int32)).kind == "exact"  # integers are exact whatever the op
    assert stated_accuracy("Add", f32).units == 1.0
    assert stated_accuracy("Exp", f32).units == 2.0
    assert stated_accuracy("MatMul", f32, 64).units == 2 * (6 + 4)
    assert stated_accuracy("MatMul", f32, 64, DEVICE_SLACK).units == 20 + DEVICE_SLACK
    assert stated_accuracy("Exp", np.dtype(ml_dtypes.bfloat16)).kind == "transcendental"


def test_reduction_lengths() -> None:
    assert reduction_length("MatMul", [(2, 3, 64), (64, 5)], (2, 3, 5), {}) == 64
    assert reduction_length("MatMul", [(2, 64, 3), (64, 5)], (2, 3, 5), {"transpose_a": "true"}) == 64
    assert reduction_length("Convolution", [(1, 3, 8, 8), (16, 3, 3, 3)], (1, 16, 6, 6), {}) == 27
    assert reduction_length("GroupConvolution", [(1, 8, 8, 8), (8, 1, 1, 3, 3)], (1, 8, 6, 6), {}) == 9
    assert reduction_length("ReduceSum", [(4, 10)], (4,), {}) == 10


def test_figures_of_a_float_tensor() -> None:
    ref = np.array([1.0, -2.0, 4.0, 0.5], np.float32)
    other = ref.copy()
    other[2] = np.nextafter(np.float32(4.0), np.float32(5.0))  # one ulp of 4 = 4 units at scale 4
    exact = tensor_figures(other, ref, stated_accuracy("Reshape", ref.dtype))
    assert exact.beyond == 1 and not exact.within
    assert exact.max_abs_error == pytest.approx(2.0**-21)
    add = tensor_figures(other, ref, stated_accuracy("Add", ref.dtype, slack=DEVICE_SLACK))
    assert add.within and add.max_units < 1.0  # the rms floor widens the scale: |4| + rms
    assert add.cosine == pytest.approx(1.0) and add.snr_db > 100
    other[0] = np.nan
    nan = tensor_figures(other, ref, stated_accuracy("Add", ref.dtype))
    assert nan.nan_diff == 1 and math.isinf(nan.max_units) and nan.beyond >= 1


def test_figures_of_integers_and_shapes() -> None:
    ref = np.array([[-3, 2], [7, 1]], np.int64)
    fig = tensor_figures(ref + np.array([[1, 0], [0, 0]]), ref, stated_accuracy("Divide", ref.dtype))
    assert (fig.beyond, fig.max_abs_error, fig.max_units) == (1, 1.0, math.inf)
    shape = tensor_figures(np.zeros((2, 3)), np.zeros((3, 2)), stated_accuracy("Add", np.dtype(np.float32)))
    assert shape.detail and not shape.within
    zero_d = tensor_figures(np.float32(2.0), np.asarray(np.float32(2.0)), stated_accuracy("Add", np.dtype(np.float32)))
    assert zero_d.within and zero_d.size == 1


def _layer(name: str, index: int, within: bool, inputs: list[str], local: bool | None = None,
           rel: float = 0.0) -> LayerResult:
    fig = Figures(beyond=0 if within else 3, size=4, rel_l2=rel)
    loc = None if local is None else Figures(beyond=0 if local else 2, size=4)
    return LayerResult(name, index, "Add-1", "Add", index, index, 0, "float32", [4],
                       stated_accuracy("Add", np.dtype(np.float32)), fig, inputs, loc)


def test_origin_inherited_and_unresolved() -> None:
    a = _layer("a", 0, True, [])
    b = _layer("b", 1, False, ["a"], local=False, rel=1e-3)  # its own computation departs
    c = _layer("c", 2, False, ["b"], local=True, rel=1e-3)  # only carries b's error
    d = _layer("d", 3, False, ["b"], rel=1e-1)  # not re-run, its input is beyond: inherited, and amplifies
    e = _layer("e", 4, False, ["zz"])  # an input never compared
    f = _layer("f", 5, False, ["a"])  # not re-run, every input within: an origin
    classify([f, e, d, c, b, a])
    assert [x.status for x in (a, b, c, d, e, f)] == [MATCH, ORIGIN, INHERITED, INHERITED, UNRESOLVED, ORIGIN]
    assert d.amplification == pytest.approx(100) and c.amplification is None
