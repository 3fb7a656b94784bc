"""`irexec generate FOLDER --audio-features`: a tiny multilingual Whisper exported by
optimum-intel (tests/data/whisper_export/make_whisper.py).  optimum-intel's own greedy
``generate`` (language detection, start tokens, suppress_tokens) and GenAI's WhisperPipeline
are recorded beside it; a live OpenVINO loop over the compiled encoder and decoder, fed as
optimum-intel feeds them, checks the recording against today's OpenVINO."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from irexec.api.generate.whisper_folder import WhisperGeneration

FOLDER = Path(__file__).parent / "data" / "whisper_export"
NEW = 10
SOT, EOT, PAD, NOTIMESTAMPS, TRANSCRIBE, TRANSLATE = 269, 268, 268, 278, 274, 273
LANGS = {"<|en|>": 270, "<|fr|>": 271, "<|de|>": 272}
# name -> (features, options): as make_whisper.py's VARIANTS gave them to optimum-intel's generate
VARIANTS = {"one": ("one", ()), "two": ("two", ()), "one_de": ("one", ("--language", "de")),
            "two_translate": ("two", ("--task", "translate")), "two_eos": ("two", ("--eos-token-id", "124"))}


def _expected() -> dict[str, np.ndarray]:
    with np.load(FOLDER / "expected_tokens.npz") as f:
        return {k: f[k] for k in f.files}


def _features(key: str) -> np.ndarray:
    with np.load(FOLDER / "features.npz") as f:
        return f[key]


@pytest.mark.parametrize("key", list(VARIANTS))
def test_whisper_generates_optimum_intels_greedy_tokens(key: str, tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    source, options = VARIANTS[key]
    expected = _expected()
    want = expected[key]
    np.save(tmp_path / "features.npy", _features(source))
    np.save(tmp_path / "want.npy", want)
    r = run_cli("generate", FOLDER, "--audio-features", tmp_path / "features.npy", "-n", NEW, *options,
                "--compare", tmp_path / "want.npy", "--output", tmp_path / "got.npy")
    assert r.exit_code == 0 and "PASSED" in r.output, r.output
    got = np.load(tmp_path / "got.npy")
    assert np.array_equal(got, want)
    lines = r.stdout.splitlines()
    start = list(want[0]).index(NOTIMESTAMPS) + 1
    assert lines[:len(want)] == [" ".join(map(str, row[start:])) for row in want]
    # the folder's detokenizer gives the text the HF tokenizer gave for the recording
    assert lines[len(want):2 * len(want)] == list(expected[f"text_{key}"])
    for row in range(len(want)):  # GenAI's WhisperPipeline on the raw audio: the same new tokens and text
        if f"genai_{key}_{row}" in expected:
            assert np.array_equal(want[row, start:], expected[f"genai_{key}_{row}"])
            assert lines[len(want) + row] == str(expected[f"genai_text_{key}_{row}"])
    if key in ("one", "two"):
        assert "language detected: <|fr|> (271)" in r.output
    assert "generate report" not in r.output and "Time to first token" in r.output


def _openvino_greedy(folder: Path, features: np.ndarray, start: list[int] | None, new: int) -> np.ndarray:
    """OpenVINO CPU fed as optimum-intel feeds the stateful decoder: input_ids, encoder_hidden_states
    and beam_idx every call, the state reset before the prefill; the logits processors of
    generation_config.json; ``start`` None: the language detected from the start token alone."""
    ov = pytest.importorskip("openvino")
    core, f32 = ov.Core(), {"INFERENCE_PRECISION_HINT": "f32"}
    gen = json.loads((folder / "generation_config.json").read_text())
    states = core.compile_model(str(folder / "openvino_encoder_model.xml"), "CPU", f32)(features)["last_hidden_state"]
    request = core.compile_model(str(folder / "openvino_decoder_model.xml"), "CPU", f32).create_infer_request()
    batch = features.shape[0]

    def call(ids: np.ndarray) -> np.ndarray:
        feeds = {"input_ids": ids, "encoder_hidden_states": states, "beam_idx": np.arange(batch, dtype=np.int32)}
        return request.infer(feeds)["logits"][:, -1].copy()

    if start is None:
        request.reset_state()
        logits = call(np.full((batch, 1), SOT, np.int64))
        lang_ids = np.array(sorted(gen["lang_to_id"].values()))
        tokens = np.array([[SOT, lang_ids[i], TRANSCRIBE, NOTIMESTAMPS] for i in logits[:, lang_ids].argmax(-1)])
    else:
        tokens = np.tile(np.array(start, np.int64), (batch, 1))
    eos = np.atleast_1d(gen["eos_token_id"])
    finished = np.zeros(batch, bool)
    request.reset_state()
    ids = tokens
    for step in range(new):
        logits = call(ids)
        logits[:, gen["suppress_tokens"]] = -np.inf
        if step == 0:
            logits[:, gen["begin_suppress_tokens"]] = -np.inf
        nxt = logits.argmax(-1).astype(np.int64)
        nxt[finished] = PAD
        finished |= np.isin(nxt, eos)
        tokens = np.concatenate([tokens, nxt[:, None]], 1)
        if finished.all():
            break
        ids = nxt[:, None]
    return tokens


def test_the_recording_is_what_openvino_gives_today() -> None:
    expected = _expected()
    for key in ("one", "two"):
        assert np.array_equal(_openvino_greedy(FOLDER, _features(key), None, NEW), expected[key])
    assert np.array_equal(_openvino_greedy(FOLDER, _features("one"), [SOT, LANGS["<|de|>"], TRANSCRIBE, NOTIMESTAMPS],
                                           NEW), expected["one_de"])
    assert np.array_equal(_openvino_greedy(FOLDER, _features("two"), [SOT, LANGS["<|fr|>"], TRANSLATE, NOTIMESTAMPS],
                                           NEW), expected["two_translate"])


def _copy(tmp_path: Path, **generation: object) -> Path:
    folder = tmp_path / "whisper"
    shutil.copytree(FOLDER, folder, ignore=shutil.ignore_patterns("*.npz", "*.py"))
    gen = json.loads((folder / "generation_config.json").read_text())
    gen.update(generation)
    (folder / "generation_config.json").write_text(json.dumps(gen))
    return folder


def test_suppressed_tokens_change_this_fixtures_choices(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """Without suppress_tokens OpenVINO chooses 143 where the recording (and irexec) do not: the
    recording exercises the processor.  irexec without it gives OpenVINO's choice."""
    expected = _expected()
    folder = _copy(tmp_path, suppress_tokens=[], begin_suppress_tokens=[])
    for key in ("one", "two"):
        live = _openvino_greedy(folder, _features(key), None, NEW)
        assert np.array_equal(live, expected[f"unsuppressed_{key}"]) and not np.array_equal(live, expected[key])
        assert 143 in live
        np.save(tmp_path / "features.npy", _features(key))
        r = run_cli("generate", folder, "--audio-features", tmp_path / "features.npy", "-n", NEW, "-o", tmp_path / "t.npy")
        assert r.exit_code == 0, r.output
        assert np.array_equal(np.load(tmp_path / "t.npy"), live)


