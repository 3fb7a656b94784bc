"""OpenVINO reads the harness's files in a child process: a crash inside it is
reported for the file that caused it, and the files after it are still read."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conformance import isolated
from conformance.harness import OpTable, Tol, _add_case
from conformance.isolated import Crash, Refused, openvino_outputs
from irexec.model.builder import IRBuilder

ATTRS = {"keep_top_k": [10], "nms_threshold": 0.45, "confidence_threshold": 0.05, "top_k": 20,
         "code_type": "caffe.PriorBoxParameter.CENTER_SIZE", "normalized": True}


def _detection_output(path: Path, attrs: dict[str, object]) -> str:
    b = IRBuilder(name="isolated")
    inputs = [np.zeros((1, 40), np.float32), np.zeros((1, 30), np.float32), np.zeros((1, 2, 40), np.float32)]
    # DetectionOutput accumulates, so its table states a tol: the one of its conformance tables
    table = OpTable("DetectionOutput", "opset8", cases=[], tol=Tol(rtol=1e-6, atol=1e-6))
    _add_case(b, table, 0, inputs, attrs, ())
    b.write(path)
    return str(path)


def test_a_crash_fails_its_file_and_the_next_files_are_read(tmp_path: Path) -> None:
    good = _detection_output(tmp_path / "good.xml", ATTRS)
    # OpenVINO 2026.4's IR reader dies with SIGSEGV on a DetectionOutput without keep_top_k
    crash = _detection_output(tmp_path / "crash.xml", {k: v for k, v in ATTRS.items() if k != "keep_top_k"})
    refused = tmp_path / "refused.xml"
    refused.write_text("<net name='broken' version='11'><layers>")
    got = openvino_outputs([(good, "op0"), (crash, "op0"), (str(refused), "op0"), (good, "op0"), (good, None)])
    assert got[0] == [("[1,1,10,7]", "f32")]
    assert isinstance(got[1], Crash) and "SIGSEGV" in str(got[1])
    assert isinstance(got[2], Refused)
    assert got[3] == got[0]
    assert got[4] == []


def test_a_missing_layer_fails_the_test(tmp_path: Path) -> None:
    good = _detection_output(tmp_path / "good.xml", ATTRS)
    with pytest.raises(AssertionError, match="no layer op9"):
        openvino_outputs([(good, "op9")])


def test_a_child_out_of_time_is_killed_and_counted_as_a_hang(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    good = _detection_output(tmp_path / "good.xml", ATTRS)
    # a deadline already past when the child starts: a time of 0.01 s still let a quick child
    # (OpenVINO imported from a warm page cache) answer within the first 0.2 s wait for output
    monkeypatch.setattr(isolated, "_STARTUP_SECONDS", -1.0)
    monkeypatch.setattr(isolated, "_SECONDS_PER_FILE", 0.0)
    got = openvino_outputs([(good, "op0"), (good, "op0")])
    assert all(isinstance(g, Crash) and "hung" in str(g) for g in got)
