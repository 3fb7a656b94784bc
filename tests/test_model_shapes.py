"""Port by port, irexec's inferred shapes and element types on the shipped real
models equal OpenVINO's own shape inference (``read_model``), with the inputs
as dynamic as the models declare them (the transformers take ``[?,?]``): the
shape subgraphs (ShapeOf -> Gather -> Concat -> Reshape, Range, Broadcast)
must keep every dim OpenVINO keeps."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ov = pytest.importorskip("openvino")
from oracle import core

import irexec
from irexec.base.shapes import parse_partial_shape

MODELS = Path(os.environ.get("IREXEC_REAL_MODELS") or Path(__file__).resolve().parents[1].parent / "shared" / "models")
NAMES = ("bert_tiny", "gpt2_tiny", "mobilenet_v3_small", "squeezenet1_1")


@pytest.mark.parametrize("name", NAMES)
def test_inferred_shapes_match_openvino_port_by_port(name):
    xml = MODELS / name / "model.xml"
    if not xml.is_file():
        pytest.skip(f"{xml} is not there")
    model = irexec.read_model(str(xml))
    missing = sorted({layer.display for lid, layer in model.layers.items() if model.ops[lid] is None})
    if missing:
        pytest.skip(f"{name} needs ops not implemented yet: {', '.join(missing)}")
    result = irexec.check(str(xml))
    assert result.errors == [], "\n".join(map(str, result.errors[:10]))
    theirs = {node.get_friendly_name(): node for node in core().read_model(str(xml)).get_ops()}
    by_name = {layer.name: layer for layer in model.layers.values()}
    compared, differences = 0, []
    for lname, layer in by_name.items():
        node = theirs.get(lname)
        if node is None:
            continue  # OpenVINO renames some nodes while reading (e.g. Const folding of decompression)
        for port in layer.outputs:
            if port.index >= node.get_output_size():
                continue
            ours = result.tensors.get((layer.id, port.index))
            want = parse_partial_shape(str(node.get_output_partial_shape(port.index)))
            want_type = node.get_output_element_type(port.index).get_type_name()
            compared += 1
            if ours is None or ours.shape != want or ours.etype.name != want_type:
                got = "nothing" if ours is None else f"{ours.etype.name}{ours.shape}"
                differences.append(f"line {port.line} {layer.display} {lname!r} port {port.id}: irexec {got}, OpenVINO {want_type}{want}")
    assert compared > len(model.layers) // 2, f"only {compared} ports matched by name"
    assert not differences, f"{len(differences)} of {compared} ports differ:\n" + "\n".join(differences[:40])
