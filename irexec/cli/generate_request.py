"""What `irexec generate` was asked: the options every form shares, and which of the prompt
options fit the kind of MODEL (a usage error names what is missing or what does not apply)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from ..base.errors import UsageError

PROMPT_FORMS = "--prompt TEXT, --prompt-file FILE or --inputs PROMPT.npz"


@dataclass(frozen=True)
class Request:
    model: str
    max_new_tokens: int
    output_path: str | None
    eos_token_id: int | None
    ignore_eos: bool
    compare_path: str | None
    profile: bool
    report_path: str | None
    max_memory: int | None
    follow_symlinks: bool | None  # None: $IREXEC_FOLLOW_SYMLINKS decides


def _names(given: dict[str, object], *options: str) -> list[str]:
    return [o for o in options if given.get(o) is not None]


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def prompt_problem(kind: str, model: str, given: dict[str, object]) -> str | None:
    """Why the prompt options ``given`` (option name -> value or None) do not fit a MODEL of
    ``kind`` (text, vision, speech), or None: the option missing is named, not one never given."""
    speech_only = _names(given, "--language", "--task")
    if speech_only and kind != "speech":
        return (f"{_listed(speech_only)} go{'es' if len(speech_only) == 1 else ''} with a Whisper export folder and "
                "--audio or --audio-features")
    if kind == "speech":
        sounds = _names(given, "--audio", "--audio-features")
        others = _names(given, "--inputs", "--prompt", "--prompt-file", "--image")
        if others:
            return (f"{_listed(others)} do{'es' if len(others) == 1 else ''} not apply to a Whisper export folder, which "
                    "takes --audio WAVE.npy or --audio-features FEATURES.npy")
        if len(sounds) == 2:
            return "--audio and --audio-features: a Whisper export folder takes one of them"
        if not sounds:
            return f"{model} is a Whisper export folder: it needs --audio WAVE.npy or --audio-features FEATURES.npy"
        return None
    prompts = _names(given, "--prompt", "--prompt-file", "--inputs")
    if kind == "vision" and given.get("--image") is None:
        return f"{model} is a VLM export: it needs --image PIXELS.npy, the image processor's pixel_values"
    if len(prompts) > 1:
        return f"{_listed(prompts)}: give one of {PROMPT_FORMS}"
    if kind == "vision" or os.path.isdir(model):
        what = "a VLM export folder" if kind == "vision" else "an export folder"
        return None if prompts else f"{model} is {what}: it needs a prompt, one of {PROMPT_FORMS}"
    if prompts and prompts != ["--inputs"]:
        return (f"{prompts[0]} needs an export folder, whose tokenizer makes the token ids; {model} is a model file: "
                "give --inputs PROMPT.npz of token ids")
    return None if prompts else f"{model} is a model file: it needs --inputs PROMPT.npz, the prompt's token ids"


def check_request(request: Request, kind: str, given: dict[str, object]) -> None:
    problem = prompt_problem(kind, request.model, given)
    if problem is not None:
        raise UsageError(problem, code="bad-prompt")
    from ..api.generate.pipelines import end_ids

    end_ids(request.max_new_tokens, request.eos_token_id, request.ignore_eos, request.model)  # the library's own check
