"""`irexec generate` on a state-space model: a tiny Mamba exported by optimum-intel
(tests/data/mamba_export/make_mamba.py), whose decode step needs cache_position.
optimum-intel's own greedy tokens are recorded beside it; a live OpenVINO loop fed
as optimum-intel feeds the model checks the recording against today's OpenVINO."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from irexec.api.generate.decode_inputs import Family, family_of
from irexec.base.errors import ModelError
from irexec.base.shapes import Dim, PartialShape

FOLDER = Path(__file__).parent / "data" / "mamba_export"
NEW = 12


def _recorded() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    prompts, expected = np.load(FOLDER / "prompts.npz"), np.load(FOLDER / "expected_tokens.npz")
    return {k: (prompts[k], expected[k]) for k in prompts.files}


@pytest.mark.parametrize("key", ["one", "two", "single"])
def test_mamba_generates_optimum_intels_greedy_tokens(key: str, tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    prompt, want = _recorded()[key]
    np.savez(tmp_path / "prompt.npz", input_ids=prompt)
    np.save(tmp_path / "want.npy", want)
    r = run_cli("generate", FOLDER / "openvino_model.xml", "-i", tmp_path / "prompt.npz", "-n", NEW,
                "--compare", tmp_path / "want.npy")
    assert r.exit_code == 0 and "PASSED" in r.output, r.output


def _openvino_greedy(xml: Path, ids: np.ndarray, new: int, conv_kernel: int) -> np.ndarray:
    """OpenVINO CPU fed as optimum-intel's OVModelWithMambaForCausalLM feeds it."""
    ov = pytest.importorskip("openvino")
    request = ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"}).create_infer_request()
    batch = ids.shape[0]
    tokens = ids.astype(np.int64)
    feeds = {"input_ids": tokens, "attention_mask": np.ones_like(tokens), "cache_position": np.arange(conv_kernel)}
    for _ in range(new):
        nxt = request.infer(feeds)["logits"][:, -1].argmax(-1).astype(np.int64)[:, None]
        tokens = np.concatenate([tokens, nxt], 1)
        feeds = {"input_ids": nxt, "attention_mask": np.ones((batch, 1), np.int64),
                 "cache_position": np.array([tokens.shape[1] - 1])}
    return tokens


def test_the_recording_is_what_openvino_gives_today() -> None:
    conv_kernel = json.loads((FOLDER / "config.json").read_text())["conv_kernel"]
    for prompt, want in _recorded().values():
        assert np.array_equal(_openvino_greedy(FOLDER / "openvino_model.xml", prompt, NEW, conv_kernel), want)


def test_without_config_json_the_conv_states_give_the_kernel(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "bare"
    folder.mkdir()
    for name in ("openvino_model.xml", "openvino_model.bin"):
        shutil.copy(FOLDER / name, folder / name)
    prompt, want = _recorded()["one"]
    np.savez(tmp_path / "prompt.npz", input_ids=prompt)
    np.save(tmp_path / "want.npy", want)
    r = run_cli("generate", folder / "openvino_model.xml", "-i", tmp_path / "prompt.npz", "-n", NEW,
                "--compare", tmp_path / "want.npy")
    assert r.exit_code == 0 and "PASSED" in r.output, r.output


def test_text_in_text_out_on_a_mamba_folder(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """The export folder form: the tokenizer pair beside the Mamba, the tokens OpenVINO's loop gives."""
    pytest.importorskip("openvino_tokenizers")
    pytest.importorskip("pcre2")
    import openvino as ov
    import openvino_tokenizers  # noqa: F401

    text = "The quick brown fox"
    core = ov.Core()
    ids = next(v for k, v in core.compile_model(str(FOLDER / "openvino_tokenizer.xml"), "CPU")([np.array([text])]).items()
               if "input_ids" in k.get_names())
    want = _openvino_greedy(FOLDER / "openvino_model.xml", ids, NEW, 4)
    out = tmp_path / "tokens.npy"
    r = run_cli("generate", FOLDER, "--prompt", text, "-n", NEW, "--output", out)
    assert r.exit_code == 0, r.output
    assert np.array_equal(np.load(out), want)


def test_the_export_folder_checks_clean(run_cli) -> None:  # type: ignore[no-untyped-def]
    r = run_cli("check", FOLDER)
    assert r.exit_code == 0 and "3 files, 0 errors, 0 warnings" in r.output, r.output


class _Var:
    def __init__(self, dims: tuple[int, ...]) -> None:
        self.shape = PartialShape(tuple(map(Dim.of, dims)))


def test_the_family_table(tmp_path: Path) -> None:
    xml = str(tmp_path / "openvino_model.xml")
    kv = {"past_key_values.0.keypresent.0.key": _Var((-1, 2, -1, 8))}
    ssm = {"cache_params.past.conv.0": _Var((-1, 64, 4)), "cache_params.past.ssm.0": _Var((-1, 64, 8))}
    assert family_of(xml, {"input_ids", "attention_mask", "beam_idx"}, kv) == Family("kv-cache")
    assert family_of(xml, {"input_ids", "cache_position"}, ssm) == Family("ssm", 4)
    assert family_of(xml, {"input_ids", "cache_position"}, {**ssm, **kv}) == Family("hybrid", 4)
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "lfm2", "conv_L_cache": 3}))
    assert family_of(xml, {"input_ids", "cache_position"}, ssm) == Family("hybrid", 3, "lfm2")
    assert not family_of(xml, {"input_ids", "cache_position"}, ssm).name == "ssm"
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "falcon_mamba"}))
    assert family_of(xml, {"input_ids", "cache_position"}, ssm) == Family("ssm", 4, "falcon_mamba")
    with pytest.raises(ModelError) as e:  # no kernel length anywhere: said, not guessed
        family_of(xml, {"input_ids", "cache_position"}, {"cache_params.past.conv.0": _Var((-1, 64, -1))})
    assert e.value.code == "not-causal-lm"
