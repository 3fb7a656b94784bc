"""`irexec diff A.xml B.xml`: bert_tiny against its NNCF-compressed copies
(tests/data/diff_ab, made by make_compressed.py), a scale damaged on purpose,
the data-set mode on 1 and 2 processes and a Dask cluster, and a stateful LM."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from bert_tiny_pairs import BERT, DAMAGED, DATA, MODELS, damaged_copy, write_samples

import irexec

SCHEMA = Path(__file__).resolve().parent.parent / "schemas" / "diff-report.schema.json"

pytestmark = pytest.mark.skipif(not BERT.is_dir(), reason="the shared models are not here")


def _validate(doc: dict) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text())).validate(doc)


def test_int8_copy_matches_every_layer_and_reports_each_weight(tmp_path: Path, run_cli) -> None:
    out = tmp_path / "r.json"
    r = run_cli("diff", BERT / "model.xml", DATA / "bert_tiny_int8.xml", "--inputs", BERT / "inputs.npz", "--json", out)
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    _validate(doc)
    assert doc["matching"]["unmatched_a"] == {} and len(doc["matching"]["matched"]) == 95
    assert len(doc["weights"]) == 15  # NNCF compressed 15 weights (12 MatMul, 3 embeddings)
    for w in doc["weights"]:
        assert w["element_type"] == "u8" and w["zero_point"].startswith("per group")
        assert 40 < w["sqnr_db"] < 50 and w["max_steps"] <= 1.0 and w["within_rounding"]
    # undamaged: every departure is within the rounding of the compressed weights
    assert doc["origins"] == []
    assert "within the rounding of their compressed weights" in r.output
    assert "nncf.IgnoredScope(names=[" in r.output


def test_int4_groups_of_32(tmp_path: Path, run_cli) -> None:
    out = tmp_path / "r.json"
    page = tmp_path / "r.html"
    r = run_cli("diff", BERT / "model.xml", DATA / "bert_tiny_int4.xml", "--inputs", BERT / "inputs.npz", "--json", out,
                "--html", page)
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    text = page.read_text()
    assert "<h2>Compressed weights</h2>" in text and doc["weights"][0]["layer"] in text
    _validate(doc)
    assert {w["element_type"] for w in doc["weights"]} == {"u4"} and {w["group_size"] for w in doc["weights"]} == {32}
    assert all(15 < w["sqnr_db"] < 30 for w in doc["weights"])
    alone = [w["output_rel_l2"] for w in doc["weights"]]  # every weight measured with the default --ablate 32
    assert None not in alone and alone == sorted(alone, reverse=True)
    r = run_cli("diff", BERT / "model.xml", DATA / "bert_tiny_int4.xml", "--inputs", BERT / "inputs.npz", "--json", out,
                "--ablate", "2")
    doc = json.loads(out.read_text())
    assert [w["output_rel_l2"] is None for w in doc["weights"]] == [False, False] + [True] * 13
    rest = [w["layer_rel_l2"] for w in doc["weights"][2:]]
    assert rest == sorted(rest, reverse=True)


@pytest.mark.parametrize("kind", ["int8", "int4"])
def test_a_damaged_scale_is_the_origin_and_its_weight_ranks_first(tmp_path: Path, run_cli, kind: str) -> None:
    damaged, out = damaged_copy(tmp_path, kind), tmp_path / "r.json"
    r = run_cli("diff", BERT / "model.xml", damaged, "--inputs", BERT / "inputs.npz", "--json", out)
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    assert doc["origins"] == [DAMAGED]
    damaged = next(w for w in doc["weights"] if w["layer"] == DAMAGED)
    assert not damaged["within_rounding"] and damaged["max_steps"] > 1
    assert all(w["within_rounding"] for w in doc["weights"] if w is not damaged)
    # damaged first; every other weight is measured by the outputs' error with only it compressed, and ranked by it
    assert doc["weights"][0] is damaged
    assert f"    {DAMAGED!r}," in r.output.split("nncf.IgnoredScope(names=[")[1].splitlines()[1] + ","
    alone = [w["output_rel_l2"] for w in doc["weights"][1:]]
    assert None not in alone and alone == sorted(alone, reverse=True)
    # the embeddings' rounding costs the outputs more than the damaged channel or group does: the ranking says so
    assert all(w["layer"].endswith("embedding/Gather") for w in doc["weights"][1:4])
    assert min(alone[:3]) > damaged["output_rel_l2"] > max(alone[3:])


def test_python_api_returns_the_report(tmp_path: Path) -> None:
    with pytest.raises(irexec.UsageError) as e:
        irexec.api.diff(str(BERT / "model.xml"))
    assert e.value.diagnostics[0].code == "diff-usage"
    report = irexec.api.diff(str(BERT / "model.xml"), str(damaged_copy(tmp_path)), inputs=str(BERT / "inputs.npz"))
    assert [r.name for r in report.origins] == [DAMAGED] and report.weights[0].layer == DAMAGED
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError):
            report.to_dataframe()
    else:
        frame = report.to_dataframe()
        assert set(frame[frame.status == "origin"].name) == {DAMAGED}


def _samples(folder: Path, n: int = 3) -> Path:
    return write_samples(folder, n, seed=0)


def _dataset(run_cli, tmp_path: Path, name: str, *args: str) -> dict:
    out = tmp_path / f"{name}.json"
    r = run_cli("diff", BERT / "model.xml", DATA / "bert_tiny_int8.xml", "--inputs-dir", tmp_path / "in",
                "--json", out, *args)
    assert r.exit_code == 0, r.output
    full = json.loads(out.read_text())
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator(json.loads((SCHEMA.parent / "diff-dataset.schema.json").read_text())).validate(full)
    doc = full["dataset"]
    doc.pop("runner")
    return doc


def test_data_set_figures_do_not_depend_on_where_samples_run(tmp_path: Path, run_cli) -> None:
    _samples(tmp_path / "in")
    serial = _dataset(run_cli, tmp_path, "j1", "-j", "1")
    assert serial["samples"] == ["s0.npz", "s1.npz", "s2.npz"]
    assert all(s["samples"] == 3 for s in serial["layers"].values()) and len(serial["weights"]) == 15
    output = next(iter(serial["outputs"].values()))
    assert output["max_rel_l2"] > output["mean_rel_l2"]  # the samples differ
    assert _dataset(run_cli, tmp_path, "j2", "-j", "2") == serial
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as cluster:
        assert _dataset(run_cli, tmp_path, "dask", "--scheduler", cluster.scheduler_address) == serial
    # byte-identical files but for the line naming the runner: the reduction is in sample order
    texts = [re.sub(r'\n *"runner": "[^"\n]*",', "", (tmp_path / f"{name}.json").read_text()) for name in ("j1", "j2", "dask")]
    assert texts[0] == texts[1] == texts[2] and '"keep_curve": [' in texts[0]


def test_usage_errors(tmp_path: Path, run_cli) -> None:
    (tmp_path / "in").mkdir()
    r = run_cli("diff", BERT / "model.xml", DATA / "bert_tiny_int8.xml", "--inputs-dir", tmp_path / "in")
    assert r.exit_code == 2 and "bad-inputs-dir" in r.output and "Traceback" not in r.output
    for args in ((BERT / "model.xml",), (BERT / "model.xml", DATA / "bert_tiny_int8.xml", "--device", "CPU", "--steps", "2"),
                 (BERT / "model.xml", "--device", "CPU", "--inputs-dir", tmp_path / "in")):
        r = run_cli("diff", *args)
        assert r.exit_code == 2 and "diff-usage" in r.output and "Traceback" not in r.output


def test_steps_feed_both_lms_the_same_tokens(tmp_path: Path, run_cli) -> None:
    ov = pytest.importorskip("openvino")
    from stateful_models import save, tiny_lm

    a = save(tiny_lm(), tmp_path, "a")
    model = tiny_lm()
    out_proj = next(op for op in model.get_ordered_ops() if op.get_type_name() == "MatMul"
                    and op.input_value(1).get_node().get_type_name() == "Constant"
                    and list(op.input_value(1).get_shape())[0] == 50)
    const = out_proj.input_value(1).get_node()
    w = const.get_data().copy()
    w[:, 3] *= 1.5  # one column of the output projection
    out_proj.input(1).replace_source_output(ov.opset13.constant(w).output(0))
    b = save(model, tmp_path, "b")
    np.savez(tmp_path / "p.npz", input_ids=np.array([[1, 2, 3, 4]]), attention_mask=np.ones((1, 4), np.int64),
             position_ids=np.arange(4)[None], beam_idx=np.zeros(1, np.int32))
    out = tmp_path / "r.json"
    r = run_cli("diff", a, b, "--inputs", tmp_path / "p.npz", "--steps", "4", "--json", out)
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    _validate(doc)
    assert len(doc["steps"]) == 5 and all(s["reference_token"] is not None for s in doc["steps"])
    assert not doc["steps"][0]["within"]
    # the two builds name their layers apart: they are matched by tensor names and structure, and named by A's names
    pair = next(m for m in doc["matching"]["matched"] if m["b"] == out_proj.get_friendly_name())
    assert doc["matching"]["unmatched_a"] == {} and doc["matching"]["counts"]["structure"] > 5
    assert doc["origins"] == [pair["a"]] and doc["analysed_step"] == 0
    assert [w["layer"] for w in doc["weights"]] == [pair["a"]]  # the other weights are the same
    assert doc["weights"][0]["element_type"] == "f32" and doc["weights"][0]["max_steps"] is None


def test_unmatched_layers_are_listed_with_why(tmp_path: Path, run_cli) -> None:
    ov = pytest.importorskip("openvino")
    from stateful_models import save, tiny_lm

    a = save(tiny_lm(), tmp_path, "a")
    model = tiny_lm()
    logits = next(r.input_value(0).get_node() for r in model.get_results())
    add = logits.input_value(0).get_node()
    assert add.get_type_name() == "Add"
    logits.input(0).replace_source_output(ov.opset13.subtract(add.input_value(0), add.input_value(1)).output(0))
    b = save(model, tmp_path, "b")
    np.savez(tmp_path / "p.npz", input_ids=np.array([[1, 2, 3]]), attention_mask=np.ones((1, 3), np.int64),
             position_ids=np.arange(3)[None], beam_idx=np.zeros(1, np.int32))
    out = tmp_path / "r.json"
    r = run_cli("diff", a, b, "--inputs", tmp_path / "p.npz", "--json", out)
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    _validate(doc)
    unmatched_a, unmatched_b = doc["matching"]["unmatched_a"], doc["matching"]["unmatched_b"]
    assert list(unmatched_a.values()) == ["no layer of B shares its tensor names or its name (fused or renamed in B)"]
    assert len(unmatched_b) == 1 and next(iter(unmatched_b.values())).startswith("Subtract: no layer of A")
    assert "unmatched in A (1)" in r.output and "unmatched in B (1)" in r.output
    # the logits MatMul matches by its tensor name; its input is not compared, so its cause is not known
    assert doc["origins"] == [] and doc["outputs"][0]["status"] == "beyond"
    assert [(layer["name"], layer["status"]) for layer in doc["layers"] if layer["status"] != "match"] == \
        [(doc["outputs"][0]["name"], "beyond")]


@pytest.mark.skipif(not (MODELS / "gpt2_tiny").is_dir(), reason="the shared models are not here")
def test_f32_and_f16_exports_match_layer_for_layer(tmp_path: Path, run_cli) -> None:
    """gpt2_tiny stores its weights in f16 (Const f16 -> Convert); its f32 export has the same
    layer names and weights of equal values: everything matches and no weight is listed."""
    ov = pytest.importorskip("openvino")
    model = ov.Core().read_model(str(MODELS / "gpt2_tiny" / "model.xml"))
    widened = 0
    for node in model.get_ordered_ops():
        source = node.input_value(0).get_node() if node.get_input_size() else None
        if node.get_type_name() == "Convert" and source.get_type_name() == "Constant" \
                and source.get_element_type() == ov.Type.f16:
            f32 = ov.opset13.constant(source.get_data().astype(np.float32))
            for target in node.output(0).get_target_inputs():
                target.replace_source_output(f32.output(0))
            widened += 1
    assert widened > 5
    a = tmp_path / "f32.xml"
    ov.save_model(model, str(a), compress_to_fp16=False)
    out = tmp_path / "r.json"
    r = run_cli("diff", a, MODELS / "gpt2_tiny" / "model.xml", "--inputs", MODELS / "gpt2_tiny" / "inputs.npz",
                "--json", out)
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    _validate(doc)
    assert doc["matching"]["unmatched_a"] == {} and doc["weights"] == [] and doc["origins"] == []
    assert doc["outputs_within"] and all(layer["figures"]["max_abs_error"] == 0 for layer in doc["layers"])
    assert "no compressed weight of B has an original in A" in r.output
