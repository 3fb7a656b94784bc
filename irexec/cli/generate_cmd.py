"""`irexec generate`: greedy decoding with a stateful causal LM."""

from __future__ import annotations

import sys

import click

from ..base.errors import ERROR, Diagnostic, IRExecError, UsageError
from .base import EXIT_FINDINGS, cli, fail
from .generate_io import _first_difference, _latency_table, _load_tokens, _save_tokens
from .run_cmd import _size


@cli.command()
@click.argument("model")
@click.option("--inputs", "-i", "inputs_path", metavar="PROMPT.npz",
              help="npz holding input_ids [batch, tokens] and optionally the model's other prefill inputs "
                   "(attention_mask, position_ids, beam_idx, cache_position), used as given.")
@click.option("--prompt", "-p", metavar="TEXT", help="With an export folder: the prompt, tokenized by its openvino_tokenizer.xml.")
@click.option("--prompt-file", metavar="FILE", help="With an export folder: the prompt, read from this UTF-8 file.")
@click.option("--image", "image_path", metavar="PIXELS.npy",
              help="With a VLM export folder: the image processor's pixel_values [images, channels, height, width] "
                   "(float; the resize and normalisation are in no IR, see docs/vision-language.md).")
@click.option("--audio", "audio_path", metavar="WAVE.npy",
              help="With a Whisper export folder: the 16 kHz waveform [samples] or [batch, samples], made into "
                   "log-mel features as its preprocessor_config.json says.")
@click.option("--audio-features", "features_path", metavar="FEATURES.npy",
              help="With a Whisper export folder: the log-mel features, f32 [batch, mel bins, frames], to transcribe.")
@click.option("--language", metavar="LANG", help="With --audio-features: the language (en or <|en|>, a key of "
              "generation_config.json's lang_to_id) rather than detecting it.")
@click.option("--task", type=click.Choice(["transcribe", "translate"]),
              help="With --audio-features: the task token (generation_config.json's task_to_id).")
@click.option("--max-new-tokens", "-n", type=click.IntRange(min=1), required=True, help="Tokens to generate per row.")
@click.option("--output", "-o", "output_path", metavar="TOKENS.npy",
              help="Write the prompt and the new tokens, int64 [batch, prompt + new], to this .npy (atomically).")
@click.option("--eos-token-id", type=int, metavar="ID",
              help="Stop once every row has produced this token (a row that has is filled with it); with an export "
                   "folder, default: generation_config.json's eos_token_id.")
@click.option("--compare", "compare_path", metavar="TOKENS.npy|TEXT.txt",
              help="Compare the tokens with this .npy, or (export folder) the generated text with this file's text; "
                   "a mismatch exits 1 naming the first difference.")
@click.option("--profile", is_flag=True, help="Print the latency of every model call: the prefill, then each decode step.")
@click.option("--report", "report_path", metavar="OUT.json",
              help="Write the tokens and the measurements as JSON (schemas/generate-report.schema.json), atomically.")
@click.option("--weights", metavar="FILE.bin", help="The .bin file (default: beside MODEL).")
@click.option("--max-memory", callback=lambda ctx, param, value: _size(value), metavar="SIZE",
              help="Bytes of tensors a run may hold, e.g. 8GiB (default: $IREXEC_MAX_MEMORY or half the RAM).")
@click.option("--follow-symlinks", is_flag=True, default=None,
              help="Read files through symbolic links that lead out of their folder (default: $IREXEC_FOLLOW_SYMLINKS).")
