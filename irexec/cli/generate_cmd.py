"""`irexec generate`: greedy decoding with a stateful causal LM."""

from __future__ import annotations

import sys

import click

from ..errors import ERROR, Diagnostic, IRExecError
from .base import EXIT_FINDINGS, cli, fail
from .run_cmd import _size


@cli.command()
@click.argument("model")
@click.option("--inputs", "-i", "inputs_path", metavar="PROMPT.npz", required=True,
              help="npz holding input_ids [batch, tokens] and optionally the model's other prefill inputs "
                   "(attention_mask, position_ids, beam_idx), used as given.")
@click.option("--max-new-tokens", "-n", type=click.IntRange(min=1), required=True, help="Tokens to generate per row.")
@click.option("--output", "-o", "output_path", metavar="TOKENS.npy",
              help="Write the prompt and the new tokens, int64 [batch, prompt + new], to this .npy (atomically).")
@click.option("--eos-token-id", type=int, metavar="ID",
              help="Stop once every row has produced this token (a row that has is filled with it).")
@click.option("--compare", "compare_path", metavar="TOKENS.npy",
              help="Compare the tokens with this .npy; a mismatch exits 1 naming the first differing position.")
@click.option("--profile", is_flag=True, help="Print the latency of every model call: the prefill, then each decode step.")
@click.option("--report", "report_path", metavar="OUT.json",
              help="Write the tokens and the measurements as JSON (schemas/generate-report.schema.json), atomically.")
@click.option("--weights", metavar="FILE.bin", help="The .bin file (default: beside MODEL).")
@click.option("--max-memory", callback=lambda ctx, param, value: _size(value), metavar="SIZE",
              help="Bytes of tensors a run may hold, e.g. 8GiB (default: $IREXEC_MAX_MEMORY or half the RAM).")
@click.option("--follow-symlinks", is_flag=True, default=None,
              help="Read files through symbolic links that lead out of their folder (default: $IREXEC_FOLLOW_SYMLINKS).")
def generate(model: str, inputs_path: str, max_new_tokens: int, output_path: str | None, eos_token_id: int | None,
             compare_path: str | None, profile: bool, report_path: str | None, weights: str | None,
             max_memory: int | None, follow_symlinks: bool | None) -> None:
    """Greedy decoding with MODEL, a stateful causal LM as optimum-intel exports it.

    From a reset state the prompt is run once; each new token is the argmax of the
    logits at the last position, fed back as a one-token decode step with
    attention_mask, position_ids and beam_idx built as the model's inputs require.
    Prints the new token ids, then time to first token, decode and overall
    tokens per second and peak memory, as GenAI's benchmark does.

    \b
    Example:
      irexec generate llm/model.xml --inputs prompt.npz --max-new-tokens 16 --output tokens.npy
      irexec generate llm/model.xml -i prompt.npz -n 16 --compare reference_tokens.npy --profile
    """
    import time

    from ..generate import generate as run_generate
    from ..generate_report import generate_report, metrics, render_generate_report
    from ..heap import retain_freed_memory
    from ..session import Session
    from ..tensorfile import load_npz
    from .paths import explain_not_xml, require_inputs, require_outputs

    started = time.perf_counter()
    retain_freed_memory()
    try:
        require_inputs((model, "model file"), (weights, "weights file"), (inputs_path, "inputs file"),
                       (compare_path, "reference file"))
        require_outputs(output_path, report_path)
        follow = follow_symlinks or None
        reference = _load_tokens(compare_path) if compare_path else None
        prompt = load_npz(inputs_path, max_memory, follow_symlinks=follow)
        try:
            session = Session(model, weights, max_memory=max_memory, follow_symlinks=follow)
        except IRExecError as e:
            e.diagnostics = explain_not_xml(model, e.diagnostics)
            raise
        load_seconds = time.perf_counter() - started
        result = run_generate(session, prompt, max_new_tokens, eos_token_id=eos_token_id)
        if output_path:
            _save_tokens(output_path, result.tokens)
        measured = metrics(result)
        problem = _first_difference(result.tokens, reference) if reference is not None else None
        if report_path:
            from ..atomic import cannot_write, write_atomically

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


def _load_tokens(path: str):  # type: ignore[no-untyped-def]
    import numpy as np

    from ..errors import InputError

    try:
        arr = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError) as e:
        raise InputError(f"{path} is not a readable .npy array of token ids: {e}", code="bad-input-file", file=path) from None
    if not isinstance(arr, np.ndarray) or arr.ndim != 2 or arr.dtype.kind not in "iu":
        what = f"{arr.dtype}{list(arr.shape)}" if isinstance(arr, np.ndarray) else "an npz archive"
        raise InputError(f"{path} holds {what}; token ids are an integer .npy [batch, tokens]", code="bad-input-file",
                         file=path)
    return arr


def _save_tokens(path: str, tokens) -> None:  # type: ignore[no-untyped-def]
    import numpy as np

    from ..atomic import atomic_file, cannot_write

    try:
        with atomic_file(path, ".npy.tmp") as f:
            np.lib.format.write_array(f, np.ascontiguousarray(tokens, np.int64), allow_pickle=False)
    except OSError as e:
        raise cannot_write(path, e) from None


def _first_difference(tokens, reference) -> str | None:  # type: ignore[no-untyped-def]
    """Where the generated tokens first differ from the reference, or None."""
    if tokens.shape[0] != reference.shape[0]:
        return f"{tokens.shape[0]} row(s) generated, the reference has {reference.shape[0]}"
    width = min(tokens.shape[1], reference.shape[1])
    for col in range(width):
        rows = [r for r in range(tokens.shape[0]) if tokens[r, col] != reference[r, col]]
        if rows:
            r = rows[0]
            return (f"first difference at row {r}, position {col}: generated {int(tokens[r, col])}, "
                    f"reference {int(reference[r, col])}")
    if tokens.shape[1] != reference.shape[1]:
        return (f"the first {width} tokens agree, but {tokens.shape[1]} were generated and the reference has "
                f"{reference.shape[1]} (position {width} is the first without a counterpart)")
    return None


def _latency_table(latencies: list[float], prompt_length: int) -> str:
    import statistics

    from ..report.tables import render_table

    rows = [["prefill", f"{prompt_length} tokens", f"{latencies[0] * 1000:.3f}"]]
    rows += [[f"decode {i}", "1 token", f"{t * 1000:.3f}"] for i, t in enumerate(latencies[1:], 1)]
    text = render_table(["call", "input", "ms"], rows)
    if len(latencies) > 1:
        decode = [t * 1000 for t in latencies[1:]]
        text += (f"\nprefill {latencies[0] * 1000:.3f} ms; decode per token: median {statistics.median(decode):.3f} ms, "
                 f"min {min(decode):.3f} ms, max {max(decode):.3f} ms ({len(decode)} steps)")
    return text
