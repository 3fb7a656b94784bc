"""``irexec diff SOURCE MODEL.xml --device DEVICE``: the whole chain in one run (irexec/api/diff/chain.py):
the converter's link (the source against irexec on the IR), the plugin's (irexec against the device) and the
outputs end to end, with the link to blame.  On the conversion pairs of tests/data/conversion_pairs
(make_conversion_pairs.py), with the CPU plugin at f32 so that the plugin's link is within."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import irexec

pytest.importorskip("openvino")
pytest.importorskip("onnxruntime")
jsonschema = pytest.importorskip("jsonschema")
referencing = pytest.importorskip("referencing")

ROOT = Path(__file__).resolve().parent.parent
PAIRS = ROOT / "tests" / "data" / "conversion_pairs"
DAMAGES: dict[str, str] = json.loads((PAIRS / "damages.json").read_text())  # damaged IR -> the layer damaged
F32 = ("--device", "CPU", "--config", "INFERENCE_PRECISION_HINT=f32")


def _report(path: Path) -> dict:
    """The chain's JSON, validated against its schema (each link's report against the diff report's)."""
    schemas = [json.loads((ROOT / "schemas" / name).read_text())
               for name in ("diff-chain.schema.json", "diff-report.schema.json")]
    registry = referencing.Registry().with_resources(
        [(s["$id"], referencing.Resource.from_contents(s)) for s in schemas])
    doc = json.loads(path.read_text())
    jsonschema.Draft202012Validator(schemas[0], registry=registry).validate(doc)
    return doc


def test_the_schema_checks_each_links_report(tmp_path: Path, run_cli) -> None:
    out = tmp_path / "chain.json"
    assert run_cli("diff", PAIRS / "cnn.onnx", PAIRS / "cnn.xml", *F32, "--json", out).exit_code == 0
    doc = _report(out)
    doc["links"][0]["report"]["not_a_field"] = 1  # the link's report holds to diff-report.schema.json too
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(doc))
    with pytest.raises(jsonschema.ValidationError):
        _report(broken)


@pytest.mark.parametrize("arch", ["cnn", "transformer"])
def test_an_undamaged_chain_has_no_origin_in_any_link(tmp_path: Path, run_cli, arch: str) -> None:
    out = tmp_path / "chain.json"
    r = run_cli("diff", PAIRS / f"{arch}.onnx", PAIRS / f"{arch}.xml", *F32, "--json", out, "--fail-on", "origin")
    assert r.exit_code == 0, r.output
    doc = _report(out)
    assert [link["name"] for link in doc["links"]] == ["converter", "plugin", "end-to-end"]
    assert [link["status"] for link in doc["links"]] == ["within", "within", "within"], r.output
    assert doc["origins"] == [] and doc["blamed"] is None
    assert all(link["first_origin"] is None for link in doc["links"])
    converter, plugin, end = doc["links"]
    assert [(s["name"], s["role"]) for s in converter["sides"]] == [("onnxruntime", "reference"), ("irexec", "compared")]
    assert [(s["name"], s["role"]) for s in plugin["sides"]] == [("irexec", "reference"), ("openvino", "compared")]
    assert [(s["name"], s["role"]) for s in end["sides"]] == [("onnxruntime", "reference"), ("openvino", "compared")]
    assert plugin["report"]["config"] == {"INFERENCE_PRECISION_HINT": "f32"}
    assert plugin["report"]["properties"]["INFERENCE_PRECISION_HINT"] in ("f32", "float32")
    assert end["report"] is None and end["outputs"] and all(o["within"] for o in end["outputs"])
    assert converter["report"]["inputs"] == plugin["report"]["inputs"] == doc["inputs"]  # the same inputs feed all
    assert "verdict: every link within its stated accuracy" in r.output
    for title in ("link 1, the converter: ", "link 2, the plugin: ", "end to end: "):
        assert title in r.output


@pytest.mark.parametrize("damaged", sorted(DAMAGES))
def test_a_damaged_ir_is_blamed_on_the_converter(tmp_path: Path, run_cli, damaged: str) -> None:
    out = tmp_path / "chain.json"
    r = run_cli("diff", PAIRS / f"{damaged.split('_')[0]}.onnx", PAIRS / f"{damaged}.xml", *F32, "--json", out,
                "--fail-on", "origin")
    assert r.exit_code == 1, r.output
    doc = _report(out)
    converter, plugin, end = doc["links"]
    assert converter["status"] == "origin" and plugin["status"] == "within", r.output
    assert DAMAGES[damaged] in [converter["first_origin"], *converter["first_origin_group"]]
    assert end["status"] == "beyond" and not all(o["within"] for o in end["outputs"])
    assert doc["blamed"] == "converter" and doc["origins"][0] == converter["first_origin"]
    assert f"verdict: blame the converter: its first origin is {converter['first_origin']}" in r.output


