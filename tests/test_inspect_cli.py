"""`irexec inspect` from the outside: tensor names as the XML has them, --input-shape,
a stateful model's variables, and a declared shape that inference contradicts."""

from __future__ import annotations

import json

import pytest
from lxml import etree

from irexec.model.builder import IRBuilder


def _relu(write_ir, shape: str = "2,3") -> str:
    b = IRBuilder()
    x = b.parameter("x", shape, "f32")  # its tensor name is "x" too, as OpenVINO writes it
    b.result(b.layer("Relu", "opset1", [x], names=["y"]), name="out")
    return write_ir(b)


def _json(run_cli, *args) -> dict:
    r = run_cli("inspect", *args, "--format", "json")
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def test_tensor_names_are_listed_even_when_they_equal_the_name(write_ir, run_cli):
    model = _relu(write_ir)
    doc = _json(run_cli, model)
    assert doc["inputs"][0]["name"] == "x" and doc["inputs"][0]["tensor_names"] == ["x"]
    assert doc["outputs"][0]["name"] == "y" and doc["outputs"][0]["tensor_names"] == ["y"]
    rows = [line.split() for line in run_cli("inspect", model).stdout.splitlines()]
    assert ["input", "x", "x", "f32", "[2,3]", "same"] in rows
    assert ["output", "y", "y", "f32", "[2,3]", "same"] in rows


def test_input_shape_pins_the_inferred_shapes(write_ir, run_cli):
    model = _relu(write_ir, "?,3")
    doc = _json(run_cli, model, "--input-shape", "x:4,3")
    assert doc["inputs"][0]["shape"] == "[?,3]" and doc["inputs"][0]["inferred_shape"] == "[4,3]"
    assert doc["outputs"][0]["inferred_shape"] == "[4,3]" and doc["outputs"][0]["declared_matches_inferred"]
    text = run_cli("inspect", model, "--input-shape", "x:4,3").stdout
    assert any(line.split()[:2] == ["output", "y"] and line.split()[-1] == "f32[4,3]" for line in text.splitlines())
    r = run_cli("inspect", model, "--input-shape", "z:4,3")
    assert r.exit_code == 2 and "error[unknown-name]" in r.output and "'z'" in r.output
    assert run_cli("inspect", model, "--input-shape", "x:4").exit_code == 1  # outside the declared rank
    shapes = run_cli("inspect", model, "--shapes", "--input-shape", "x:4,3", "--format", "json")
    assert any(p["inferred_shape"] == "[4,3]" and p["layer"] != "x" for p in json.loads(shapes.stdout)["ports"])


def test_declared_output_dims_that_inference_contradicts_are_flagged(write_ir, run_cli, tmp_path):
    model = _relu(write_ir)
    tree = etree.parse(model)
    for dim in tree.getroot().findall("layers/layer[@type='Relu']/output/port/dim"):
        if dim.text == "3":
            dim.text = "5"
    for dim in tree.getroot().findall("layers/layer[@type='Result']/input/port/dim"):
        if dim.text == "3":
            dim.text = "5"
    tree.write(model)
    doc = _json(run_cli, model)
    out = doc["outputs"][0]
    assert out["shape"] == "[2,5]" and out["inferred_shape"] == "[2,3]" and out["declared_matches_inferred"] is False
    assert doc["inputs"][0]["declared_matches_inferred"] is True
    r = run_cli("inspect", model)
    assert r.exit_code == 0
    assert "f32[2,3] (declared != inferred)" in r.stdout
    assert "output 'y': declared f32[2,5] != inferred f32[2,3]" in r.stderr and "irexec check" in r.stderr


def test_a_stateful_model_lists_its_variables(tmp_path, run_cli):
    pytest.importorskip("openvino")
    from stateful_models import save, tiny_lm

    model = save(tiny_lm(), tmp_path)
    doc = _json(run_cli, model)
    assert doc["variables"] and all(set(v) == {"variable_id", "type", "shape"} for v in doc["variables"])
    text = run_cli("inspect", model).stdout
    header = next(line for line in text.splitlines() if line.startswith("variable"))
    assert header.split() == ["variable", "type", "shape"]
    assert all(v["variable_id"] in text for v in doc["variables"])
