"""The Python API mirrors `irexec run`: Session.run with feeds or random
inputs, stop_at, dump, profile; compare; check."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

import irexec
from irexec.api.dump import load_dump
from irexec.api.progress import ProgressBar
from irexec.model.builder import IRBuilder


def _model(write_ir, shape="2,3") -> str:
    b = IRBuilder()
    x = b.parameter("x", shape, "f32")
    h = b.layer("Convert", "opset1", [x], {"destination_type": "f16"}, name="to_f16", names=["h"])
    b.result(b.layer("Convert", "opset1", [h], {"destination_type": "i32"}, name="to_i32", names=["y"]))
    return write_ir(b)


X = np.array([[1.5, -2.5, 3.0], [0.25, 7.75, -8.0]], np.float32)
Y = np.trunc(X).astype(np.int32)


def test_session_run_and_compare(write_ir):
    with irexec.Session(_model(write_ir)) as s:
        assert s.input_names == ["x"] and s.output_names == ["y"]
        result = s.run({"x": X})
        np.testing.assert_array_equal(result["y"], Y)
        assert result.inputs["x"] is not None and not result.generated_inputs
        assert s.compare(result, {"y": Y}).ok
        bad = Y.copy()
        bad[1, 2] += 3
        report = irexec.compare(result.outputs, {"y": bad})
        assert not report.ok and report["y"].worst_index == (1, 2) and report["y"].suggested_atol == 3
        assert irexec.compare(result, {"y": bad}, atol={"y": 3}).ok
        with pytest.raises(irexec.CompareError) as e:
            report.raise_if_failed()
        assert e.value.code == "compare-mismatch" and "output 'y'" in str(e.value)


def test_session_compare_with_a_reference_file(write_ir, save_npz):
    s = irexec.Session(_model(write_ir))
    ref = save_npz("ref", y=Y + 1)
    report = s.compare(s.run({"x": X}), ref, atol=0.5)
    assert not report.ok and report.reference == ref
    assert report.diagnostics()[0].file == ref and report.diagnostics()[0].code == "compare-mismatch"


def test_random_inputs_stop_at_dump_and_profile(write_ir, tmp_path):
    s = irexec.Session(_model(write_ir, shape="2,?"))
    assert s.run().inputs["x"].shape == (2, 1)  # a dynamic dim defaults to 1
    with pytest.raises(irexec.InputError) as e:
        irexec.Session(_model(write_ir, shape="...")).run()
    assert e.value.code == "input-shape-needed"
    a = s.run(seed=4, input_shapes={"x": (2, 5)}, stop_at="to_f16", dump=tmp_path / "d", profile=True, repeat=2)
    b = s.run(seed=4, input_shapes={"x": (2, 5)})
    assert a.generated_inputs and a.stopped_at is not None and a.stopped_at.name == "to_f16"
    np.testing.assert_array_equal(a["h"], b.inputs["x"].astype(np.float16))
    index, tensors = load_dump(str(tmp_path / "d"))
    assert [l["name"] for l in index["layers"]] == ["x", "to_f16"]
    np.testing.assert_array_equal(tensors[1]["1"], a["h"])
    assert a.profile is not None and a.profile.runs == 2 and b.profile is None
    assert {p.name for p in a.profile.layers} == {"x", "to_f16"}
    assert [p.shapes for p in a.profile.layers if p.name == "to_f16"] == [[(2, 5)]]
    with pytest.raises(irexec.UsageError) as e:
        s.run({"x": X}, input_shapes={"x": (2, 3)})
    assert e.value.code == "input-shape-with-inputs"
    with pytest.raises(irexec.UsageError) as e:
        s.run({"x": X}, stop_at=42)
    assert e.value.code == "unknown-name"


def test_dump_index_is_written_when_the_run_fails(write_ir, tmp_path):
    s = irexec.Session(_model(write_ir))

    def boom(layer, outputs, seconds):  # a failure after the first layer
        if layer.name == "to_f16":
            raise irexec.OpError("stop here", code="test-failure")

    with pytest.raises(irexec.OpError):
        s.run({"x": X}, dump=tmp_path / "d", on_layer=boom)
    index = json.loads((tmp_path / "d" / "index.json").read_text())
    assert [l["name"] for l in index["layers"]] == ["x", "to_f16"]


def test_check_returns_a_report(write_ir):
    s = irexec.Session(_model(write_ir, shape="2,?"))
    result = s.check({"x": (2, 4)})
    assert result.errors == [] and result.tensors[(1, 0)].shape.to_tuple() == (2, 4)
    assert [d.code for d in s.check({"x": (3, 4)}).errors] == ["input-shape-mismatch"]


class _FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_only_on_a_terminal_and_for_long_runs(write_ir, monkeypatch):
    import irexec.api.progress

    layer = irexec.load(_model(write_ir)).layers[1]
    quiet = ProgressBar(10, stream=io.StringIO())
    for _ in range(10):
        quiet(layer, [], 0.0)
    quiet.close()
    assert quiet.stream.getvalue() == ""  # type: ignore[attr-defined]
    short = ProgressBar(10, stream=_FakeTerminal())
    short(layer, [], 0.0)
    short.close()
    assert short.stream.getvalue() == ""  # type: ignore[attr-defined]  # few layers, fast: no bar
    monkeypatch.setattr(irexec.api.progress, "MANY_LAYERS", 5)
    long = ProgressBar(10, stream=_FakeTerminal())
    for _ in range(10):
        long(layer, [], 0.0)
    long.close()
    assert "running" in long.stream.getvalue() and "10/10" in long.stream.getvalue()  # type: ignore[attr-defined]




