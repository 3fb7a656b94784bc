"""`irexec generate FOLDER --prompt TEXT`: tokenize, generate greedily, detokenize."""

from __future__ import annotations

import click

from ..base.errors import IRExecError, UsageError
from .base import fail


def generate_text(folder: str, inputs_path: str | None, prompt: str | None, prompt_file: str | None, max_new_tokens: int,
                  output_path: str | None, eos_token_id: int | None, compare_path: str | None, profile: bool,
                  report_path: str | None, max_memory: int | None, follow_symlinks: bool | None) -> None:
    import time

    from ..api.export_folder import open_export_folder
    from ..api.generate import generate as run_generate
    from ..api.session import Session
    from .generate_io import _latency_table, _load_tokens, close_generation
    from .paths import require_inputs, require_outputs

    started = time.perf_counter()
    try:
        if sum(x is not None for x in (prompt, prompt_file, inputs_path)) != 1:
            raise UsageError("an export folder needs exactly one of --prompt TEXT, --prompt-file FILE or --inputs "
                             "PROMPT.npz", code="bad-prompt")
        require_inputs((prompt_file, "prompt file"), (inputs_path, "inputs file"), (compare_path, "reference file"))
        require_outputs(output_path, report_path)
        follow = follow_symlinks or None
        export = open_export_folder(folder, follow_symlinks=follow)
        text = prompt if prompt is not None else \
            _read_text(prompt_file, "prompt file", follow) if prompt_file is not None else None
        if text is not None:
            feeds = export.tokenize(text, max_memory)
        else:
            from ..system.tensorfile import load_npz

            feeds = load_npz(inputs_path, max_memory, follow_symlinks=follow_symlinks or None)  # type: ignore[arg-type]
        expected_tokens = expected_text = None
        if compare_path is not None:
            if compare_path.endswith(".npy"):
                expected_tokens = _load_tokens(compare_path, max_memory, follow_symlinks)
            else:
                expected_text = _read_text(compare_path, "reference file", follow)
        session = Session(export.model, max_memory=max_memory, follow_symlinks=follow_symlinks or None)
        load_seconds = time.perf_counter() - started
        eos = [eos_token_id] if eos_token_id is not None else export.eos_token_ids
        result = run_generate(session, feeds, max_new_tokens, eos_token_id=eos or None)
        texts = export.detokenize(result.new_tokens, max_memory)
        measured, problem, code = _record(result, texts, folder, inputs_path or prompt_file or "", output_path,
                                          report_path, compare_path, expected_tokens, expected_text, load_seconds,
                                          started)
    except IRExecError as e:
        fail(e)
    for row in texts:
        click.echo(row)
    stop = " (stopped: the end-of-sequence token)" if result.stopped_by_eos else ""
    close_generation(f"{result.new_tokens.shape[1]} new token(s) after a prompt of {result.prompt_length}{stop}",
                     result, measured, output_path, report_path,
                     _latency_table(result.latencies, result.prompt_length) if profile else None,
                     compare_path, problem, code, expected_tokens is not None)


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


def _record(result, texts: list[str], folder: str, prompt_path: str, output_path: str | None, report_path: str | None,
            compare_path: str | None, expected_tokens, expected_text: str | None, load_seconds: float, started: float):
    """After a folder's generation: the tokens written, the first difference from the reference
    (and its code), the measurements, the report written."""
    import time

    from ..api.generate_report import generate_report, metrics
    from .generate_io import _save_tokens

    if output_path:
        _save_tokens(output_path, result.tokens)
    problem, code = _difference(result.tokens, texts, expected_tokens, expected_text)
    measured = metrics(result)
    if report_path:
        _write_report(report_path, generate_report(
            model=folder, prompt_path=prompt_path, result=result, m=measured, load_seconds=load_seconds,
            total_seconds=time.perf_counter() - started, reference=compare_path, mismatch=problem))
    return measured, problem, code


def _write_report(path: str, doc: dict) -> None:
    from ..api.generate_report import render_generate_report
    from ..system.atomic import cannot_write, write_atomically

    try:
        write_atomically(path, render_generate_report(doc))
    except OSError as e:
        raise cannot_write(path, e) from None


MAX_TEXT_BYTES = 16 << 20  # a prompt or reference text; more is not a prompt


def _read_text(path: str, what: str = "text file", follow_symlinks: bool | None = None) -> str:
    """A prompt or reference text, read under the file rules (irexec.system.files)."""
    from ..base.errors import InputError
    from ..system.files import read_small_file

    data = read_small_file(path, what, MAX_TEXT_BYTES, follow_symlinks, InputError, "bad-input-file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{path} is not a readable UTF-8 text file: {e}", code="bad-input-file", file=path) from None


def _text_difference(got: str, want: str) -> str:
    at = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
    return (f"the text differs from character {at} on: generated {got[at:at + 40]!r}, reference {want[at:at + 40]!r} "
            f"({len(got)} and {len(want)} characters)")
