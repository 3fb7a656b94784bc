"""`irexec generate FOLDER --prompt TEXT`: tokenize, generate greedily, detokenize."""

from __future__ import annotations

import sys

import click

from ..errors import ERROR, Diagnostic, IRExecError, UsageError
from .base import EXIT_FINDINGS, fail


def generate_text(folder: str, inputs_path: str | None, prompt: str | None, prompt_file: str | None, max_new_tokens: int,
                  output_path: str | None, eos_token_id: int | None, compare_path: str | None, profile: bool,
                  max_memory: int | None, follow_symlinks: bool | None) -> None:
    from ..export_folder import open_export_folder
    from ..generate import generate as run_generate
    from ..session import Session
    from .generate_io import _first_difference, _latency_table, _load_tokens, _save_tokens
    from .paths import require_inputs, require_outputs

    try:
        if sum(x is not None for x in (prompt, prompt_file, inputs_path)) != 1:
            raise UsageError("an export folder needs exactly one of --prompt TEXT, --prompt-file FILE or --inputs "
                             "PROMPT.npz", code="bad-prompt")
        require_inputs((prompt_file, "prompt file"), (inputs_path, "inputs file"), (compare_path, "reference file"))
        require_outputs(output_path)
        export = open_export_folder(folder)
        text = prompt if prompt is not None else _read_text(prompt_file) if prompt_file is not None else None
        if text is not None:
            feeds = export.tokenize(text, max_memory)
        else:
            from ..tensorfile import load_npz

            feeds = load_npz(inputs_path, max_memory, follow_symlinks=follow_symlinks or None)  # type: ignore[arg-type]
        expected_tokens = expected_text = None
        if compare_path is not None:
            if compare_path.endswith(".npy"):
                expected_tokens = _load_tokens(compare_path, max_memory, follow_symlinks)
            else:
                expected_text = _read_text(compare_path)
        session = Session(export.model, max_memory=max_memory, follow_symlinks=follow_symlinks or None)
        eos = [eos_token_id] if eos_token_id is not None else export.eos_token_ids
        result = run_generate(session, feeds, max_new_tokens, eos_token_id=eos or None)
        texts = export.detokenize(result.new_tokens, max_memory)
        if output_path:
            _save_tokens(output_path, result.tokens)
    except IRExecError as e:
        fail(e)
    for row in texts:
        click.echo(row)
    stop = " (stopped: the end-of-sequence token)" if result.stopped_by_eos else ""
    click.echo(f"{result.new_tokens.shape[1]} new token(s) after a prompt of {result.prompt_length}{stop}", err=True)
    if output_path:
        click.echo(f"wrote tokens {result.tokens.dtype}{list(result.tokens.shape)} to {output_path}", err=True)
    if profile:
        click.echo(_latency_table(result.latencies, result.prompt_length), err=True)
    problem = None
    if expected_tokens is not None:
        problem = _first_difference(result.tokens, expected_tokens)
        code = "tokens-mismatch"
    elif expected_text is not None:
        got = "\n".join(texts)
        problem = None if got == expected_text else _text_difference(got, expected_text)
        code = "text-mismatch"
    if compare_path is not None:
        if problem is None:
            click.echo(f"PASSED: the generated {'tokens match' if expected_tokens is not None else 'text matches'} {compare_path}",
                       err=True)
        else:
            click.echo(f"FAILED: the generated output differs from {compare_path}", err=True)
            click.echo(Diagnostic(code, problem, ERROR, file=compare_path).format(), err=True)
            sys.exit(EXIT_FINDINGS)


def _read_text(path: str) -> str:
    from ..errors import InputError

    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{path} is not a readable UTF-8 text file: {e}", code="bad-input-file", file=path) from None


def _text_difference(got: str, want: str) -> str:
    at = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
    return (f"the text differs from character {at} on: generated {got[at:at + 40]!r}, reference {want[at:at + 40]!r} "
            f"({len(got)} and {len(want)} characters)")
