"""`irexec generate FOLDER --prompt TEXT`: tokenize, generate greedily, detokenize; and
`irexec generate MODEL.xml --inputs PROMPT.npz`: token ids in and out."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from ..base.errors import IRExecError
from .base import fail
from .generate_io import _read_text
from .generate_request import Request

if TYPE_CHECKING:
    from ..api.generate.pipelines import PipelineResult


def generate_text(request: Request, weights: str | None, inputs_path: str | None, prompt: str | None,
                  prompt_file: str | None) -> None:
    """An export folder (text in, text out) or a model file (token ids in and out), through the library's
    LLMPipeline; the prompt options are already checked."""
    import os
    import time

    from ..api.generate.pipelines import LLMPipeline
    from ..system.heap import retain_freed_memory
    from .generate_io import _latency_table, close_generation
    from .paths import explain_not_xml, require_inputs, require_outputs

    started = time.perf_counter()
    retain_freed_memory()
    model, folder = request.model, os.path.isdir(request.model)
    try:
        require_inputs(*(() if folder else ((model, "model file"), (weights, "weights file"))), (prompt_file, "prompt file"),
                       (inputs_path, "inputs file"), (request.compare_path, "reference file"))
        require_outputs(request.output_path, request.report_path)
        expected_tokens, expected_text = _reference(request, tokens_only=not folder)
        try:
            pipe = LLMPipeline(model, weights=weights, max_memory=request.max_memory,
                               follow_symlinks=request.follow_symlinks)
        except IRExecError as e:
            if not folder:
                e.diagnostics = explain_not_xml(model, e.diagnostics)
            raise
        text = prompt if prompt is not None else \
            _read_text(prompt_file, "prompt file", request.follow_symlinks) if prompt_file is not None else None
        feeds = text if text is not None else _load_prompt(inputs_path, request)  # type: ignore[arg-type]
        load_seconds = time.perf_counter() - started
        result = pipe.generate(feeds, max_new_tokens=request.max_new_tokens, eos_token_id=request.eos_token_id,
                               ignore_eos=request.ignore_eos)
        measured, problem, code = _record(result, request, inputs_path or prompt_file or "", expected_tokens,
                                          expected_text, load_seconds, started)
    except IRExecError as e:
        fail(e)
    latency = _latency_table(result.latencies, result.prompt_length) if request.profile else None
    if not folder:
        _close_tokens(result, measured, request, latency, problem, expected_tokens)
        return
    for row in result.texts or []:
        click.echo(row)
    stop = " (stopped: the end-of-sequence token)" if result.stopped_by_eos else ""
    close_generation(f"{result.new_tokens.shape[1]} new token(s) after a prompt of {result.prompt_length}{stop}",
                     result, measured, request.output_path, request.report_path, latency, request.compare_path, problem,
                     code, expected_tokens is not None)


def _close_tokens(result: PipelineResult, measured, request: Request, latency: str | None, problem: str | None,
                  reference) -> None:
    """What `generate MODEL.xml` prints on stdout: the new token ids, the files written, the
    latencies, the summary and the comparison's verdict (exit 1 on a difference)."""
    import sys

    from ..base.errors import ERROR, Diagnostic
    from .base import EXIT_FINDINGS

    new = result.new_tokens
    for row in new:
        click.echo(" ".join(str(int(t)) for t in row))
    click.echo(f"{new.shape[1]} new token(s) per row after a prompt of {result.prompt_length}"
               + (" (stopped: every row produced the end-of-sequence token)" if result.stopped_by_eos else ""))
    if request.output_path:
        click.echo(f"wrote tokens {result.tokens.dtype}{list(result.tokens.shape)} to {request.output_path}")
    if request.report_path:
        click.echo(f"wrote the generate report to {request.report_path}")
    if latency is not None:
        click.echo(latency)
    click.echo(measured.summary())
    compare_path = request.compare_path
    if compare_path is None:
        return
    if problem is None:
        click.echo(f"PASSED: the {result.tokens.shape[1]} tokens of each of the {result.tokens.shape[0]} row(s) "
                   f"match {compare_path}")
        return
    width = reference.shape[1]
    length = ("" if result.tokens.shape[1] == width else
              f": {result.tokens.shape[1]} tokens per row (prompt {result.prompt_length} + "
              f"{result.new_tokens.shape[1]} new) where it has {width}")
    click.echo(f"FAILED: the tokens differ from {compare_path}{length}")
    click.echo(Diagnostic("tokens-mismatch", problem, ERROR, file=compare_path).format(), err=True)
    sys.exit(EXIT_FINDINGS)


def _load_prompt(path: str, request: Request) -> dict:
    from ..system.tensorfile import load_npz

    return load_npz(path, request.max_memory, follow_symlinks=request.follow_symlinks)


def _reference(request: Request, tokens_only: bool = False):
    """--compare's tokens (a .npy) or text (any other file), read before the work starts."""
    from .generate_io import _load_tokens

    path = request.compare_path
    if path is None:
        return None, None
    if tokens_only or path.endswith(".npy"):
        return _load_tokens(path, request.max_memory, request.follow_symlinks), None
    return None, _read_text(path, "reference file", request.follow_symlinks)


def _difference(tokens, texts: list[str], expected_tokens, expected_text: str | None
                ) -> tuple[str | None, str]:
    """The first difference from the reference, and its diagnostic code."""
    from .generate_io import _first_difference

    if expected_tokens is not None:
        return _first_difference(tokens, expected_tokens), "tokens-mismatch"
    if expected_text is not None:
        got = "\n".join(texts)
        return (None if got == expected_text else _text_difference(got, expected_text)), "text-mismatch"
    return None, "tokens-mismatch"


def _record(result: PipelineResult, request: Request, prompt_path: str, expected_tokens, expected_text: str | None,
            load_seconds: float, started: float):
    """After a generation: the tokens written, the first difference from the reference
    (and its code), the measurements, the report written."""
    import time

    from ..api.generate.report import generate_report
    from .generate_io import _save_tokens

    if request.output_path:
        _save_tokens(request.output_path, result.tokens)
    problem, code = _difference(result.tokens, result.texts or [], expected_tokens, expected_text)
    measured = result.metrics()
    if request.report_path:
        _write_report(request.report_path, generate_report(
            model=request.model, prompt_path=prompt_path, result=result, m=measured, load_seconds=load_seconds,
            total_seconds=time.perf_counter() - started, reference=request.compare_path, mismatch=problem))
    return measured, problem, code


def _write_report(path: str, doc: dict) -> None:
    from ..api.generate.report import render_generate_report
    from ..system.atomic import cannot_write, write_atomically

    try:
        write_atomically(path, render_generate_report(doc))
    except OSError as e:
        raise cannot_write(path, e) from None


def _text_difference(got: str, want: str) -> str:
    at = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
    return (f"the text differs from character {at} on: generated {got[at:at + 40]!r}, reference {want[at:at + 40]!r} "
            f"({len(got)} and {len(want)} characters)")
