"""irexec diff --device at the plugin's lower inference precisions (bf16, f16): the
precision each layer really ran in, read from the runtime graph; a layer re-run at that
precision tells a precision origin from a kernel origin; a plugin-side bug planted deep
in a real model is the first kernel origin, found by the default search, and unplanted
models show none."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import numpy as np
import pytest

ov = pytest.importorskip("openvino")
jsonschema = pytest.importorskip("jsonschema")

SCHEMA = Path(__file__).resolve().parent.parent / "schemas" / "diff-report.schema.json"
MODELS = Path(os.environ.get("IREXEC_REAL_MODELS") or Path(__file__).resolve().parents[1].parent / "shared" / "models")
HAS_PLOTLY = importlib.util.find_spec("plotly") is not None
SQUEEZENET = MODELS / "squeezenet1_1"
needs_models = pytest.mark.skipif(not SQUEEZENET.is_dir(), reason="the shared models are not here")


def _low_precision() -> str | None:
    """A precision below f32 the CPU plugin computes in on this host (bf16 first), or None."""
    caps = ov.Core().get_property("CPU", "OPTIMIZATION_CAPABILITIES")
    return "bf16" if "BF16" in caps else "f16" if "FP16" in caps else None


def _low_config() -> list[str]:
    low = _low_precision()
    if low is None:
        pytest.skip("the CPU plugin computes in neither bf16 nor f16 on this host")
    return ["--config", f"INFERENCE_PRECISION_HINT={low}"]


def _report(path: Path) -> dict:
    doc = json.loads(path.read_text())
    jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text())).validate(doc)
    return doc


def _plant(tmp_path: Path, kind: str) -> Path:
    """squeezenet1_1 with a plugin-side bug inserted two thirds of the way down (after a
    fire module's Concat, so every later layer carries it): ``interpolate``: an
    Interpolate-11 bicubic_pillow with cube_coeff -0.75, which OpenVINO CPU ignores (it
    uses -0.5); ``antialias``: an Interpolate-11 linear with antialias downsampling by 2,
    for which OpenVINO CPU uses its own filter, not the specification's triangle widened by
    the scale; ``divide``: an integer Divide with m_pythondiv on negative operands, which
    it truncates towards zero instead of flooring."""
    from openvino import opset11 as ops

    model = ov.Core().read_model(SQUEEZENET / "model.xml")
    concats = [n for n in model.get_ordered_ops() if n.get_type_name() == "Concat"]
    x = concats[len(concats) * 2 // 3].output(0)
    consumers = list(x.get_target_inputs())
    if kind in ("interpolate", "antialias"):
        h, w = (x.get_partial_shape()[i].get_length() for i in (2, 3))
        axes = ops.constant(np.array([2, 3], np.int64))
        half = ops.constant(np.array([h // 2, w // 2], np.int64))
        down = (ops.interpolate(x, half, "bicubic_pillow", "sizes", axes=axes, cube_coeff=-0.75, name="planted")
                if kind == "interpolate" else
                ops.interpolate(x, half, "linear", "sizes", axes=axes, antialias=True, name="planted"))
        back = ops.interpolate(down, ops.constant(np.array([h, w], np.int64)), "nearest", "sizes", axes=axes)
    else:
        q = ops.convert(ops.multiply(x, ops.constant(np.float32(-8.0))), "i32")  # x >= 0 after ReLU: negative
        back = ops.multiply(ops.convert(ops.divide(q, ops.constant(np.int32(3)), name="planted"), "f32"),
                            ops.constant(np.float32(0.01)))
    added = ops.add(x, back)
    for c in consumers:
        c.replace_source_output(added.output(0))
    xml = tmp_path / f"{kind}.xml"
    ov.save_model(model, str(xml), compress_to_fp16=False)
    return xml


@needs_models
@pytest.mark.parametrize("kind", ["interpolate", "antialias", "divide"])
def test_a_planted_bug_is_the_first_kernel_origin_at_low_precision(tmp_path: Path, run_cli, kind: str) -> None:
    xml = _plant(tmp_path, kind)
    out = tmp_path / "r.json"
    folder = tmp_path / "repro"
    r = run_cli("diff", xml, "--device", "CPU", "--inputs", SQUEEZENET / "inputs.npz", *_low_config(), "--json", out,
                "--fail-on", "origin", "--extract", folder)
    assert r.exit_code == 1, r.output
    assert "FINDING: planted" in r.output and "PRECISION ORIGINS" in r.output
    doc = _report(out)
    assert doc["finding"] == "planted" and doc["origins"] == ["planted"]
    assert [o["name"] for o in doc["kernel_origins"]] == ["planted"] and doc["kernel_origins"][0]["ports"] == [0]
    # the Convolutions before it ran in the low precision and agree with a re-run at that precision
    groups = {(g["op"], g["precision"]): g["layers"] for g in doc["precision_origins"]}
    low = _low_precision()
    assert len(groups[("Convolution", low)]) >= 10
    layers = {(x["name"], x["port"]): x for x in doc["layers"]}
    conv = layers[(groups[("Convolution", low)][0], 0)]
    assert conv["status"] == "precision" and conv["precision"] == low and conv["runtime"]["precision"] == low
    assert conv["local"]["beyond"] > 0 and conv["emulated"]["beyond"] == 0 and conv["beyond_precision"] < 1
    planted = layers[("planted", 0)]
    assert planted["status"] == "origin" and planted["local"]["beyond"] > 0
    if kind != "divide":  # computed in the low precision, and far beyond what that precision explains
        assert planted["precision"] == low and planted["beyond_precision"] > 20
        assert all(c["beyond_precision"] < 1 for c in (layers[(n, 0)] for n in groups[("Convolution", low)]))
    _check_reproducer(folder, run_cli, kind)


def _check_reproducer(folder: Path, run_cli, kind: str) -> None:
    """The extracted folder: the layer alone, which OpenVINO alone (the README's snippet) and
    irexec both show departing from the specification's value."""
    import subprocess
    import sys

    assert sorted(p.name for p in folder.iterdir()) == ["README.md", "expected.npz", "inputs.npz", "model.bin", "model.xml"]
    model = ov.Core().read_model(folder / "model.xml")
    assert [op.get_type_name() for op in model.get_ordered_ops() if op.get_type_name() not in
            ("Parameter", "Constant", "Result")] == ["Divide" if kind == "divide" else "Interpolate"]
    readme = (folder / "README.md").read_text()
    if kind != "divide":  # the plugin held the Interpolate's input in the low precision: those values exactly, in f32
        from irexec.api.diff.precision import numpy_type

        low = _low_precision()
        held = np.load(folder / "inputs.npz")["input0"]
        assert held.dtype == np.float32 and model.inputs[0].get_element_type() == ov.Type.f32
        assert np.array_equal(held.astype(numpy_type(low)).astype(np.float32), held)
        assert f"held `input0` in {low} between layers" in readme
    snippet = readme.split("```python\n", 1)[1].split("```", 1)[0]
    done = subprocess.run([sys.executable, "-c", snippet], cwd=folder, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    words = done.stdout.split()
    relative, differing = float(words[words.index("value") + 1]), int(words[words.index("differing") + 1])
    assert differing > 100 and relative > (0 if kind == "divide" else 1e-3)
    out = folder.parent / "again.json"
    r = run_cli("diff", folder / "model.xml", "--device", "CPU", "--inputs", folder / "inputs.npz", *_low_config(),
                "--json", out, "--fail-on", "origin")
    assert r.exit_code == 1, r.output
    assert _report(out)["finding"] == "planted"


@needs_models
def test_an_unplanted_model_has_no_kernel_origin_at_low_precision(tmp_path: Path, run_cli) -> None:
    out = tmp_path / "r.json"
    r = run_cli("diff", SQUEEZENET / "model.xml", "--device", "CPU", "--inputs", SQUEEZENET / "inputs.npz",
                *_low_config(), "--json", out, "--fail-on", "origin", "--extract", tmp_path / "repro")
    assert r.exit_code == 0, r.output
    assert not (tmp_path / "repro").exists() and "nothing was extracted" in r.output
    assert "no kernel origin found" in r.output and "explained by the runtime precision" in r.output
    doc = _report(out)
    assert not doc["outputs_within"] and doc["origins"] == [] and doc["finding"] is None and doc["masked"] == []
    assert doc["precision_origins"]


@needs_models
def test_suggest_names_the_setting_that_brings_the_outputs_within(tmp_path: Path, run_cli) -> None:
    out = tmp_path / "r.json"
    r = run_cli("diff", SQUEEZENET / "model.xml", "--device", "CPU", "--inputs", SQUEEZENET / "inputs.npz",
                *_low_config(), "--suggest", "--json", out)
    assert r.exit_code == 0, r.output
    doc = _report(out)
    s = doc["suggestion"]
    assert not s["baseline"]["within"] and s["baseline"]["seconds"] > 0
    assert "INFERENCE_PRECISION_HINT" in s["tried"]
    hint = next(t for t in s["trials"] if t["settings"] == {"INFERENCE_PRECISION_HINT": "f32"})
    assert hint["within"] and hint["worst_rel_l2"] < 1e-5 and hint["seconds"] > 0
    best = s["best"]
    assert best is not None and len(best["settings"]) == 1 and best["within"]  # one setting is enough: the smallest set
    assert all(len(t["settings"]) == 1 for t in s["trials"])  # no superset of the clean hint, no set of inert ones
    assert s["best"] == s["minimal"][0] and {"INFERENCE_PRECISION_HINT": "f32"} in [t["settings"] for t in s["minimal"]]
    kv = next(t for t in s["trials"] if t["settings"] == {"KV_CACHE_PRECISION": "f32"})  # a model without a KV cache
    assert kv["dropped"] == "no effect alone" and kv["read_back"]["KV_CACHE_PRECISION"] == "f32"
    assert "SUGGESTION: " in r.output and "times the latency" in r.output
    assert "no effect alone, so tried only with a property that has one: KV_CACHE_PRECISION=f32" in r.output


@needs_models
def test_suggest_states_the_cap_on_compilations_when_it_stops_the_search(tmp_path: Path, run_cli, monkeypatch) -> None:
    from irexec.api.diff import suggest

    monkeypatch.setattr(suggest, "MAX_COMPILATIONS", 3)
    out = tmp_path / "r.json"
    r = run_cli("diff", SQUEEZENET / "model.xml", "--device", "CPU", "--inputs", SQUEEZENET / "inputs.npz",
                *_low_config(), "--suggest", "--json", out)
    assert r.exit_code == 0, r.output
    s = _report(out)["suggestion"]
    assert s["capped"] and s["compilations"] == 3 and len(s["trials"]) == 2
    assert "stopped after 3 compilations (the cap)" in r.output


def _low_default() -> str:
    """The precision below f32 the CPU plugin computes in by default on this host; skips where it is f32."""
    hint = ov.Core().get_property("CPU", "INFERENCE_PRECISION_HINT")
    if hint == ov.Type.f32:
        pytest.skip("the CPU plugin computes in f32 by default on this host: nothing for --suggest to fix at its defaults"
                    " (an explicit low hint would override the accuracy mode the test expects)")
    return hint.to_string()


@pytest.mark.skipif(not (MODELS / "smollm_int4_stateful").is_dir(), reason="the shared models are not here")
def test_suggest_names_every_minimal_set_on_the_stateful_llm_at_its_defaults(tmp_path: Path, run_cli) -> None:
    """The accuracy mode alone is clean, and so is the f32 hint only together with no dynamic quantization
    and an f32 cache: every inclusion-minimal clean set is named, none a superset of another."""
    _low_default()
    model = MODELS / "smollm_int4_stateful"
    out = tmp_path / "r.json"
    r = run_cli("diff", model / "model.xml", "--device", "CPU", "--inputs", model / "inputs_step0.npz", "--steps", "1",
                "--suggest", "--json", out)
    assert r.exit_code == 0, r.output
    s = _report(out)["suggestion"]
    sets = [frozenset(t["settings"]) for t in s["minimal"]]
    assert all(t["within"] for t in s["minimal"]) and frozenset({"EXECUTION_MODE_HINT"}) in sets
    hint = next(m for m in sets if "INFERENCE_PRECISION_HINT" in m)
    assert {"DYNAMIC_QUANTIZATION_GROUP_SIZE"} < hint and hint & {"KV_CACHE_PRECISION", "KEY_CACHE_PRECISION",
                                                                 "VALUE_CACHE_PRECISION"}
    assert not any(a < b for a in sets for b in sets)  # inclusion-minimal
    tried = [frozenset(t["settings"]) for t in s["trials"]]
    assert not any(m < t for m in sets for t in tried)  # no superset of a clean set compiled
    for m in sets:  # every proper subset was tried and is beyond
        for k in m:
            if len(m) > 1:
                assert m - {k} in tried and not s["trials"][tried.index(m - {k})]["within"]
    seconds = [t["seconds"] for t in s["minimal"]]
    assert s["best"] == s["minimal"][0] and seconds == sorted(seconds)
    accuracy = next(t for t in s["minimal"] if set(t["settings"]) == {"EXECUTION_MODE_HINT"})
    assert "DYNAMIC_QUANTIZATION_GROUP_SIZE=0" in accuracy["why"] and "KV_CACHE_PRECISION=f32" in accuracy["why"]
    assert s["compilations"] <= 48 and not s["capped"]
    assert "SUGGESTION: " in r.output and f"ALTERNATIVES ({len(sets) - 1})" in r.output and "without " in r.output


@needs_models
def test_the_precision_read_is_what_the_arithmetic_used(tmp_path: Path, run_cli) -> None:
    """Under the f32 hint the runtime graph says f16 for a Convolution whose IR weights are
    f16 (runtimePrecision follows the weights' type); it computes in f32, and irexec says so."""
    out = tmp_path / "r.json"
    r = run_cli("diff", SQUEEZENET / "model.xml", "--device", "CPU", "--inputs", SQUEEZENET / "inputs.npz",
                "--config", "INFERENCE_PRECISION_HINT=f32", "--layers", "all", "--json", out)
    assert r.exit_code == 0, r.output
    doc = _report(out)
    convs = [x for x in doc["layers"] if x["op"].startswith("Convolution")]
    assert convs and all(c["runtime"]["precision"] == "f32" for c in convs)
    assert all(c["runtime"]["reported_precision"] == "f16" for c in convs)  # what rt_info states
    assert any("states runtimePrecision f16" in n and "compute in f32" in n for n in doc["notes"])
    assert doc["origins"] == [] and doc["precision_origins"] == []


def _masked_then_real(tmp_path: Path) -> tuple[str, str]:
    """Two integer Divides with m_pythondiv on negative operands (OpenVINO CPU truncates
    where the spec floors): the first one's departure a Maximum with 0 removes (every
    quotient is negative), the second one's reaches the output."""
    from irexec.model.builder import IRBuilder

    b = IRBuilder()
    x, y = b.parameter("x", [2, 4], "i32"), b.parameter("y", [2, 4], "i32")
    hidden = b.layer("Divide", "opset1", [x, b.const(np.full([2, 4], 3, np.int32))], {"m_pythondiv": "true"},
                     name="masked_div")
    clipped = b.layer("Maximum", "opset1", [hidden, b.const(np.zeros([2, 4], np.int32))], name="clip")
    shown = b.layer("Divide", "opset1", [b.layer("Add", "opset1", [x, clipped], name="pre"), y],
                    {"m_pythondiv": "true"}, name="real_div")
    b.result(b.layer("Multiply", "opset1", [shown, y], name="after"), "out")
    xml, _ = b.write(tmp_path / "model.xml")
    inputs = tmp_path / "in.npz"
    np.savez(inputs, x=np.array([[-7, -8, -10, -5], [-1, -4, -11, -13]], np.int32),
             y=np.array([[2, 3, 4, -3], [5, 2, 3, 4]], np.int32))
    return xml, str(inputs)


@pytest.mark.parametrize("mode", ["bisect", "all"])
def test_a_masked_departure_is_apart_and_does_not_stop_the_search(tmp_path: Path, run_cli, mode: str) -> None:
    xml, inputs = _masked_then_real(tmp_path)
    out = tmp_path / "r.json"
    page = tmp_path / "r.html"
    r = run_cli("diff", xml, "--device", "CPU", "--inputs", inputs, "--layers", mode, "--json", out,
                *(["--html", page] if HAS_PLOTLY else []))
    assert r.exit_code == 0, r.output
    assert "FINDING: real_div" in r.output and "MASKED (1)" in r.output
    if HAS_PLOTLY:
        text = page.read_text()
        assert "<b>Finding: <code>real_div</code></b>" in text and "<b>Masked</b>" in text
        assert text.index("Finding") < text.index("Masked")
    assert r.output.index("FINDING") < r.output.index("MASKED")
    doc = _report(out)
    assert doc["finding"] == "real_div" and doc["origins"] == ["real_div"]
    assert [m["name"] for m in doc["masked"]] == ["masked_div"]
    status = {x["name"]: x["status"] for x in doc["layers"]}
    assert status["masked_div"] == "masked" and status["clip"] == "match" and status["after"] == "inherited"


@pytest.mark.parametrize("device", ["GPU", "NPU", "NOPE", "AUTO:NOPE,CPU"])
def test_an_absent_device_is_one_coded_error_naming_the_devices_listed(tmp_path: Path, run_cli, device: str) -> None:
    listed = ov.Core().available_devices
    wanted = device.split(":")[-1].split(",")[0]
    if any(d.split(".")[0] == wanted for d in listed):
        pytest.skip(f"this machine has a {wanted} device")
    xml, inputs = _masked_then_real(tmp_path)
    r = run_cli("diff", xml, "--device", device, "--inputs", inputs)
    assert r.exit_code == 1, r.output
    assert r.output.count("error[") == 1 and "error[device-unavailable]" in r.output and "Traceback" not in r.output
    assert f"no {wanted} device" in r.output and f"it lists: {', '.join(listed)}" in r.output
    assert "Exception from" not in r.output and not r.output.rstrip().endswith(":")


@pytest.mark.skipif(not (MODELS / "smollm_int4_stateful").is_dir(), reason="the shared models are not here")
def test_an_f16_kv_cache_is_a_precision_origin(tmp_path: Path, run_cli) -> None:
    """With f32 inference and no dynamic quantization, the stateful LLM's only departure is its
    KV cache, stored in f16 (KV_CACHE_PRECISION): each ReadValue is a precision origin, not a kernel one."""
    model = MODELS / "smollm_int4_stateful"
    out = tmp_path / "r.json"
    r = run_cli("diff", model / "model.xml", "--device", "CPU", "--inputs", model / "inputs_step0.npz", "--steps", "1",
                "--config", "INFERENCE_PRECISION_HINT=f32", "--config", "DYNAMIC_QUANTIZATION_GROUP_SIZE=0",
                "--config", "KV_CACHE_PRECISION=f16", "--json", out, "--fail-on", "origin")
    assert r.exit_code == 0, r.output
    doc = _report(out)
    assert doc["analysed_step"] == 1 and doc["origins"] == [] and doc["finding"] is None
    groups = {(g["op"], g["precision"]): g["layers"] for g in doc["precision_origins"]}
    assert groups.get(("ReadValue", "f16"))
    read = next(x for x in doc["layers"] if x["name"] == groups[("ReadValue", "f16")][0])
    assert read["status"] == "precision" and read["runtime"]["node"] == "KV cache state"