def test_begin_suppress_and_end_ids_from_generation_config(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """The first new token of every row (161) suppressed at the first step only, and a second end
    id the rows reach before NEW tokens: irexec stops where OpenVINO's loop does (the recorded
    two_eos variant has one row ending early, padded)."""
    folder = _copy(tmp_path, begin_suppress_tokens=[220, EOT, 161], eos_token_id=[EOT, 38])
    features = _features("two")
    live = _openvino_greedy(folder, features, None, NEW)
    assert 161 not in live[:, 4] and 161 in live[:, 5:] and live.shape[1] < 4 + NEW and (live[:, -1] == 38).all()
    np.save(tmp_path / "features.npy", features)
    np.save(tmp_path / "want.npy", live)
    r = run_cli("generate", folder, "--audio-features", tmp_path / "features.npy", "-n", NEW,
                "--compare", tmp_path / "want.npy")
    assert r.exit_code == 0 and "PASSED" in r.output, r.output


def test_the_whisper_folder_checks_clean(run_cli) -> None:  # type: ignore[no-untyped-def]
    r = run_cli("check", FOLDER)
    assert r.exit_code == 0 and "4 files, 0 errors, 0 warnings" in r.output, r.output


def test_report_profile_and_text_compare(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    expected = _expected()
    np.save(tmp_path / "features.npy", _features("one"))
    (tmp_path / "want.txt").write_text(str(expected["text_one"][0]), encoding="utf-8")
    r = run_cli("generate", FOLDER, "--audio-features", tmp_path / "features.npy", "-n", NEW, "--profile",
                "--report", tmp_path / "report.json", "--compare", tmp_path / "want.txt")
    assert r.exit_code == 0 and "PASSED: the generated text matches" in r.output, r.output
    assert "encoder " in r.output and "language detection" in r.output and "decode 9" in r.output
    report = json.loads((tmp_path / "report.json").read_text())
    jsonschema = pytest.importorskip("jsonschema")
    schema = Path(__file__).parents[1] / "schemas" / "generate-report.schema.json"
    jsonschema.Draft202012Validator(json.loads(schema.read_text())).validate(report)
    assert report["tokens"] == expected["one"].tolist() and report["prompt_length"] == 4
    (tmp_path / "other.txt").write_text("something else", encoding="utf-8")
    r = run_cli("generate", FOLDER, "--audio-features", tmp_path / "features.npy", "-n", NEW,
                "--compare", tmp_path / "other.txt")
    assert r.exit_code == 1 and "text-mismatch" in r.output
    np.save(tmp_path / "wrong.npy", expected["two"][:1])
    r = run_cli("generate", FOLDER, "--audio-features", tmp_path / "features.npy", "-n", NEW,
                "--compare", tmp_path / "wrong.npy")
    assert r.exit_code == 1 and "tokens-mismatch" in r.output and "position 5" in r.output, r.output


def _error(run_cli, *args: object) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    r = run_cli("generate", *args)
    assert "Traceback" not in r.output
    return r.exit_code, r.output


def test_errors(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    good = tmp_path / "features.npy"
    np.save(good, _features("one"))
    for name, array in {"f64": _features("one").astype(np.float64), "short": _features("one")[:, :, :50],
                        "flat": _features("one")[0], "empty": np.zeros((0, 80, 100), np.float32)}.items():
        np.save(tmp_path / f"{name}.npy", array)
        code, out = _error(run_cli, FOLDER, "--audio-features", tmp_path / f"{name}.npy", "-n", 3)
        assert code == 1 and "bad-audio-features" in out, out
    assert "f32[?,80,100]" in out or "no rows" in out
    mamba = Path(__file__).parent / "data" / "mamba_export"
    for target in (mamba, mamba / "openvino_model.xml"):
        code, out = _error(run_cli, target, "--audio-features", good, "-n", 3)
        assert code == 1 and "not-speech-export" in out, out
    other = _copy(tmp_path)
    config = json.loads((other / "config.json").read_text())
    (other / "config.json").write_text(json.dumps(dict(config, model_type="speech_to_text")))
    code, out = _error(run_cli, other, "--audio-features", good, "-n", 3)
    assert code == 1 and "not-speech-export" in out and "speech_to_text" in out
    (other / "config.json").write_text(json.dumps(config))
    shutil.copy(mamba / "openvino_model.xml", other / "openvino_decoder_model.xml")  # not a Whisper decoder
    shutil.copy(mamba / "openvino_model.bin", other / "openvino_decoder_model.bin")
    code, out = _error(run_cli, other, "--audio-features", good, "-n", 3)
    assert code == 1 and "not-speech-export" in out and "encoder_hidden_states" in out, out
    timestamps = tmp_path / "ts"
    shutil.copytree(_copy(tmp_path / "t", return_timestamps=True), timestamps)
    code, out = _error(run_cli, timestamps, "--audio-features", good, "-n", 3)
    assert code == 1 and "unsupported-generation-config" in out and "return_timestamps" in out
    penalty = _copy(tmp_path / "p", repetition_penalty=1.2, min_length=0)
    code, out = _error(run_cli, penalty, "--audio-features", good, "-n", 3)
    assert code == 1 and "unsupported-generation-config" in out and "repetition_penalty 1.2" in out
    assert "min_length" not in out
    code, out = _error(run_cli, FOLDER, "--audio-features", good, "-n", 3, "--language", "xx")
    assert code == 2 and "unsupported-generation-config" in out and "<|de|>" in out
    code, out = _error(run_cli, FOLDER, "--audio-features", good, "-n", 61)
    assert code == 2 and "too-many-new-tokens" in out and "64" in out
    code, out = _error(run_cli, FOLDER, "--prompt", "hello", "-n", 3)
    assert code == 2 and "bad-prompt" in out and "--audio-features" in out
    code, out = _error(run_cli, mamba, "--prompt", "hello", "-n", 3, "--language", "en")
    assert code == 2 and "bad-prompt" in out


def test_start_tokens_follow_transformers_rules() -> None:
    """transformers' _retrieve_init_tokens, for the generation_config.json shapes Whisper checkpoints have."""
    multilingual = WhisperGeneration(SOT, forced=[None, TRANSCRIBE], lang_to_id=LANGS,
                                     task_to_id={"translate": TRANSLATE, "transcribe": TRANSCRIBE},
                                     no_timestamps=NOTIMESTAMPS)
    assert multilingual.detects_language and multilingual.start_tokens(270) == [SOT, 270, TRANSCRIBE, NOTIMESTAMPS]
    de = multilingual.choose(language="de")
    assert not de.detects_language and de.start_tokens() == [SOT, 272, TRANSCRIBE, NOTIMESTAMPS]
    assert multilingual.choose(language="<|en|>", task="translate").start_tokens() == [SOT, 270, TRANSLATE, NOTIMESTAMPS]
    translate = multilingual.choose(task="translate")  # forced ids ignored; language still detected
    assert translate.detects_language and translate.start_tokens(271) == [SOT, 271, TRANSLATE, NOTIMESTAMPS]
    no_forced = WhisperGeneration(SOT, lang_to_id=LANGS, no_timestamps=NOTIMESTAMPS)
    assert no_forced.start_tokens(272) == [SOT, 272, NOTIMESTAMPS]  # no task token: none forced, none given
    english = WhisperGeneration(SOT, forced=[NOTIMESTAMPS], no_timestamps=NOTIMESTAMPS)  # whisper-*.en
    assert not english.detects_language and english.start_tokens() == [SOT, NOTIMESTAMPS]
    fixed = WhisperGeneration(SOT, forced=[271, TRANSCRIBE], lang_to_id=LANGS, no_timestamps=NOTIMESTAMPS)
    assert not fixed.detects_language and fixed.start_tokens() == [SOT, 271, TRANSCRIBE, NOTIMESTAMPS]
    assert WhisperGeneration(SOT).start_tokens() == [SOT]


def test_the_seq2seq_rows_of_the_input_table() -> None:
    """The inputs a Whisper decoder may have besides those of this export, built as optimum-intel
    builds them: cache_position 0..L-1 then [n - 1], a growing mask, the encoder's output again."""
    from irexec.api.generate.decode_inputs import SEQ2SEQ, Family, decode_value, prefill_value

    family = Family(SEQ2SEQ, None, "whisper")
    ids = np.array([[SOT, 271, TRANSCRIBE, NOTIMESTAMPS]] * 2)
    assert prefill_value("cache_position", family, ids, {}).tolist() == [0, 1, 2, 3]
    assert prefill_value("attention_mask", family, ids, {}).tolist() == [[1] * 4] * 2
    assert prefill_value("beam_idx", family, ids, {}).tolist() == [0, 1]
    assert decode_value("cache_position", family, np.arange(4), 2, 5).tolist() == [4]
    assert decode_value("attention_mask", family, np.ones((2, 4), np.int64), 2, 5).shape == (2, 5)
    states = np.ones((2, 50, 32), np.float32)
    assert decode_value("encoder_hidden_states", family, states, 2, 5) is states
    with pytest.raises(ValueError):  # the encoder's output is given, never made up
        prefill_value("encoder_hidden_states", family, ids, {})


@pytest.mark.parametrize("key", ["one", "two", "two_translate"])
def test_a_raw_waveform_gives_genais_tokens_and_text(key: str, tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """--audio WAVE.npy: the features made as the folder's preprocessor_config.json says (GenAI's
    WhisperPipeline takes the same raw audio and makes its own)."""
    source, options = VARIANTS[key]
    expected = _expected()
    np.save(tmp_path / "wave.npy", _features(f"audio_{source}"))
    r = run_cli.subprocess("generate", FOLDER, "--audio", tmp_path / "wave.npy", "-n", NEW, *options)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    rows = len(_features(source))
    for row in range(rows):
        assert lines[row] == " ".join(map(str, expected[f"genai_{key}_{row}"]))
        assert lines[rows + row] == str(expected[f"genai_text_{key}_{row}"])


def test_the_features_of_a_waveform_are_the_extractors() -> None:
    """Against the features transformers' WhisperFeatureExtractor made for the recording."""
    from irexec.api.generate.whisper_features import read_extractor

    extract = read_extractor(str(FOLDER))
    for key in ("one", "two"):
        got, want = extract(_features(f"audio_{key}")), _features(key)
        assert got.dtype == np.float32 and got.shape == want.shape
        assert np.abs(got - want).max() < 2e-5
    one = _features("audio_one")[0]
    assert np.array_equal(extract(one), extract(one[None]))  # [samples] is one row
    short, long = extract(one[:8000]), extract(np.concatenate([one, one]))  # padded with zeros, or cut
    assert short.shape == long.shape == (1, 80, 100) and np.array_equal(long, extract(one))


def test_waveform_errors(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    np.save(tmp_path / "nan.npy", np.full(100, np.nan, np.float32))
    np.save(tmp_path / "cube.npy", np.zeros((1, 2, 3), np.float32))
    for name in ("nan.npy", "cube.npy"):
        r = run_cli("generate", FOLDER, "--audio", tmp_path / name, "-n", 2)
        assert r.exit_code == 1 and "error[bad-audio]" in r.output and "Traceback" not in r.output, r.output
    bare = tmp_path / "bare"
    shutil.copytree(FOLDER, bare)
    (bare / "preprocessor_config.json").unlink()
    np.save(tmp_path / "wave.npy", _features("audio_one"))
    r = run_cli("generate", bare, "--audio", tmp_path / "wave.npy", "-n", 2)
    assert r.exit_code == 1 and "error[bad-audio]" in r.output and "preprocessor_config.json" in r.output
    r = run_cli("generate", FOLDER, "--audio", tmp_path / "wave.npy", "--audio-features", tmp_path / "wave.npy", "-n", 2)
    assert r.exit_code == 2 and "bad-prompt" in r.output