def test_the_plugins_precision_at_its_defaults(tmp_path: Path, run_cli) -> None:
    """At the plugin's defaults the plugin's link is blamed only when it computes in a lower precision, and then
    as a precision choice, not a kernel origin (--fail-on origin stays 0)."""
    out = tmp_path / "chain.json"
    r = run_cli("diff", PAIRS / "transformer.onnx", PAIRS / "transformer.xml", "--device", "CPU", "--json", out,
                "--fail-on", "origin")
    assert r.exit_code == 0, r.output
    doc = _report(out)
    converter, plugin, _ = doc["links"]
    assert converter["status"] == "within" and plugin["report"]["config"] == {}
    if plugin["report"]["properties"].get("INFERENCE_PRECISION_HINT") in ("f32", "float32"):
        assert plugin["status"] == "within" and doc["blamed"] is None
    else:  # bf16 or f16 by default on this CPU
        assert plugin["status"] == "precision" and doc["blamed"] == "plugin", r.output
        assert "verdict: blame the plugin's precision" in r.output


def test_an_unavailable_device_is_one_coded_error(tmp_path: Path, run_cli) -> None:
    out = tmp_path / "chain.json"
    r = run_cli("diff", PAIRS / "cnn.onnx", PAIRS / "cnn.xml", "--device", "NO_SUCH_DEVICE", "--json", out)
    assert r.exit_code == 1 and "error[device-unavailable]" in r.output and "Traceback" not in r.output, r.output
    assert not out.exists()


@pytest.mark.parametrize("extra", [("--html", "x.html"), ("--extract", "repro"), ("--suggest",), ("--steps", "2")])
def test_options_of_other_modes_are_usage_errors(run_cli, extra: tuple[str, ...]) -> None:
    r = run_cli("diff", PAIRS / "cnn.onnx", PAIRS / "cnn.xml", "--device", "CPU", *extra)
    assert r.exit_code == 2 and "error[diff-usage]" in r.output and "runs the chain" in r.output, r.output


def test_a_source_and_a_device_without_the_ir_is_a_usage_error(run_cli) -> None:
    r = run_cli("diff", PAIRS / "cnn.onnx", "--device", "CPU")
    assert r.exit_code == 2 and "error[diff-usage]" in r.output, r.output


def test_the_chain_from_python() -> None:
    report = irexec.diff(str(PAIRS / "cnn.onnx"), str(PAIRS / "cnn_resize_asymmetric.xml"), device="CPU",
                         config={"INFERENCE_PRECISION_HINT": "f32"})
    assert [link.status for link in report.links] == ["origin", "within", "beyond"]
    assert report.links[0].first_origin is not None and report.links[0].first_origin.name == "resize"
    assert report.blamed is report.links[0] and [r.name for r in report.origins] == ["resize"]
    with pytest.raises(irexec.IRExecError, match="not applicable there: steps"):
        irexec.diff(str(PAIRS / "cnn.onnx"), str(PAIRS / "cnn.xml"), device="CPU", steps=2)


def test_the_chain_from_a_torch_export_program(tmp_path: Path, run_cli) -> None:
    pytest.importorskip("torch")
    out = tmp_path / "chain.json"
    r = run_cli("diff", PAIRS / "transformer.pt2", PAIRS / "transformer_pt_gelu_tanh.xml", "--inputs",
                PAIRS / "transformer_in.npz", *F32, "--json", out)
    assert r.exit_code == 0, r.output
    doc = _report(out)
    assert doc["links"][0]["sides"][0]["name"] == "torch" and doc["links"][2]["sides"][0]["name"] == "torch"
    assert doc["blamed"] == "converter" and doc["links"][1]["status"] == "within"
    assert "gelu/aten.gelu.default/Gelu" in [doc["links"][0]["first_origin"], *doc["links"][0]["first_origin_group"]]


def test_the_chain_from_a_live_module(tmp_path: Path) -> None:
    """A live nn.Module converted through TorchScript, as most models reach OpenVINO: the same example inputs
    feed the module, irexec and the device."""
    torch = pytest.importorskip("torch")
    import openvino as ov

    torch.manual_seed(0)
    module = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.Linear(32, 4)).eval()
    x = torch.randn(2, 16)
    xml = tmp_path / "block.xml"
    ov.save_model(ov.convert_model(module, example_input=(x,)), str(xml), compress_to_fp16=False)
    report = irexec.diff(module, str(xml), device="CPU", config={"INFERENCE_PRECISION_HINT": "f32"},
                         example_inputs=(x,))
    assert report.inputs == "example_inputs" and report.links[0].sides[0]["name"] == "torch"
    assert [link.status for link in report.links] == ["within", "within", "within"], report.verdict
    assert report.blamed is None and report.origins == []
