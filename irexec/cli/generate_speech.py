"""`irexec generate FOLDER --audio-features FEATURES.npy`: greedy transcription with a
Whisper export folder (encoder, stateful decoder and, if present, the detokenizer)."""

from __future__ import annotations

import click

from ..base.errors import IRExecError, UsageError
from .base import fail


def generate_speech(folder: str, features_path: str, raw: bool, language: str | None, task: str | None,
                    max_new_tokens: int,
                    output_path: str | None,
                    eos_token_id: int | None, compare_path: str | None, profile: bool, report_path: str | None,
                    max_memory: int | None, follow_symlinks: bool | None) -> None:
    import os
    import time

    from ..api.export_folder import detokenize
    from ..api.generate_report import Metrics, generate_report, peak_memory_bytes
    from ..api.session import Session
    from ..api.speech import transcribe
    from ..api.whisper_folder import NOT_SPEECH, open_whisper_folder
    from ..base.errors import InputError
    from ..system.heap import retain_freed_memory
    from ..system.tensorfile import load_npy
    from .generate_io import _load_tokens, _save_tokens, close_generation
    from .generate_text import _difference, _read_text, _write_report
    from .paths import require_inputs, require_outputs

    started = time.perf_counter()
    retain_freed_memory()
    follow = follow_symlinks or None
    try:
        if not os.path.isdir(folder):
            raise InputError(f"{folder} is not a folder: --audio-features needs a Whisper export folder (with "
                             "openvino_encoder_model.xml and openvino_decoder_model.xml)", code=NOT_SPEECH, file=folder)
        what = "audio file" if raw else "audio features file"
        require_inputs((features_path, what), (compare_path, "reference file"))
        require_outputs(output_path, report_path)
        export = open_whisper_folder(folder, follow_symlinks=follow)
        generation = export.generation.choose(language, task)
        expected_tokens = expected_text = None
        if compare_path is not None:
            if compare_path.endswith(".npy"):
                expected_tokens = _load_tokens(compare_path, max_memory, follow)
            elif export.detokenizer is None:
                raise UsageError(f"--compare {compare_path}: without openvino_detokenizer.xml in {folder} there is no "
                                 "text to compare; give the tokens as .npy", code="bad-prompt")
            else:
                expected_text = _read_text(compare_path, "reference file", follow)
        features = load_npy(features_path, max_memory, follow_symlinks=follow, what=what)
        if raw:  # a waveform: the features its preprocessor_config.json says, as the feature extractor makes them
            from ..api.whisper_features import check_waveform, read_extractor

            features = read_extractor(folder, follow_symlinks=follow)(check_waveform(features, features_path))
        encoder = Session(export.encoder, max_memory=max_memory, follow_symlinks=follow)
        decoder = Session(export.decoder, max_memory=max_memory, follow_symlinks=follow)
        load_seconds = time.perf_counter() - started
        found = transcribe(encoder, decoder, generation, features, max_new_tokens, source=features_path,
                           eos_token_id=None if eos_token_id is None else [eos_token_id])
        result = found.generated
        texts = detokenize(export.detokenizer, result.new_tokens, max_memory, follow) if export.detokenizer else None
        if output_path:
            _save_tokens(output_path, result.tokens)
        problem, code = _difference(result.tokens, texts or [], expected_tokens, expected_text)
        before = found.encoder_seconds + (found.detect_seconds or 0.0)
        covers = "the encoder, language detection and the prefill" if found.languages else "the encoder and the prefill"
        measured = Metrics(int(result.tokens.shape[0]), int(result.new_tokens.shape[1]), before + result.latencies[0],
                           list(result.latencies[1:]), peak_memory_bytes(), covers)
        if report_path:
            _write_report(report_path, generate_report(
                model=folder, prompt_path=features_path, result=result, m=measured, load_seconds=load_seconds,
                total_seconds=time.perf_counter() - started, reference=compare_path, mismatch=problem))
    except IRExecError as e:
        fail(e)
    for row in result.new_tokens:
        click.echo(" ".join(str(int(t)) for t in row))
    for text in texts or []:
        click.echo(text)
    start = " ".join(str(int(t)) for t in result.tokens[0, :result.prompt_length])
    name = generation.language_name
    detected = ("" if found.languages is None else
                f"; language detected: {' '.join(f'{name(t)} ({t})' for t in found.languages)}")
    stop = " (stopped: every row produced the end-of-sequence token)" if result.stopped_by_eos else ""
    close_generation(f"{result.new_tokens.shape[1]} new token(s) per row after the start tokens {start}{detected}{stop}",
                     result, measured, output_path, report_path,
                     _latency_table(found.encoder_seconds, found.detect_seconds, result.latencies, result.prompt_length)
                     if profile else None,
                     compare_path, problem, code, expected_tokens is not None)


def _latency_table(encoder: float, detect: float | None, decoder: list[float], start_tokens: int) -> str:
    from .generate_io import _latency_table as decoder_table

    lines = [f"encoder {encoder * 1000:.3f} ms"]
    if detect is not None:
        lines.append(f"language detection (the start token alone) {detect * 1000:.3f} ms")
    return "\n".join(lines) + "\n" + decoder_table(decoder, start_tokens)
