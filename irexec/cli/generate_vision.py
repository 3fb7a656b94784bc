"""`irexec generate FOLDER --image PIXELS.npy`: greedy decoding with a LLaVA-style VLM export."""

from __future__ import annotations

import click

from ..base.errors import IRExecError
from .base import fail
from .generate_request import Request


def generate_vision(request: Request, image_path: str, inputs_path: str | None, prompt: str | None,
                    prompt_file: str | None) -> None:
    """A LLaVA-style VLM export folder through the library's VLMPipeline; the prompt options are already checked."""
    import time

    from ..api.generate.pipelines import VLMPipeline
    from ..system.tensorfile import load_npy
    from .generate_io import _latency_table, close_generation
    from .generate_text import _load_prompt, _read_text, _record, _reference
    from .paths import require_inputs, require_outputs

    started = time.perf_counter()
    try:
        require_inputs((image_path, "pixel values file"), (prompt_file, "prompt file"), (inputs_path, "inputs file"),
                       (request.compare_path, "reference file"))
        require_outputs(request.output_path, request.report_path)
        pipe = VLMPipeline(request.model, max_memory=request.max_memory, follow_symlinks=request.follow_symlinks)
        pixel_values = load_npy(image_path, request.max_memory, follow_symlinks=request.follow_symlinks,
                                what="pixel values file")
        expected_tokens, expected_text = _reference(request)
        text = prompt if prompt is not None else \
            _read_text(prompt_file, "prompt file", request.follow_symlinks) if prompt_file is not None else None
        feeds = text if text is not None else _load_prompt(inputs_path, request)  # type: ignore[arg-type]
        load_seconds = time.perf_counter() - started
        result = pipe.generate(feeds, image=pixel_values, max_new_tokens=request.max_new_tokens,
                               eos_token_id=request.eos_token_id, ignore_eos=request.ignore_eos)
        measured, problem, code = _record(result, request, inputs_path or prompt_file or "", expected_tokens,
                                          expected_text, load_seconds, started)
    except IRExecError as e:
        fail(e)
    for row in result.new_tokens:
        click.echo(" ".join(str(int(t)) for t in row))
    for row in result.texts or []:
        click.echo(row)
    stop = " (stopped: the end-of-sequence token)" if result.stopped_by_eos else ""
    close_generation(f"{result.new_tokens.shape[1]} new token(s) after a prompt of {result.prompt_length} (image features included){stop}",
                     result, measured, request.output_path, request.report_path,
                     _latency_table(result.latencies, result.prompt_length) if request.profile else None,
                     request.compare_path, problem, code, expected_tokens is not None)