def generate(model: str, inputs_path: str | None, prompt: str | None, prompt_file: str | None, image_path: str | None,
             audio_path: str | None, features_path: str | None, language: str | None, task: str | None,
             max_new_tokens: int,
             output_path: str | None, eos_token_id: int | None, compare_path: str | None, profile: bool,
             report_path: str | None, weights: str | None, max_memory: int | None, follow_symlinks: bool | None) -> None:
    """Greedy decoding with MODEL, a stateful LM as optimum-intel exports it (a KV-cache
    transformer, an SSM such as Mamba, or a hybrid), or
    with an export folder (openvino_model.xml and the openvino-tokenizers pair): text in,
    text out, as GenAI's LLMPipeline(folder); with a LLaVA-style VLM export folder and
    --image, as GenAI's VLMPipeline(folder); or with a Whisper export folder and
    --audio-features: the start tokens, language detection and suppressed tokens of
    transformers' Whisper generate (docs/stateful.md).

    From a reset state the prompt is run once; each new token is the argmax of the
    logits at the last position, fed back as a one-token decode step with
    attention_mask, position_ids, beam_idx and cache_position built as
    optimum-intel builds them for the model's family (docs/stateful.md).
    Prints the new token ids, then time to first token, decode and overall
    tokens per second and peak memory, as GenAI's benchmark does.

    \b
    Example:
      irexec generate llm/model.xml --inputs prompt.npz --max-new-tokens 16 --output tokens.npy
      irexec generate llm/model.xml -i prompt.npz -n 16 --compare reference_tokens.npy --profile
      irexec generate llm-folder/ --prompt "The capital of France is" -n 16
      irexec generate vlm-folder/ --image pixel_values.npy --prompt "What is in the picture?" -n 16
      irexec generate whisper-folder/ --audio-features features.npy -n 32
      irexec generate whisper-folder/ --audio speech-16khz.npy -n 32
    """
    import os
    import time

    from ..api.generate.whisper_folder import is_speech_folder

    sound = features_path if audio_path is None else audio_path
    if (language is not None or task is not None) and sound is None:
        fail(UsageError("--language and --task go with --audio or --audio-features and a Whisper export folder",
                        code="bad-prompt"))
    if sound is not None or is_speech_folder(model):
        if (sound is None or (audio_path is not None and features_path is not None) or inputs_path is not None
                or prompt is not None or prompt_file is not None or image_path is not None):
            fail(UsageError("a Whisper export folder takes --audio WAVE.npy or --audio-features FEATURES.npy, and only "
                            "one of them (no --inputs, --prompt, --prompt-file or --image)", code="bad-prompt"))
        from .generate_speech import generate_speech

        assert sound is not None
        generate_speech(model, sound, audio_path is not None, language, task, max_new_tokens, output_path, eos_token_id,
                        compare_path, profile, report_path, max_memory, follow_symlinks)
        return
    if image_path is not None or os.path.isfile(os.path.join(model, "openvino_language_model.xml")):
        from .generate_vision import generate_vision

        generate_vision(model, image_path, inputs_path, prompt, prompt_file, max_new_tokens, output_path, eos_token_id,
                        compare_path, profile, report_path, max_memory, follow_symlinks)
        return
    if os.path.isdir(model):
        from .generate_text import generate_text

        generate_text(model, inputs_path, prompt, prompt_file, max_new_tokens, output_path, eos_token_id, compare_path,
                      profile, report_path, max_memory, follow_symlinks)
        return
    if prompt is not None or prompt_file is not None or inputs_path is None:
        fail(UsageError("--prompt and --prompt-file need an export folder as MODEL; a model file needs --inputs "
                        "PROMPT.npz of token ids", code="bad-prompt"))
    from ..api.generate import generate as run_generate
    from ..api.generate.report import generate_report, metrics, render_generate_report
    from ..api.session import Session
    from ..system.heap import retain_freed_memory
    from ..system.tensorfile import load_npz
    from .paths import explain_not_xml, require_inputs, require_outputs

    started = time.perf_counter()
    retain_freed_memory()
    try:
        require_inputs((model, "model file"), (weights, "weights file"), (inputs_path, "inputs file"),
                       (compare_path, "reference file"))
        require_outputs(output_path, report_path)
        follow = follow_symlinks or None
        reference = _load_tokens(compare_path, max_memory, follow) if compare_path else None
        prompt_arrays = load_npz(inputs_path, max_memory, follow_symlinks=follow)
        try:
            session = Session(model, weights, max_memory=max_memory, follow_symlinks=follow)
        except IRExecError as e:
            e.diagnostics = explain_not_xml(model, e.diagnostics)
            raise
        load_seconds = time.perf_counter() - started
        result = run_generate(session, prompt_arrays, max_new_tokens, eos_token_id=eos_token_id)
        if output_path:
            _save_tokens(output_path, result.tokens)
        measured = metrics(result)
        problem = _first_difference(result.tokens, reference) if reference is not None else None
        if report_path:
            from ..system.atomic import cannot_write, write_atomically

            doc = generate_report(model=model, prompt_path=inputs_path, result=result, m=measured,
                                  load_seconds=load_seconds, total_seconds=time.perf_counter() - started,
                                  reference=compare_path, mismatch=problem)
            try:
                write_atomically(report_path, render_generate_report(doc))
            except OSError as e:
                raise cannot_write(report_path, e) from None
    except IRExecError as e:
        fail(e)
    new = result.new_tokens
    for row in new:
        click.echo(" ".join(str(int(t)) for t in row))
    click.echo(f"{new.shape[1]} new token(s) per row after a prompt of {result.prompt_length}"
               + (" (stopped: every row produced the end-of-sequence token)" if result.stopped_by_eos else ""))
    if output_path:
        click.echo(f"wrote tokens {result.tokens.dtype}{list(result.tokens.shape)} to {output_path}")
    if report_path:
        click.echo(f"wrote the generate report to {report_path}")
    if profile:
        click.echo(_latency_table(result.latencies, result.prompt_length))
    click.echo(measured.summary())
    if reference is not None and compare_path is not None:
        if problem is None:
            click.echo(f"PASSED: the {result.tokens.shape[1]} tokens of each of the {result.tokens.shape[0]} row(s) "
                       f"match {compare_path}")
        else:
            length = ("" if result.tokens.shape[1] == reference.shape[1] else
                      f": {result.tokens.shape[1]} tokens per row (prompt {result.prompt_length} + "
                      f"{result.new_tokens.shape[1]} new) where it has {reference.shape[1]}")
            click.echo(f"FAILED: the tokens differ from {compare_path}{length}")
            click.echo(Diagnostic("tokens-mismatch", problem, ERROR, file=compare_path).format(), err=True)
            sys.exit(EXIT_FINDINGS)
