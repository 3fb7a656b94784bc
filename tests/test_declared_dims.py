"""Declared output dims and precision are checked, one port at a time.

For each op a correct IR is written (its output dims given by hand from the
spec's shape formula, not inferred by irexec), then every output dim and the
output precision is corrupted in turn: ``irexec check`` must report exactly
that layer and port, at the port's XML line, and no other error.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from lxml import etree

from irexec.model.builder import IRBuilder

# model.xml:57: error[shape-mismatch] layer 8 "Gather_7" (Gather-8) output port 3: declared [..] but inferred [..]
LINE_RE = re.compile(
    r'^(?P<file>.+?):(?P<line>\d+): error\[(?P<code>[a-z-]+)\] layer (?P<layer>\d+) "(?P<name>[^"]*)" '
    r"\((?P<op>[A-Za-z]+-\d+)\) (?P<kind>input|output) port (?P<port>\d+): (?P<message>.*)$"
)
SHAPE_RE = re.compile(r"declared \[(?P<declared>[^\]]*)\] but inferred \[(?P<inferred>[^\]]*)\]( \(dim \d+\))?$")


@dataclass
class Subject:
    """A model whose layer ``target`` is under test, with its correct output."""

    op: str  # as irexec names it, e.g. Gather-8
    build: Callable[[IRBuilder], int]  # returns the target layer's id
    dims: tuple[int, ...]
    precision: str
    wrong_precision: str


def _roll(b: IRBuilder) -> int:
    x = b.parameter("x", [2, 3, 4], "f32")
    shift = b.const(np.array([1, -2], np.int64))
    axes = b.const(np.array([0, 2], np.int32))
    y = b.layer("Roll", "opset7", [x, shift, axes], outputs=[((2, 3, 4), "f32")], name="roll")
    b.result(y)
    return y.layer


def _reverse_sequence(b: IRBuilder) -> int:
    x = b.parameter("x", [3, 4, 2], "i32")
    lengths = b.const(np.array([1, 4, 2], np.int64))
    y = b.layer("ReverseSequence", "opset1", [x, lengths], {"batch_axis": 0, "seq_axis": 1},
                outputs=[((3, 4, 2), "i32")], name="reverse")
    b.result(y)
    return y.layer


def _gather1(b: IRBuilder) -> int:
    x = b.parameter("x", [5, 6, 7], "f16")
    indices = b.const(np.array([[0, 5, 1], [2, 2, 4]], np.int32))
    axis = b.const(np.array(1, np.int64))
    # data.shape[:1] + indices.shape + data.shape[2:]
    y = b.layer("Gather", "opset1", [x, indices, axis], outputs=[((5, 2, 3, 7), "f16")], name="gather1")
    b.result(y)
    return y.layer


def _gather7(b: IRBuilder) -> int:
    x = b.parameter("x", [2, 5, 6], "u8")
    indices = b.const(np.array([[0, 1, 4, 3], [2, 2, 0, 1]], np.int64))
    axis = b.const(np.array([1], np.int32))
    # data.shape[:axis] + indices.shape[batch_dims:] + data.shape[axis+1:]
    y = b.layer("Gather", "opset7", [x, indices, axis], {"batch_dims": 1}, outputs=[((2, 4, 6), "u8")], name="gather7")
    b.result(y)
    return y.layer


def _gather8(b: IRBuilder) -> int:
    x = b.parameter("x", [2, 6, 8], "bf16")
    indices = b.const(np.arange(24, dtype=np.int32).reshape(2, 3, 4) % 6 - 3)
    axis = b.const(np.array(1, np.int32))
    y = b.layer("Gather", "opset8", [x, indices, axis], {"batch_dims": 1}, outputs=[((2, 3, 4, 8), "bf16")], name="gather8")
    b.result(y)
    return y.layer


def _convert(b: IRBuilder) -> int:
    x = b.parameter("x", [3, 4], "f32")
    y = b.layer("Convert", "opset1", [x], {"destination_type": "i8"}, outputs=[((3, 4), "i8")], name="convert")
    b.result(y)
    return y.layer


def _parameter(b: IRBuilder) -> int:
    x = b.parameter("x", [2, 3, 4], "u16")
    b.result(x)
    return x.layer


def _const(b: IRBuilder) -> int:
    c = b.const(np.arange(6, dtype=np.int64).reshape(2, 3), name="c")
    b.result(c)
    return c.layer


SUBJECTS = [
    Subject("Roll-7", _roll, (2, 3, 4), "FP32", "I32"),
    Subject("ReverseSequence-1", _reverse_sequence, (3, 4, 2), "I32", "FP32"),
    Subject("Gather-1", _gather1, (5, 2, 3, 7), "FP16", "FP32"),
    Subject("Gather-7", _gather7, (2, 4, 6), "U8", "I8"),
    Subject("Gather-8", _gather8, (2, 3, 4, 8), "BF16", "FP16"),
    Subject("Convert-1", _convert, (3, 4), "I8", "U8"),
    Subject("Parameter-1", _parameter, (2, 3, 4), "U16", "I16"),
    Subject("Const-1", _const, (2, 3), "I64", "I32"),
]
IDS = [s.op for s in SUBJECTS]


def _write(subject: Subject, path: Path) -> tuple[int, etree._ElementTree]:
    b = IRBuilder()
    target = subject.build(b)
    b.write(path)
    return target, etree.parse(str(path))


def _output_port(tree: etree._ElementTree, layer_id: int) -> etree._Element:
    ports = tree.xpath(f"/net/layers/layer[@id='{layer_id}']/output/port")
    assert len(ports) == 1
    return ports[0]


def _errors(run_cli, path: Path) -> tuple[int, list[str]]:
    r = run_cli("check", path)
    lines = [line for line in r.output.splitlines() if "error[" in line]
    return r.exit_code, lines


def _reparsed_line(path: Path, layer_id: int) -> int:
    return _output_port(etree.parse(str(path)), layer_id).sourceline


@pytest.mark.parametrize("subject", SUBJECTS, ids=IDS)
def test_correct_ir_is_clean(subject, tmp_path, run_cli):
    path = tmp_path / "model.xml"
    target, tree = _write(subject, path)
    port = _output_port(tree, target)
    assert tuple(int(d.text) for d in port.findall("dim")) == subject.dims
    assert port.get("precision") == subject.precision
    code, errors = _errors(run_cli, path)
    assert (code, errors) == (0, [])


def _reparsed_dim_line(path: Path, layer_id: int, k: int) -> int:
    return _output_port(etree.parse(str(path)), layer_id).findall("dim")[k].sourceline


def _assert_single_error(run_cli, path: Path, subject: Subject, target: int, port_id: str, code: str,
                         line: int | None = None) -> re.Match:
    exit_code, errors = _errors(run_cli, path)
    assert exit_code == 1
    assert len(errors) == 1, "\n".join(errors)
    m = LINE_RE.match(errors[0])
    assert m, errors[0]
    assert m["code"] == code
    assert (int(m["layer"]), m["op"], m["kind"], m["port"]) == (target, subject.op, "output", port_id)
    assert int(m["line"]) == (line or _reparsed_line(path, target))
    assert Path(m["file"]).name == path.name
    return m


@pytest.mark.parametrize("subject", SUBJECTS, ids=IDS)
def test_each_corrupted_dim_is_reported_at_its_dim(subject, tmp_path, run_cli):
    for k in range(len(subject.dims)):
        for wrong in (subject.dims[k] + 1, 0 if subject.dims[k] else 1):
            path = tmp_path / f"dim{k}_{wrong}.xml"
            target, tree = _write(subject, path)
            port = _output_port(tree, target)
            port.findall("dim")[k].text = str(wrong)
            tree.write(str(path))
            m = _assert_single_error(run_cli, path, subject, target, port.get("id"), "shape-mismatch",
                                     line=_reparsed_dim_line(path, target, k))  # the one wrong <dim>, not its port
            assert f"(dim {k})" in m["message"]
            declared = list(subject.dims)
            declared[k] = wrong
            shape = SHAPE_RE.search(m["message"])
            assert shape, m["message"]
            assert shape["declared"] == ",".join(map(str, declared))
            assert shape["inferred"] == ",".join(map(str, subject.dims))


@pytest.mark.parametrize("subject", SUBJECTS, ids=IDS)
def test_wrong_output_rank_is_reported(subject, tmp_path, run_cli):
    for change in ("drop", "add"):
        path = tmp_path / f"rank_{change}.xml"
        target, tree = _write(subject, path)
        port = _output_port(tree, target)
        if change == "drop":
            port.remove(port.findall("dim")[-1])
        else:
            etree.SubElement(port, "dim").text = "1"
        tree.write(str(path))
        _assert_single_error(run_cli, path, subject, target, port.get("id"), "shape-mismatch")


@pytest.mark.parametrize("subject", SUBJECTS, ids=IDS)
def test_corrupted_precision_is_reported_at_its_port(subject, tmp_path, run_cli):
    path = tmp_path / "precision.xml"
    target, tree = _write(subject, path)
    port = _output_port(tree, target)
    port.set("precision", subject.wrong_precision)
    tree.write(str(path))
    m = _assert_single_error(run_cli, path, subject, target, port.get("id"), "type-mismatch")
    assert subject.wrong_precision in m["message"]


@pytest.mark.parametrize("subject", SUBJECTS, ids=IDS)
def test_dynamic_declared_dim_is_compatible(subject, tmp_path, run_cli):
    """A declared -1 (what OpenVINO writes for any dynamic dim) fits anything."""
    path = tmp_path / "dynamic.xml"
    target, tree = _write(subject, path)
    for dim in _output_port(tree, target).findall("dim"):
        dim.text = "-1"
    tree.write(str(path))
    assert _errors(run_cli, path) == (0, [])
