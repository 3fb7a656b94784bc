"""Real exports of newer LLM architectures, made offline by optimum-intel (and NNCF) with random
weights (tests/data/llm_exports/make_*.py), with OpenVINO CPU's logits for a prefill and a decode
step: each checks clean and runs both steps as OpenVINO does, its state carried between them
through the command line."""

from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data" / "llm_exports"
MODELS = sorted(p.name for p in DATA.iterdir() if (p / "openvino_model.xml").is_file())


@pytest.mark.parametrize("name", MODELS)
def test_export_checks_clean(name: str, run_cli) -> None:  # type: ignore[no-untyped-def]
    r = run_cli("check", DATA / name / "openvino_model.xml")
    assert r.exit_code == 0 and "0 errors, 0 warnings" in r.output, r.output


@pytest.mark.parametrize("name", MODELS)
def test_export_runs_prefill_and_decode_as_openvino(name: str, tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    d = DATA / name
    state = tmp_path / "state.npz"
    r = run_cli("run", d / "openvino_model.xml", "--inputs", d / "inputs_step0.npz", "--state-out", state,
                "--compare", d / "expected_step0.npz")
    assert r.exit_code == 0 and "PASSED" in r.output, r.output
    r = run_cli("run", d / "openvino_model.xml", "--inputs", d / "inputs_step1.npz", "--state-in", state,
                "--compare", d / "expected_step1.npz")
    assert r.exit_code == 0 and "PASSED" in r.output, r.output


def test_gpt_oss_uses_attention_sinks_and_mxfp4() -> None:
    """What the gpt-oss export is there for: ScaledDotProductAttention-13 with its 6th input
    (the sinks) and MXFP4 weights (f4e2m1 values, f8e8m0 scales)."""
    from irexec.api.load import read_model

    model = read_model(str(DATA / "gpt_oss" / "openvino_model.xml"))
    sdpa = [layer for layer in model.layers.values() if layer.type == "ScaledDotProductAttention"]
    assert sdpa and all(len(layer.inputs) == 6 for layer in sdpa)
    types = {layer.data.get("element_type") for layer in model.layers.values() if layer.type == "Const"}
    assert {"f4e2m1", "f8e8m0"} <= types
