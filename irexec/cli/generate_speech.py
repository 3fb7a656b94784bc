"""`irexec generate FOLDER --audio-features FEATURES.npy`: greedy transcription with a
Whisper export folder (encoder, stateful decoder and, if present, the detokenizer)."""

from __future__ import annotations

import click

from ..base.errors import IRExecError, UsageError
from .base import fail
from .generate_request import Request


def generate_speech(request: Request, audio_path: str | None, features_path: str | None, language: str | None,
                    task: str | None) -> None:
    """A Whisper export folder through the library's WhisperPipeline; the options are already checked
    (one of ``audio_path`` and ``features_path`` is given)."""
    import time

    from ..api.generate.pipelines import WhisperPipeline
    from ..system.heap import retain_freed_memory
    from ..system.tensorfile import load_npy
    from .generate_io import close_generation
    from .generate_text import _record, _reference
    from .paths import require_inputs, require_outputs

    started = time.perf_counter()
    retain_freed_memory()
    path = audio_path if audio_path is not None else features_path
    assert path is not None
    what = "audio file" if audio_path is not None else "audio features file"
    try:
        require_inputs((path, what), (request.compare_path, "reference file"))
        require_outputs(request.output_path, request.report_path)
        pipe = WhisperPipeline(request.model, max_memory=request.max_memory, follow_symlinks=request.follow_symlinks)
        pipe.folder.generation.choose(language, task)  # a language or task the folder lacks: said before the work
        compare = request.compare_path
        if compare is not None and not compare.endswith(".npy") and pipe.folder.detokenizer is None:
            raise UsageError(f"--compare {compare}: without openvino_detokenizer.xml in {request.model} there is no "
                             "text to compare; give the tokens as .npy", code="bad-prompt")
        expected_tokens, expected_text = _reference(request)
        sound = load_npy(path, request.max_memory, follow_symlinks=request.follow_symlinks, what=what)
        load_seconds = time.perf_counter() - started
        result = pipe.generate(sound if audio_path is not None else None,
                               features=sound if audio_path is None else None, max_new_tokens=request.max_new_tokens,
                               language=language, task=task, eos_token_id=request.eos_token_id,
                               ignore_eos=request.ignore_eos, source=path)
        measured, problem, code = _record(result, request, path, expected_tokens, expected_text, load_seconds, started)
    except IRExecError as e:
        fail(e)
    for row in result.new_tokens:
        click.echo(" ".join(str(int(t)) for t in row))
    for text in result.texts or []:
        click.echo(text)
    start = " ".join(str(int(t)) for t in result.tokens[0, :result.prompt_length])
    name = pipe.folder.generation.language_name
    detected = ("" if result.languages is None else
                f"; language detected: {' '.join(f'{name(t)} ({t})' for t in result.languages)}")
    stop = " (stopped: every row produced the end-of-sequence token)" if result.stopped_by_eos else ""
    assert result.encoder_seconds is not None
    close_generation(f"{result.new_tokens.shape[1]} new token(s) per row after the start tokens {start}{detected}{stop}",
                     result, measured, request.output_path, request.report_path,
                     _latency_table(result.encoder_seconds, result.detect_seconds, result.latencies, result.prompt_length)
                     if request.profile else None,
                     request.compare_path, problem, code, expected_tokens is not None)


def _latency_table(encoder: float, detect: float | None, decoder: list[float], start_tokens: int) -> str:
    from .generate_io import _latency_table as decoder_table

    lines = [f"encoder {encoder * 1000:.3f} ms"]
    if detect is not None:
        lines.append(f"language detection (the start token alone) {detect * 1000:.3f} ms")
    return "\n".join(lines) + "\n" + decoder_table(decoder, start_tokens)
