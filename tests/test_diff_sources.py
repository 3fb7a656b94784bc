"""``irexec diff SOURCE MODEL.xml``: the IR against the source model it was converted from, on
pluggable diff sides (irexec/api/diff/sides.py).

The conversion pairs in tests/data/conversion_pairs are made by make_conversion_pairs.py: a small
CNN and a transformer block in ONNX, converted by OpenVINO, and copies of each IR with one
converter-like edit that must be named as the first origin."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import irexec
from irexec.api.diff.core import Exposed, run_diff
from irexec.api.diff.feeds import prepared_feeds
from irexec.api.diff.reference import ReferenceSide
from irexec.api.diff.sides import SOURCE, SideKind, SideWords, register
from irexec.api.session import Session
from irexec.model.builder import IRBuilder

pytest.importorskip("onnxruntime")
jsonschema = pytest.importorskip("jsonschema")

ROOT = Path(__file__).resolve().parent.parent
PAIRS = ROOT / "tests" / "data" / "conversion_pairs"
SCHEMA = ROOT / "schemas" / "diff-report.schema.json"
DAMAGES: dict[str, str] = json.loads((PAIRS / "damages.json").read_text())  # damaged IR -> the layer damaged


def _report(path: Path) -> dict:
    doc = json.loads(path.read_text())
    jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text())).validate(doc)
    return doc


@pytest.mark.parametrize("damaged", sorted(DAMAGES))
def test_each_conversion_damage_is_the_first_origin(tmp_path: Path, run_cli, damaged: str) -> None:
    source = PAIRS / f"{damaged.split('_')[0]}.onnx"
    out = tmp_path / "r.json"
    r = run_cli("diff", source, PAIRS / f"{damaged}.xml", "--json", out, "--fail-on", "origin")
    assert r.exit_code == 1, r.output
    assert "ORIGIN (1)" in r.output and "ORIGIN FOUND" in r.output
    doc = _report(out)
    first = next(layer for layer in doc["layers"] if layer["name"] == doc["origins"][0])
    assert DAMAGES[damaged] in [first["name"], *first.get("replayed_with", [])], doc["origins"]
    assert first["local"] is not None and first["local"]["beyond"] > 0  # its own error, on the source's inputs
    sides = {s["name"]: s for s in doc["sides"]}
    assert sides["onnxruntime"]["kind"] == "source" and sides["onnxruntime"]["role"] == "reference"
    assert sides["irexec"]["role"] == "compared"
    assert "tolerance" in doc and "ONNX Runtime" in doc["tolerance"]


@pytest.mark.parametrize("arch", ["cnn", "transformer"])
def test_undamaged_conversions_show_no_origin(tmp_path: Path, run_cli, arch: str) -> None:
    out = tmp_path / "r.json"
    r = run_cli("diff", PAIRS / f"{arch}.onnx", PAIRS / f"{arch}.xml", "--json", out, "--fail-on", "origin")
    assert r.exit_code == 0, r.output
    assert "outputs within stated accuracy" in r.output and "deployed graph" not in r.output
    doc = _report(out)
    assert doc["origins"] == [] and doc["outputs_within"]
    assert doc["matching"]["counts"]["tensor name"] >= 8
    assert doc["removed"] == [] and doc["fused"] == {}  # a source model has no deployed graph


def test_html_report_of_a_source_speaks_of_no_deployed_graph(tmp_path: Path, run_cli) -> None:
    pytest.importorskip("plotly")
    page = tmp_path / "r.html"
    r = run_cli("diff", PAIRS / "cnn.onnx", PAIRS / "cnn_resize_asymmetric.xml", "--html", page)
    assert r.exit_code == 0, r.output
    text = page.read_text()
    assert "irexec against the reference" in text and "ONNX Runtime" in text
    assert "Deployed graph" not in text and "compilation" not in text and "no counterpart" in text


def test_unmatched_layers_and_tensors_are_listed_with_why(run_cli) -> None:
    r = run_cli("diff", PAIRS / "transformer.onnx", PAIRS / "transformer_layernorm_eps.xml", "--top", "0")
    assert r.exit_code == 0, r.output
    # the LayerNormalization's MVN has no tensor name: it is re-run with the layer that ends the conversion
    assert "inside the conversion of the source's LayerNormalization 'ln1'" in r.output
    assert "re-run with MVN_" in r.output
    # the attention's inner tensors are inside OpenVINO's ScaledDotProductAttention
    assert "Softmax 'attn': no IR tensor keeps its name" in r.output


def test_inputs_from_a_file_keyed_by_the_source_input(tmp_path: Path, run_cli) -> None:
    inputs = tmp_path / "in.npz"
    np.savez(inputs, input=np.random.default_rng(5).normal(size=(1, 3, 8, 8)).astype(np.float32))
    r = run_cli("diff", PAIRS / "cnn.onnx", PAIRS / "cnn_relu6_bound.xml", "--inputs", inputs, "--fail-on", "origin")
    assert r.exit_code == 1 and f"inputs: {inputs}" in r.output and "relu6 (Clamp-1)" in r.output


@pytest.mark.parametrize("extra", [["--steps", "2"], ["--config", "A=B"], ["--layers", "all"], ["--ablate", "3"],
                                   ["--expose", "2"], ["--inputs-dir", "."]])  # --device: the chain (test_diff_chain.py)
def test_options_that_do_not_apply_to_a_source_are_usage_errors(run_cli, extra: list[str]) -> None:
    r = run_cli("diff", PAIRS / "cnn.onnx", PAIRS / "cnn.xml", *extra)
    assert r.exit_code == 2, r.output
    assert "diff-usage" in r.output and "Traceback" not in r.output


def test_python_api_and_its_usage_errors() -> None:
    report = irexec.diff(str(PAIRS / "transformer.onnx"), str(PAIRS / "transformer_transpose_b.xml"))
    assert [r.name for r in report.origins] == ["q"]
    for wrong in ({"steps": 1}, {"config": {"A": "B"}}, {"layers": "all"}):  # with a device: the chain
        with pytest.raises(irexec.UsageError, match="not applicable there"):
            irexec.diff(str(PAIRS / "cnn.onnx"), str(PAIRS / "cnn.xml"), **wrong)
    with pytest.raises(irexec.UsageError, match="config, layers and expose"):
        irexec.diff(str(PAIRS / "cnn.xml"), str(PAIRS / "cnn_relu6_bound.xml"), config={"A": "B"})


def test_irexec_api_diff_as_the_docs_spell_it() -> None:
    code = ("import irexec; r = irexec.api.diff('tests/data/conversion_pairs/cnn.onnx', "
            "'tests/data/conversion_pairs/cnn_resize_asymmetric.xml'); print([x.name for x in r.origins])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['resize']"


def test_the_committed_damages_are_what_the_generator_writes() -> None:
    spec = importlib.util.spec_from_file_location("make_conversion_pairs", PAIRS.parent / "make_conversion_pairs.py")
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    for arch, damage, layer_type, edit in gen.DAMAGES:
        xml, name = gen.damaged((PAIRS / f"{arch}.xml").read_text(), layer_type, edit)
        assert xml == (PAIRS / f"{arch}_{damage}.xml").read_text()
        assert DAMAGES[f"{arch}_{damage}"] == name


# ------------------------------------------------------------------ a new side: one class and its registration

class ToySide:
    """A "framework" that runs another IR (the source) with irexec and hides some of its layers
    (no counterpart): one class, and the registration below, make it a side."""

    is_reference = True

    def __init__(self, source: str, ref: ReferenceSide, hidden: Sequence[str]):
        self.kind = TOY
        self.source = ReferenceSide(Session(source))
        self.description, self.properties, self.fusion, self.compiles, self.slack_units = "toy", {}, {}, 0, 0.0
        self.no_counterpart = {name: "the toy framework hides it" for name in hidden}
        self.ref = ref

    def run(self, steps: Sequence[Mapping[str, np.ndarray]], expose: Sequence[tuple[str, int]]) -> Exposed:
        self.compiles += 1
        _, kept = self.source.run(steps, capture=True)
        by_name = {layer.name: kept[layer.id] for layer in self.source.order if layer.id in kept}
        history = {(layer.name, port): by_name[layer.name][port] for layer, port, _ in self.ref.output_ports()}
        layers: dict[str, list[np.ndarray | None]] = {}
        for name, port in expose:
            slots = layers.setdefault(name, [None] * (port + 1))
            slots.extend([None] * (port + 1 - len(slots)))
            slots[port] = None if name in self.no_counterpart else by_name[name][port]
        return Exposed(layers, [history])


def toy_diff(source: str, model: str, *, inputs: str | None = None, seed: int = 0, shapes: Any = None,
             weights: str | None = None, max_memory: int | None = None) -> Any:
    spec = json.loads(Path(source).read_text())
    ref = ReferenceSide(Session(model, weights, max_memory))
    feeds, where = prepared_feeds(ref.session, inputs, seed, dict(shapes or {}), max_memory)
    side = ToySide(spec["ir"], ref, spec.get("hidden", []))
    return run_diff(ref, side, [feeds], mode="bisect", k=1, model=model, inputs=where)


TOY = register(SideKind("toy", SOURCE, SideWords(), "toy", exposes="any layer", replays=False, precision="f32",
                        suffixes=(".toy",), open=toy_diff))


def _chain(path: Path, scale_at: int, scale: float) -> str:
    """x -> 12 Multiply/Add layers -> out; layer ``scale_at`` multiplies by ``scale`` (else 1.001)."""
    b = IRBuilder()
    h = b.parameter("x", [4, 8], "f32")
    for i in range(12):
        c = b.const(np.full((4, 8), scale if i == scale_at else 1.001, np.float32))
        h = b.layer("Multiply" if i % 2 == 0 else "Add", "opset1", [h, c], name=f"l{i}")
    b.result(h, "out")
    xml, _ = b.write(path)
    return str(xml)


@pytest.mark.parametrize("hidden", [[], ["l6"]])
def test_a_toy_side_is_one_class_and_its_registration(tmp_path: Path, hidden: list[str]) -> None:
    ir = _chain(tmp_path / "model.xml", 6, 1.001)
    source = tmp_path / "model.toy"
    source.write_text(json.dumps({"ir": _chain(tmp_path / "source.xml", 6, 1.5), "hidden": hidden}))
    report = irexec.diff(str(source), ir)
    assert report.sides[1]["name"] == "toy" and report.sides[1]["role"] == "reference"
    if not hidden:
        assert [r.name for r in report.origins] == ["l6"]
        return
    # the culprit has no counterpart: bisection does not take it for within, and the layer after it,
    # re-run from the tensors the toy gives with l6 re-run too, is the origin of the group
    assert "l6" not in {r.name for r in report.layers}
    assert report.no_counterpart == {"l6": "the toy framework hides it"}
    assert [(r.name, r.replayed_with) for r in report.origins] == [("l7", ["l6"])]


def test_a_damaged_source_is_a_coded_error(tmp_path: Path, run_cli) -> None:
    bad = tmp_path / "model.onnx"
    bad.write_bytes(b"\x08\x07not an onnx model at all")
    r = run_cli("diff", bad, PAIRS / "cnn.xml")
    assert r.exit_code == 1, r.output
    assert "source-error" in r.output and str(bad) in r.output and "Traceback" not in r.output


def test_a_source_of_another_model_is_a_coded_error(tmp_path: Path, run_cli) -> None:
    # the same input name, another rank: ONNX Runtime refuses the IR's inputs
    r = run_cli("diff", PAIRS / "transformer.onnx", PAIRS / "cnn.xml")
    assert r.exit_code == 1 and "source-error" in r.output and "Invalid rank" in r.output, r.output
    # an input of another name: no Parameter of the IR feeds it
    import onnx

    model = onnx.load(PAIRS / "cnn.onnx")
    model.graph.input[0].name = "pixels"
    for node in model.graph.node:
        node.input[:] = ["pixels" if name == "input" else name for name in node.input]
    onnx.save(model, tmp_path / "renamed.onnx")
    r = run_cli("diff", tmp_path / "renamed.onnx", PAIRS / "cnn.xml")
    assert r.exit_code == 1 and "not-a-copy" in r.output and "'pixels'" in r.output, r.output
