"""The comparison core of irexec diff on its own: stated accuracy per op, the figures of
one tensor, and the origin rule, with no plugin involved."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

from irexec.api.diff.accuracy import DEVICE_SLACK, reduction_length, stated_accuracy
from irexec.api.diff.figures import Figures, tensor_figures
from irexec.api.diff.origins import classify
from irexec.api.diff.report import INHERITED, MATCH, ORIGIN, UNRESOLVED, LayerResult


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


class _Perturbed:
    """Another side made of irexec itself, with one layer's output changed (what a plugin
    bug does), and one layer it cannot expose: the core needs nothing else."""

    description, properties, fusion, compiles, slack_units = "a perturbed irexec", {}, {}, 0, 0.0

    def __init__(self, xml: str, wrong: str, unexposable: str):
        from irexec.api.session import Session

        self.session, self.wrong, self.unexposable = Session(xml), wrong, unexposable

    def run(self, steps, expose):  # type: ignore[no-untyped-def]
        from irexec.api.diff.core import Exposed, ExposeError

        self.compiles += 1
        if any(name == self.unexposable for name, _ in expose):
            raise ExposeError("cannot run with it exposed", code="device-error")
        kept: dict[str, list[np.ndarray]] = {}

        def hook(layer, outs, seconds):  # type: ignore[no-untyped-def]
            if layer.name == self.wrong:
                outs[0][...] = outs[0] + 1  # in place: the layers after it read this array
            kept[layer.name] = [np.array(o, copy=True) for o in outs]

        outputs = self.session.run(dict(steps[0]), on_layer=hook).outputs
        history = [{("c_out", 0): outputs["out"]}]  # keyed by the producing layer and port
        return Exposed({name: list(kept.get(name, [None])) for name, _ in expose}, history)


@pytest.mark.parametrize("mode", ["bisect", "all"])
def test_the_core_finds_a_perturbed_layer_on_any_other_side(tmp_path, mode: str) -> None:
    from irexec.api.diff.core import run_diff
    from irexec.api.diff.reference import ReferenceSide
    from irexec.api.session import Session
    from irexec.model.builder import IRBuilder

    b = IRBuilder()
    x = b.parameter("x", [3, 4], "i32")
    layer = x
    for i in range(12):  # a chain a..l, then c: bisection has something to bisect
        layer = b.layer("Add", "opset1", [layer, b.const(np.array(i, np.int32))], name="abcdefghijkl"[i])
    b.result(b.layer("Negative", "opset1", [layer], name="c_out"), "out")
    xml, _ = b.write(tmp_path / "model.xml")
    feeds = {"x": np.arange(12, dtype=np.int32).reshape(3, 4)}
    other = _Perturbed(xml, wrong="f", unexposable="h")
    report = run_diff(ReferenceSide(Session(xml)), other, [feeds], mode=mode, k=3)
    assert [r.name for r in report.origins] == ["f"]
    status = {r.name: r.status for r in report.layers}
    assert status["e"] == "match" and status["g"] == "inherited"
    if mode == "all":
        assert any("failed to run with 1 layer(s) exposed" in n and "h:" in n for n in report.notes)
