"""`irexec generate FOLDER --prompt`: an export folder made offline (a tiny stateful LM
over the vocabulary of tests/data/tokenizers/bpe, that tokenizer pair and a
generation_config.json) gives the text OpenVINO's greedy loop gives."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

ov = pytest.importorskip("openvino")
pytest.importorskip("openvino_tokenizers")
pytest.importorskip("pcre2")
from stateful_models import ov_greedy, save, tiny_lm  # noqa: E402

DATA = Path(__file__).parent / "data" / "tokenizers" / "bpe"
VOCAB = 377
PROMPT = "The quick brown fox jumps over"


def _folder(tmp_path: Path, eos: int | list[int] | None) -> Path:
    folder = tmp_path / "export"
    folder.mkdir(parents=True)
    save(tiny_lm(vocab=VOCAB, seed=3), folder, "openvino_model")
    for name in ("openvino_tokenizer", "openvino_detokenizer"):
        for ext in (".xml", ".bin"):
            shutil.copy(DATA / f"{name}{ext}", folder / f"{name}{ext}")
    if eos is not None:
        (folder / "generation_config.json").write_text(json.dumps({"eos_token_id": eos}))
    return folder


def _openvino_text(folder: Path, prompt: str, new: int, eos: set[int]) -> tuple[np.ndarray, str]:
    import openvino_tokenizers  # noqa: F401

    core = ov.Core()
    ids = core.compile_model(str(folder / "openvino_tokenizer.xml"), "CPU")([np.array([prompt])])
    input_ids = next(v for k, v in ids.items() if "input_ids" in k.get_names())
    tokens = ov_greedy(str(folder / "openvino_model.xml"), input_ids, new)
    generated = tokens[:, input_ids.shape[1]:]
    stop = next((i + 1 for i, t in enumerate(generated[0]) if int(t) in eos), generated.shape[1])
    generated = generated[:, :stop]
    text = core.compile_model(str(folder / "openvino_detokenizer.xml"), "CPU")([generated])
    return tokens[:, :input_ids.shape[1] + stop], str(next(iter(text.values()))[0])


def test_prompt_in_text_out_matches_openvino(tmp_path, run_cli):
    folder = _folder(tmp_path, None)
    _, want = _openvino_text(folder, PROMPT, 12, set())
    r = run_cli("generate", folder, "--prompt", PROMPT, "-n", "12")
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[0] == want.splitlines()[0] and want


def test_stops_at_generation_config_eos_and_compares_text_and_tokens(tmp_path, run_cli):
    probe = _folder(tmp_path / "probe", None)
    tokens, _ = _openvino_text(probe, PROMPT, 12, set())
    prompt_len = len(tokens[0]) - 12
    eos = int(tokens[0, prompt_len + 4])  # the fifth new token ends the text
    folder = _folder(tmp_path, [9999, eos])
    want_tokens, want_text = _openvino_text(folder, PROMPT, 12, {eos})
    (tmp_path / "want.txt").write_text(want_text, encoding="utf-8")
    np.save(tmp_path / "want.npy", want_tokens)
    out = tmp_path / "tokens.npy"
    r = run_cli("generate", folder, "--prompt", PROMPT, "-n", "12", "--compare", tmp_path / "want.txt", "--output", out)
    assert r.exit_code == 0, r.output
    assert "stopped" in r.output and "PASSED" in r.output
    assert np.array_equal(np.load(out), want_tokens)
    r = run_cli("generate", folder, "--prompt-file", tmp_path / "want.txt", "-n", "3")
    assert r.exit_code == 0, r.output
    (tmp_path / "prompt.txt").write_text(PROMPT, encoding="utf-8")
    r = run_cli("generate", folder, "--prompt-file", tmp_path / "prompt.txt", "-n", "12", "--compare", tmp_path / "want.npy")
    assert r.exit_code == 0 and "PASSED" in r.output, r.output
    (tmp_path / "other.txt").write_text(want_text + "!", encoding="utf-8")
    r = run_cli("generate", folder, "--prompt", PROMPT, "-n", "12", "--compare", tmp_path / "other.txt")
    assert r.exit_code == 1 and "text-mismatch" in r.output


def test_prompt_options_are_checked(tmp_path, run_cli):
    folder = _folder(tmp_path, 5)
    r = run_cli("generate", folder, "-n", "2")
    assert r.exit_code == 2 and "bad-prompt" in r.output
    r = run_cli("generate", folder / "openvino_model.xml", "--prompt", "x", "-n", "2")
    assert r.exit_code == 2 and "bad-prompt" in r.output
    (folder / "openvino_detokenizer.xml").unlink()
    r = run_cli("generate", folder, "--prompt", "x", "-n", "2")
    assert r.exit_code == 1 and "not-export-folder" in r.output and "openvino_detokenizer.xml" in r.output


def test_the_folder_checks_clean(tmp_path, run_cli):
    folder = _folder(tmp_path, 5)
    r = run_cli("check", folder)
    assert r.exit_code == 0 and "3 files, 0 errors, 0 warnings" in r.output, r.output


GENAI_PROMPTS = ["The quick brown fox jumps over", "Hello world!", "héllo 日本語 👍🏽", "  spaces  and\ttabs", "x"]


@pytest.mark.parametrize("stop_early", [False, True], ids=["to-the-limit", "at-eos"])
def test_text_matches_genai_llm_pipeline(stop_early: bool, tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """GenAI's LLMPipeline(folder) is the pipeline users run on an export folder:
    irexec prints, byte for byte, the greedy text it returns."""
    genai = pytest.importorskip("openvino_genai")
    new = 10
    folder = _folder(tmp_path / "probe", [VOCAB + 1])  # an end id no row reaches (GenAI wants one)
    eos: list[int] = []
    if stop_early:  # each prompt's third new token is an end id, as generation_config.json lists them
        for prompt in GENAI_PROMPTS:
            tokens, _ = _openvino_text(folder, prompt, new, set())
            eos.append(int(tokens[0, len(tokens[0]) - new + 2]))
        folder = _folder(tmp_path / "stops", eos)
    # f32 as irexec computes: where the CPU has bf16 units OpenVINO picks bf16 by default
    pipe = genai.LLMPipeline(str(folder), "CPU", INFERENCE_PRECISION_HINT="f32")
    for prompt in GENAI_PROMPTS:
        want = pipe.generate(prompt, max_new_tokens=new, do_sample=False)
        r = run_cli.subprocess("generate", folder, "--prompt", prompt, "-n", new)
        assert r.returncode == 0, r.stderr
        assert r.stdout == str(want) + "\n", prompt
        assert ("stopped" in r.stderr) == stop_early, r.stderr
