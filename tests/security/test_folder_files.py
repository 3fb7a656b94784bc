"""The files beside a model and the text files a command reads (config.json,
generation_config.json, preprocessor_config.json, --prompt-file, --compare text,
``diff --config FILE.json``) follow the rules of every other file: a regular file,
no symbolic link out of the folder it is named in, a bounded size, JSON nested a
bounded depth and of the shape each key needs.  Each breach is one coded error,
exit 1 (2 for an option's file), never a traceback and never a blocked read."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

DATA = Path(__file__).parents[1] / "data"
TEXT = DATA / "mamba_export"  # a text export folder: model, tokenizer pair, config.json, generation_config.json
WHISPER = DATA / "whisper_export"
VLM = DATA / "llava_export"
SECRET_VALUE = "SECRET-FIELD-4f1c"
DEEP = "[" * 100_000 + "]" * 100_000

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")


def _copy(source: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "repo" / source.name
    shutil.copytree(source, folder, ignore=shutil.ignore_patterns("*.py", "expected_*", "genai_*"))
    return folder


def _secret(tmp_path: Path) -> Path:
    """A JSON file outside every folder a command is given, whose value must never be printed."""
    secret = tmp_path / "home" / "secret.json"
    secret.parent.mkdir(parents=True)
    secret.write_text(json.dumps({"eos_token_id": SECRET_VALUE, "model_type": SECRET_VALUE,
                                  "feature_size": SECRET_VALUE, "image_token_index": SECRET_VALUE}))
    return secret


def _link_out(path: Path, target: Path) -> None:
    path.unlink(missing_ok=True)
    path.symlink_to(os.path.relpath(target, path.parent))


def _fifo(path: Path) -> None:
    path.unlink(missing_ok=True)
    os.mkfifo(path)


def _run(run_cli, *args: object, env: dict | None = None):  # type: ignore[no-untyped-def]
    """A subprocess, so that a read that blocks fails the test by its timeout instead of hanging it."""
    r = run_cli.subprocess(*args, env=env)
    assert "Traceback" not in r.stderr, r.stderr
    return r


def _waveform(tmp_path: Path) -> Path:
    wave = tmp_path / "wave.npy"
    np.save(wave, np.zeros(1600, np.float32))
    return wave


def _prompt(tmp_path: Path) -> Path:
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("hello")
    return prompt


# (folder, file beside the model, the generate arguments that make it read that file)
CASES = [
    (TEXT, "generation_config.json", lambda t: ["--prompt", "hello"]),
    (TEXT, "config.json", lambda t: ["--prompt", "hello"]),
    (WHISPER, "config.json", lambda t: ["--audio", _waveform(t)]),
    (WHISPER, "generation_config.json", lambda t: ["--audio", _waveform(t)]),
    (WHISPER, "preprocessor_config.json", lambda t: ["--audio", _waveform(t)]),
    (VLM, "config.json", lambda t: ["--image", VLM / "pixel_values.npy", "--prompt", "hi"]),
    (VLM, "generation_config.json", lambda t: ["--image", VLM / "pixel_values.npy", "--prompt", "hi"]),
]
IDS = [f"{source.name}-{name}" for source, name, _ in CASES]


@pytest.mark.parametrize(("source", "name", "args"), CASES, ids=IDS)
def test_a_json_file_linked_out_of_the_folder_is_not_read(source, name, args, tmp_path, run_cli):  # type: ignore[no-untyped-def]
    folder = _copy(source, tmp_path)
    secret = _secret(tmp_path)
    _link_out(folder / name, secret)
    r = _run(run_cli, "generate", folder, *args(tmp_path), "-n", "1")
    assert r.returncode == 1 and "symlink-escape" in r.stderr and name in r.stderr, r.stderr
    assert SECRET_VALUE not in r.stdout + r.stderr
    # the same link, allowed: it is read (and its fields are judged like any others)
    r = _run(run_cli, "generate", folder, *args(tmp_path), "-n", "1", "--follow-symlinks")
    assert "symlink-escape" not in r.stderr


@pytest.mark.parametrize(("source", "name", "args"), CASES, ids=IDS)
def test_a_json_file_that_is_a_named_pipe_is_refused_at_once(source, name, args, tmp_path, run_cli):  # type: ignore[no-untyped-def]
    folder = _copy(source, tmp_path)
    _fifo(folder / name)
    r = _run(run_cli, "generate", folder, *args(tmp_path), "-n", "1")
    assert r.returncode == 1 and "named pipe" in r.stderr and name in r.stderr, r.stderr


def test_prompt_and_reference_files_follow_the_file_rules(tmp_path, run_cli):  # type: ignore[no-untyped-def]
    folder = _copy(TEXT, tmp_path)
    pipe = tmp_path / "repo" / "prompt.fifo"
    _fifo(pipe)
    r = _run(run_cli, "generate", folder, "--prompt-file", pipe, "-n", "1")
    assert r.returncode == 1 and "bad-input-file" in r.stderr and "named pipe" in r.stderr, r.stderr
    secret = tmp_path / "home" / "notes.txt"
    secret.parent.mkdir()
    secret.write_text(SECRET_VALUE)
    link = tmp_path / "repo" / "prompt.txt"
    _link_out(link, secret)
    for option in ("--prompt-file", "--compare"):
        args = [option, link] if option == "--prompt-file" else ["--prompt", "hi", option, link]
        r = _run(run_cli, "generate", folder, *args, "-n", "1")
        assert r.returncode == 1 and "symlink-escape" in r.stderr and SECRET_VALUE not in r.stdout + r.stderr, r.stderr
    huge = tmp_path / "repo" / "huge.txt"
    with open(huge, "wb") as f:
        f.truncate(17 << 20)  # sparse: no disk written
    r = _run(run_cli, "generate", folder, "--prompt-file", huge, "-n", "1")
    assert r.returncode == 1 and "bad-input-file" in r.stderr and "larger than" in r.stderr, r.stderr


def test_an_oversized_config_is_refused_before_it_is_parsed(tmp_path, run_cli):  # type: ignore[no-untyped-def]
    folder = _copy(TEXT, tmp_path)
    with open(folder / "generation_config.json", "wb") as f:
        f.truncate(17 << 20)
    r = _run(run_cli, "generate", folder, "--prompt", "hello", "-n", "1")
    assert r.returncode == 1 and "bad-input-file" in r.stderr and "larger than" in r.stderr, r.stderr


# --- nesting and shape -------------------------------------------------------------------

@pytest.mark.parametrize(("source", "name", "args"), CASES, ids=IDS)
def test_json_nested_100000_deep_is_a_coded_error(source, name, args, tmp_path, run_cli):  # type: ignore[no-untyped-def]
    folder = _copy(source, tmp_path)
    (folder / name).write_text(DEEP)
    r = _run(run_cli, "generate", folder, *args(tmp_path), "-n", "1")
    assert r.returncode == 1 and "bad-input-file" in r.stderr and "nests" in r.stderr and name in r.stderr, r.stderr


def test_diff_config_file_nested_deep_or_of_the_wrong_shape_is_a_usage_error(tmp_path, run_cli):  # type: ignore[no-untyped-def]
    model = TEXT / "openvino_model.xml"
    for body, words in ((DEEP, "nests"), ('{"a": ' * 50_000 + "1" + "}" * 50_000, "nests"),
                        ("[1, 2]", "JSON object"), ('"text"', "JSON object"), ("{", "not readable JSON")):
        config = tmp_path / "props.json"
        config.write_text(body)
        r = _run(run_cli, "diff", model, "--device", "CPU", "--config", config)
        assert r.returncode == 2 and "bad-device-config" in r.stderr and words in r.stderr, (body[:20], r.stderr)
    _fifo(tmp_path / "pipe.json")
    r = _run(run_cli, "diff", model, "--device", "CPU", "--config", tmp_path / "pipe.json")
    assert r.returncode == 2 and "bad-device-config" in r.stderr and "named pipe" in r.stderr, r.stderr


def _edit(path: Path, **changes: object) -> None:
    value = json.loads(path.read_text())
    value.update(changes)
    path.write_text(json.dumps(value))


WRONG_SHAPES = [
    # (folder, file, its new content or changes, the generate arguments, words the error says)
    (WHISPER, "config.json", [1, 2], lambda t: ["--audio", _waveform(t)], "a list where a JSON object"),
    (WHISPER, "config.json", {"max_target_positions": "448"}, lambda t: ["--audio", _waveform(t)],
     "max_target_positions must be an integer"),
    (WHISPER, "generation_config.json", {"lang_to_id": ["en"]}, lambda t: ["--audio", _waveform(t)], "lang_to_id"),
    (WHISPER, "preprocessor_config.json", {"n_fft": "400"}, lambda t: ["--audio", _waveform(t)], "n_fft"),
    (WHISPER, "preprocessor_config.json", {"padding_value": [0]}, lambda t: ["--audio", _waveform(t)],
     "padding_value must be a number"),
    (TEXT, "config.json", {"model_type": ["mamba"]}, lambda t: ["--prompt", "hi"], "model_type must be a string"),
    (TEXT, "config.json", {"conv_kernel": "4"}, lambda t: ["--prompt", "hi"], "conv_kernel must be an integer"),
    (TEXT, "generation_config.json", {"eos_token_id": {"a": 1}}, lambda t: ["--prompt", "hi"], "eos_token_id"),
    (TEXT, "generation_config.json", "null", lambda t: ["--prompt", "hi"], "null where a JSON object"),
    (VLM, "config.json", {"vision_config": {"image_size": "336"}},
     lambda t: ["--image", VLM / "pixel_values.npy", "--prompt", "hi"], "image_size must be an integer"),
    (VLM, "config.json", {"vision_config": [336]},
     lambda t: ["--image", VLM / "pixel_values.npy", "--prompt", "hi"], "vision_config must be an object"),
]


@pytest.mark.parametrize(("source", "name", "content", "args", "words"), WRONG_SHAPES,
                         ids=[f"{s.name}-{n}-{i}" for i, (s, n, *_) in enumerate(WRONG_SHAPES)])
def test_json_of_the_wrong_shape_names_the_file_and_the_key(source, name, content, args, words, tmp_path,  # type: ignore[no-untyped-def]
                                                             run_cli):
    folder = _copy(source, tmp_path)
    if isinstance(content, dict):
        _edit(folder / name, **content)
    else:
        (folder / name).write_text(content if isinstance(content, str) else json.dumps(content))
    r = _run(run_cli, "generate", folder, *args(tmp_path), "-n", "1")
    assert r.returncode == 1 and "error[" in r.stderr and name in r.stderr and words in r.stderr, r.stderr


def test_the_reader_bounds_nesting_before_the_parser_recurses():
    """Python's json recursion limit is not the bound: the depth is counted first, so a file
    just past MAX_JSON_DEPTH is refused whatever sys.getrecursionlimit() says."""
    from irexec.base.errors import InputError
    from irexec.system.json_file import MAX_JSON_DEPTH, parse_json

    assert parse_json(b"[" * MAX_JSON_DEPTH + b"]" * MAX_JSON_DEPTH, "ok.json") is not None
    assert parse_json(b'{"a": "' + b"[" * 1000 + b'"}', "brackets-in-a-string.json") == {"a": "[" * 1000}
    limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(100_000)
        with pytest.raises(InputError) as e:
            parse_json(b"[" * (MAX_JSON_DEPTH + 1) + b"]" * (MAX_JSON_DEPTH + 1), "deep.json")
    finally:
        sys.setrecursionlimit(limit)
    assert e.value.code == "bad-input-file" and "deep.json" in str(e.value)


def test_a_hub_cache_folder_generates_only_with_follow_symlinks(tmp_path, run_cli):  # type: ignore[no-untyped-def]
    """Every file of a Hugging Face hub snapshot is a link into a sibling blobs/ folder: the
    model, the tokenizer pair and the JSON alike follow --follow-symlinks."""
    blobs, snapshot = tmp_path / "hub" / "blobs", tmp_path / "hub" / "snapshots" / "abc123"
    blobs.mkdir(parents=True)
    snapshot.mkdir(parents=True)
    for k, source in enumerate(sorted(p for p in TEXT.iterdir() if p.suffix in (".xml", ".bin", ".json"))):
        shutil.copy(source, blobs / f"blob{k}")
        (snapshot / source.name).symlink_to(os.path.relpath(blobs / f"blob{k}", snapshot))
    r = _run(run_cli, "generate", snapshot, "--prompt", "hello", "-n", "1")
    assert r.returncode == 1 and "symlink-escape" in r.stderr, r.stderr
    r = _run(run_cli, "generate", snapshot, "--prompt", "hello", "-n", "1", "--follow-symlinks")
    assert r.returncode == 0, r.stderr
    r = _run(run_cli, "generate", snapshot, "--prompt", "hello", "-n", "1", env={"IREXEC_FOLLOW_SYMLINKS": "1"})
    assert r.returncode == 0, r.stderr
