"""Token files and reports of `irexec generate`: reading and writing token .npy files,
the first difference from a reference, the latency table."""

from __future__ import annotations


def _load_tokens(path: str, max_memory: int | None = None, follow_symlinks: bool | None = None):
    from ..base.errors import InputError
    from ..system.tensorfile import load_npy

    arr = load_npy(path, max_memory, follow_symlinks=follow_symlinks, what="reference file")
    if arr.ndim != 2 or arr.dtype.kind not in "iu":
        raise InputError(f"{path} holds {arr.dtype}{list(arr.shape)}; token ids are an integer .npy [batch, tokens]",
                         code="bad-input-file", file=path)
    return arr


def expected_output(compare_path: str | None, max_memory: int | None, follow_symlinks: bool | None,
                    text_missing: str | None = None) -> tuple[object, str | None]:
    """The reference --compare names: token ids from a .npy, else the text of the file.
    ``text_missing`` says why a text reference cannot be compared (a usage error)."""
    if compare_path is None:
        return None, None
    if compare_path.endswith(".npy"):
        return _load_tokens(compare_path, max_memory, follow_symlinks), None
    if text_missing is not None:
        from ..base.errors import UsageError

        raise UsageError(f"--compare {compare_path}: {text_missing}", code="bad-prompt")
    return None, _read_text(compare_path, "reference file", follow_symlinks)


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



def _save_tokens(path: str, tokens) -> None:
    import numpy as np

    from ..system.atomic import atomic_file, cannot_write

    try:
        with atomic_file(path, ".npy.tmp") as f:
            np.lib.format.write_array(f, np.ascontiguousarray(tokens, np.int64), allow_pickle=False)
    except OSError as e:
        raise cannot_write(path, e) from None


def _first_difference(tokens, reference) -> str | None:
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

    from ..base.table_text import render_table

    rows = [["prefill", f"{prompt_length} tokens", f"{latencies[0] * 1000:.3f}"]]
    rows += [[f"decode {i}", "1 token", f"{t * 1000:.3f}"] for i, t in enumerate(latencies[1:], 1)]
    text = render_table(["call", "input", "ms"], rows)
    if len(latencies) > 1:
        decode = [t * 1000 for t in latencies[1:]]
        text += (f"\nprefill {latencies[0] * 1000:.3f} ms; decode per token: median {statistics.median(decode):.3f} ms, "
                 f"min {min(decode):.3f} ms, max {max(decode):.3f} ms ({len(decode)} steps)")
    return text


def close_generation(headline: str, result, measured, output_path: str | None, report_path: str | None,
                     latency: str | None, compare_path: str | None, problem: str | None, code: str,
                     tokens_compared: bool) -> None:
    """What every folder form of `generate` prints on stderr after the tokens and text: the
    headline, the files written, the latencies, the summary, and the comparison's verdict
    (exit 1 on a difference)."""
    import sys

    import click

    from ..base.errors import ERROR, Diagnostic
    from .base import EXIT_FINDINGS

    click.echo(headline, err=True)
    if output_path:
        click.echo(f"wrote tokens {result.tokens.dtype}{list(result.tokens.shape)} to {output_path}", err=True)
    if report_path:
        click.echo(f"wrote the generate report to {report_path}", err=True)
    if latency is not None:
        click.echo(latency, err=True)
    click.echo(measured.summary(), err=True)
    if compare_path is None:
        return
    if problem is None:
        click.echo(f"PASSED: the generated {'tokens match' if tokens_compared else 'text matches'} {compare_path}", err=True)
        return
    click.echo(f"FAILED: the generated output differs from {compare_path}", err=True)
    click.echo(Diagnostic(code, problem, ERROR, file=compare_path).format(), err=True)
    sys.exit(EXIT_FINDINGS)
