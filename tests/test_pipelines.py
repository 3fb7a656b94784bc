"""The generation pipelines of the library: what `irexec generate FOLDER ...` does, one call
from Python (`irexec.open_pipeline(folder).generate(...)`, or the classes named as GenAI's),
giving the tokens and text the command line gives on the shipped export folders; and the
options `generate` gained with them (--ignore-eos, the prompt option that is missing named)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import irexec
from irexec import UsageError

ROOT = Path(__file__).resolve().parent.parent
TINY_EXPORT = ROOT / "examples" / "tiny-export"
TINY_LLM = ROOT / "examples" / "tiny-llm"
WHISPER = Path(__file__).parent / "data" / "whisper_export"
LLAVA = Path(__file__).parent / "data" / "llava_export"
MAMBA = Path(__file__).parent / "data" / "mamba_export"
PROMPT = "The quick brown fox"


def _tokens_from_cli(run_cli, tmp_path: Path, *args: object) -> tuple[np.ndarray, list[str]]:
    out = tmp_path / "cli_tokens.npy"
    r = run_cli("generate", *args, "--output", out)
    assert r.exit_code == 0, r.output
    return np.load(out), r.stdout.splitlines()


def test_a_model_file_generates_in_one_call_as_the_cli_does(run_cli, tmp_path: Path) -> None:
    prompt = dict(np.load(TINY_LLM / "prompt.npz"))
    result = irexec.open_pipeline(TINY_LLM / "model.xml").generate(prompt, max_new_tokens=8)
    cli_tokens, _ = _tokens_from_cli(run_cli, tmp_path, TINY_LLM / "model.xml", "--inputs", TINY_LLM / "prompt.npz", "-n", 8)
    assert np.array_equal(result.tokens, cli_tokens)
    assert np.array_equal(result.tokens, np.load(TINY_LLM / "greedy_tokens.npy"))  # OpenVINO's greedy tokens
    assert result.texts is None and result.text is None  # a model file has no detokenizer
    ids_only = irexec.LLMPipeline(TINY_LLM / "model.xml").generate(prompt["input_ids"][0].tolist(), max_new_tokens=8)
    assert np.array_equal(ids_only.tokens[0], result.tokens[0])  # token ids as a plain list: one row


def test_an_export_folder_generates_text_in_one_call_as_the_cli_does(run_cli, tmp_path: Path) -> None:
    pytest.importorskip("pcre2")
    pipe = irexec.open_pipeline(TINY_EXPORT)
    assert isinstance(pipe, irexec.LLMPipeline)
    result = pipe.generate(PROMPT, max_new_tokens=8)
    cli_tokens, _ = _tokens_from_cli(run_cli, tmp_path, TINY_EXPORT, "--prompt", PROMPT, "-n", 8)
    assert np.array_equal(result.tokens, cli_tokens)
    assert result.text and run_cli("generate", TINY_EXPORT, "--prompt", PROMPT, "-n", 8).stdout == result.text + "\n"
    assert result.prompt_length == len(result.tokens[0]) - result.new_tokens.shape[1] and result.latencies
    assert result.metrics().new_tokens == result.new_tokens.shape[1]


def test_a_whisper_folder_transcribes_in_one_call_as_the_cli_does(run_cli, tmp_path: Path) -> None:
    pytest.importorskip("pcre2")
    features = np.load(WHISPER / "features.npz")
    pipe = irexec.open_pipeline(WHISPER)
    assert isinstance(pipe, irexec.WhisperPipeline)
    result = pipe.generate(features=features["two"], max_new_tokens=10)
    expected = np.load(WHISPER / "expected_tokens.npz")
    assert np.array_equal(result.tokens, expected["two"][:, :result.tokens.shape[1]])
    np.save(tmp_path / "two.npy", features["two"])
    cli_tokens, lines = _tokens_from_cli(run_cli, tmp_path, WHISPER, "--audio-features", tmp_path / "two.npy", "-n", 10)
    assert np.array_equal(result.tokens, cli_tokens)
    assert result.texts is not None and lines[-2:] == result.texts
    heard = irexec.WhisperPipeline(WHISPER).generate(features["audio_one"], max_new_tokens=10)  # a waveform
    np.save(tmp_path / "wave.npy", features["audio_one"])
    cli_tokens, _ = _tokens_from_cli(run_cli, tmp_path, WHISPER, "--audio", tmp_path / "wave.npy", "-n", 10)
    assert np.array_equal(heard.tokens, cli_tokens)


def test_a_vlm_folder_generates_in_one_call_as_the_cli_does(run_cli, tmp_path: Path) -> None:
    pytest.importorskip("pcre2")
    pixels = np.load(LLAVA / "pixel_values.npy")
    pipe = irexec.open_pipeline(LLAVA)
    assert isinstance(pipe, irexec.VLMPipeline)
    result = pipe.generate("Look: <image> what is it?", image=pixels, max_new_tokens=6)
    cli_tokens, lines = _tokens_from_cli(run_cli, tmp_path, LLAVA, "--image", LLAVA / "pixel_values.npy",
                                         "--prompt", "Look: <image> what is it?", "-n", 6)
    assert np.array_equal(result.tokens, cli_tokens)
    assert result.texts == lines[1:]
    with pytest.raises(UsageError) as e:
        pipe.generate("what is it?", image=None, max_new_tokens=2)
    assert e.value.diagnostics[0].code == "bad-prompt" and "image" in str(e.value)


def _stopping_folder(tmp_path: Path) -> tuple[Path, np.ndarray]:
    """tiny-export whose generation_config.json ends the text at its third new token, and the tokens without that stop."""
    plain = irexec.LLMPipeline(TINY_EXPORT).generate(PROMPT, max_new_tokens=8, ignore_eos=True)
    folder = tmp_path / "stops"
    shutil.copytree(TINY_EXPORT, folder)
    eos = int(plain.new_tokens[0, 2])
    assert eos not in plain.new_tokens[0, :2].tolist()
    (folder / "generation_config.json").write_text(json.dumps({"eos_token_id": eos}))
    return folder, plain.tokens


def test_ignore_eos_generates_max_new_tokens(run_cli, tmp_path: Path) -> None:
    pytest.importorskip("pcre2")
    folder, unstopped = _stopping_folder(tmp_path)
    stopped = irexec.open_pipeline(folder).generate(PROMPT, max_new_tokens=8)
    assert stopped.stopped_by_eos and stopped.new_tokens.shape[1] == 3
    ignored = irexec.open_pipeline(folder).generate(PROMPT, max_new_tokens=8, ignore_eos=True)
    assert not ignored.stopped_by_eos and np.array_equal(ignored.tokens, unstopped)
    cli_tokens, _ = _tokens_from_cli(run_cli, tmp_path, folder, "--prompt", PROMPT, "-n", 8)
    assert np.array_equal(cli_tokens, stopped.tokens)
    cli_tokens, _ = _tokens_from_cli(run_cli, tmp_path, folder, "--prompt", PROMPT, "-n", 8, "--ignore-eos")
    assert np.array_equal(cli_tokens, unstopped)
    r = run_cli("generate", folder, "--prompt", PROMPT, "-n", 8, "--ignore-eos", "--eos-token-id", 5)
    assert r.exit_code == 2 and "[bad-token-id]" in r.output and "--eos-token-id and --ignore-eos together" in r.output


def test_ignore_eos_reaches_a_model_file_and_a_whisper_folder(run_cli, tmp_path: Path) -> None:
    prompt = dict(np.load(TINY_LLM / "prompt.npz"))
    tokens = np.load(TINY_LLM / "greedy_tokens.npy")
    pipe = irexec.LLMPipeline(TINY_LLM / "model.xml")
    stopped = pipe.generate(prompt, max_new_tokens=8, eos_token_id=int(tokens[0, -5]))  # the fourth new token
    assert stopped.stopped_by_eos and stopped.new_tokens.shape[1] == 4
    assert np.array_equal(pipe.generate(prompt, max_new_tokens=8, ignore_eos=True).tokens, tokens)
    with pytest.raises(UsageError) as e:
        pipe.generate(prompt, max_new_tokens=8, ignore_eos=True, eos_token_id=5)
    assert e.value.diagnostics[0].code == "bad-token-id"
    r = run_cli("generate", TINY_LLM / "model.xml", "-i", TINY_LLM / "prompt.npz", "-n", 8, "--ignore-eos",
                "--output", tmp_path / "t.npy")
    assert r.exit_code == 0, r.output
    assert np.array_equal(np.load(tmp_path / "t.npy"), tokens)
    pytest.importorskip("pcre2")
    folder = tmp_path / "whisper"
    shutil.copytree(WHISPER, folder)
    config = json.loads((folder / "generation_config.json").read_text())
    (folder / "generation_config.json").write_text(json.dumps(dict(config, eos_token_id=[124, 161])))
    features = np.load(WHISPER / "features.npz")["two"]
    np.save(tmp_path / "two.npy", features)
    whisper = irexec.WhisperPipeline(folder)
    early = whisper.generate(features=features, max_new_tokens=10)  # each row's first new token is an end id
    assert early.stopped_by_eos and early.new_tokens.shape[1] == 1
    ignored = whisper.generate(features=features, max_new_tokens=10, ignore_eos=True)
    want = np.load(WHISPER / "expected_tokens.npz")["two"]
    assert not ignored.stopped_by_eos and np.array_equal(ignored.tokens, want)
    cli_tokens, _ = _tokens_from_cli(run_cli, tmp_path, folder, "--audio-features", tmp_path / "two.npy", "-n", 10,
                                     "--ignore-eos")
    assert np.array_equal(cli_tokens, want)


def _usage_error(run_cli, *args: object) -> str:
    r = run_cli("generate", *args)
    assert r.exit_code == 2 and "[bad-prompt]" in r.output and "Traceback" not in r.output, r.output
    return r.stderr


def test_generate_names_the_input_that_is_missing(run_cli) -> None:
    said = _usage_error(run_cli, TINY_LLM / "model.xml", "-n", 2)
    assert "model file, whose prompt is token ids: it needs --inputs PROMPT.npz" in said
    assert "--prompt" not in said  # never given: not blamed
    said = _usage_error(run_cli, TINY_LLM / "model.xml", "--prompt-file", "p.txt", "-n", 2)
    assert said.count("--prompt-file needs an export folder") == 1 and "--prompt " not in said
    assert "model file, whose prompt is token ids" in said
    said = _usage_error(run_cli, TINY_EXPORT, "-n", 2)
    assert "export folder: it needs --prompt TEXT, --prompt-file FILE or --inputs PROMPT.npz" in said
    said = _usage_error(run_cli, TINY_EXPORT, "--prompt", "a", "--inputs", TINY_LLM / "prompt.npz", "-n", 2)
    assert "--prompt and --inputs together" in said and "which takes one of --prompt TEXT" in said
    said = _usage_error(run_cli, WHISPER, "-n", 2)
    assert "Whisper export folder: it needs --audio WAVE.npy or --audio-features FEATURES.npy" in said
    said = _usage_error(run_cli, WHISPER, "--image", LLAVA / "pixel_values.npy", "--audio", "w.npy", "-n", 2)
    assert "--image needs a VLM export folder" in said and "is taken as a Whisper export folder" in said
    said = _usage_error(run_cli, LLAVA, "--image", LLAVA / "pixel_values.npy", "-n", 2)
    assert "VLM export folder: it needs --prompt TEXT, --prompt-file FILE or --inputs PROMPT.npz" in said
    said = _usage_error(run_cli, TINY_EXPORT, "--prompt", "a", "--weights", TINY_LLM / "model.bin", "-n", 2)
    assert "--weights needs a model file" in said and "is an export folder" in said
    said = _usage_error(run_cli, MAMBA, "--prompt", "a", "--task", "translate", "-n", 2)
    assert "--task needs a Whisper export folder" in said and "--language" not in said


def test_the_library_refuses_what_does_not_fit_with_coded_errors(tmp_path: Path) -> None:
    pipe = irexec.open_pipeline(TINY_LLM / "model.xml")
    for call, code, words in [
        (lambda: pipe.generate("some text", max_new_tokens=2), "bad-prompt", "needs an export folder's tokenizer"),
        (lambda: pipe.generate([1, 2], max_new_tokens=0), "bad-prompt", "at least 1"),
        (lambda: irexec.WhisperPipeline(WHISPER).generate(max_new_tokens=2), "bad-prompt", "got neither"),
        (lambda: irexec.open_pipeline(TINY_EXPORT, weights="x.bin"), "bad-prompt", "`weights` goes with a model file"),
    ]:
        with pytest.raises(UsageError) as e:
            call()
        assert e.value.diagnostics[0].code == code and words in str(e.value), str(e.value)
    with pytest.raises(irexec.InputError) as missing:
        irexec.WhisperPipeline(TINY_EXPORT)
    assert missing.value.diagnostics[0].code == "not-speech-export"
