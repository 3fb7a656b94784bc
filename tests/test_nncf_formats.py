"""Every weight format NNCF 3.4 writes (tests/data/nncf_formats, made by
tests/data/make_nncf_formats.py from a small stateful f32 LLM): irexec's logits
for a prefill and one decode step equal OpenVINO CPU's at f32 within the f32
default tolerance, and its greedy tokens are OpenVINO's."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

ov = pytest.importorskip("openvino")
from oracle import core  # noqa: E402

import irexec  # noqa: E402
from irexec.model.rewrites import decompression  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "nncf_formats"
LISTING = json.loads((DATA / "formats.json").read_text())
CPU_F32 = {"INFERENCE_PRECISION_HINT": "f32", "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0", "KV_CACHE_PRECISION": "f32"}
NEW_TOKENS = 6


def step_inputs(ids: np.ndarray, past: int) -> dict[str, np.ndarray]:
    batch, new = ids.shape
    return {"input_ids": ids.astype(np.int64), "attention_mask": np.ones((batch, past + new), np.int64),
            "position_ids": np.broadcast_to(np.arange(past, past + new, dtype=np.int64), (batch, new)).copy(),
            "beam_idx": np.arange(batch, dtype=np.int32)}


def _worst(ours: np.ndarray, theirs: np.ndarray) -> float:
    """The largest difference, in units of `run --compare`'s f32 default (atol 1e-4 x the largest
    |reference|, rtol 1e-5): at most 1 passes."""
    bound = 1e-4 * np.max(np.abs(theirs)) + 1e-5 * np.abs(theirs)
    return float(np.max(np.abs(ours.astype(np.float64) - theirs) / bound))


def test_every_format_is_listed() -> None:
    """The formats the generator wrote are the folders here, and every NNCF mode is among them."""
    folders = sorted(p.name for p in DATA.iterdir() if p.is_dir())
    assert folders == sorted(LISTING["formats"])
    modes = {f["nncf"]["mode"] for f in LISTING["formats"].values()}
    assert modes >= {"INT8_SYM", "INT8_ASYM", "INT4_SYM", "INT4_ASYM", "NF4", "MXFP4", "MXFP8_E4M3", "FP8_E4M3",
                     "NVFP4", "CB4"}


@pytest.mark.parametrize("name", sorted(LISTING["formats"]))
def test_format_agrees_with_openvino_cpu(name: str) -> None:
    xml = DATA / name / "model.xml"
    prompt = np.load(DATA / "prompt.npz")["input_ids"]
    request = core().compile_model(core().read_model(xml), "CPU", CPU_F32).create_infer_request()
    model = irexec.load(str(xml))
    assert decompression.find(model), "every format has f16 chains"
    with irexec.Session(model) as session:
        feeds = step_inputs(prompt, 0)
        tokens = prompt
        for step in range(NEW_TOKENS):
            theirs = np.asarray(request.infer(feeds)["logits"], np.float32).copy()
            ours = session.run(feeds)["logits"]
            worst = _worst(ours, theirs)
            assert worst <= 1, f"step {step}: {worst:.3g} x the f32 default tolerance"
            token = theirs[:, -1].argmax(-1)[:, None].astype(np.int64)
            assert (ours[:, -1].argmax(-1) == token[:, 0]).all(), f"step {step}: greedy token differs"
            tokens = np.concatenate([tokens, token], 1)
            feeds = step_inputs(token, tokens.shape[1] - 1)


def _openvino_greedy(xml: Path, prompt: np.ndarray, new: int) -> np.ndarray:
    request = core().compile_model(core().read_model(xml), "CPU", CPU_F32).create_infer_request()
    tokens, feeds = prompt, step_inputs(prompt, 0)
    for _ in range(new):
        token = np.asarray(request.infer(feeds)["logits"])[:, -1].argmax(-1)[:, None].astype(np.int64)
        tokens = np.concatenate([tokens, token], 1)
        feeds = step_inputs(token, tokens.shape[1] - 1)
    return tokens


@pytest.mark.parametrize("name", ["cb4", "nvfp4", "mxfp4", "nf4_g32", "int4_asym_g16_awq_scale_estimation"])
def test_generate_gives_openvinos_greedy_tokens(name: str, tmp_path: Path, run_cli) -> None:
    """`irexec generate -i prompt.npz --compare` passes on OpenVINO's greedy tokens."""
    xml = DATA / name / "model.xml"
    expected = tmp_path / "tokens.npy"
    np.save(expected, _openvino_greedy(xml, np.load(DATA / "prompt.npz")["input_ids"], 8))
    result = run_cli("generate", xml, "-i", DATA / "prompt.npz", "-n", 8, "--compare", expected)
    assert result.exit_code == 0, result.output
