"""Diagnostic codes that only unusual conditions produce, each from the outside."""

from __future__ import annotations

import numpy as np
import pytest

import irexec
from irexec.ir import safe_xml
from irexec.model.builder import IRBuilder
from irexec.ops.movement.roll import Roll7


def _roll_model(write_ir) -> str:
    b = IRBuilder()
    x = b.parameter("x", "4,3", "f32")
    y = b.layer("Roll", "opset7", [x, b.const(np.array([1], np.int64)), b.const(np.array([0], np.int64))],
                outputs=[([4, 3], "f32")], name="roll")
    b.result(y, name="out")
    return write_ir(b)


def test_file_too_large_is_refused_before_parsing(write_ir, run_cli, monkeypatch):
    model = _roll_model(write_ir)
    monkeypatch.setattr(safe_xml, "MAX_XML_BYTES", 100)
    [d] = irexec.check(model).diagnostics
    assert (d.code, d.file) == ("file-too-large", model) and "more than the 100 this reader accepts" in d.message
    r = run_cli("check", model)
    assert r.exit_code == 1 and "error[file-too-large]" in r.output


def test_net_without_layers_is_missing_element(write_ir):
    text = '<?xml version="1.0"?>\n<net name="t" version="11">\n  <edges/>\n</net>\n'
    d = next(d for d in irexec.check(write_ir(text)).diagnostics if d.code == "missing-element")
    assert d.line == 2 and "<net> has no <layers> element" in d.message


@pytest.mark.parametrize("spec, words", [("x", "is not NAME:DIMS"), ("x:2,a", "x:2,a")])
def test_malformed_input_shape_is_a_usage_error(write_ir, run_cli, spec, words):
    r = run_cli("run", _roll_model(write_ir), "--input-shape", spec)
    assert r.exit_code == 2 and "bad-input-shape" in r.output and words in r.output, r.output


def test_complex_tensors_are_not_compared():
    with pytest.raises(irexec.UsageError) as e:
        irexec.compare({"y": np.ones(2, np.complex64)}, {"y": np.ones(2, np.complex64)})
    assert e.value.code == "bad-dtype" and "output 'y' is complex (complex64)" in str(e.value)


def test_running_out_of_memory_names_the_layer(write_ir, run_cli, monkeypatch):
    def exhausted(self, *args):
        raise MemoryError

    model = _roll_model(write_ir)
    monkeypatch.setattr(Roll7, "compute", exhausted)
    with pytest.raises(irexec.IRExecError) as e:
        irexec.run(model, {"x": np.zeros((4, 3), np.float32)})
    [d] = e.value.diagnostics
    assert (d.code, d.layer_name, d.op) == ("out-of-memory", "roll", "Roll-7")
    r = run_cli("run", model)
    assert r.exit_code == 1 and 'error[out-of-memory] layer 3 "roll" (Roll-7)' in r.output
    assert "Traceback" not in r.output
