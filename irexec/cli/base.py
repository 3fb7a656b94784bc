"""Shared pieces of the CLI: the click group, exit codes, failure output."""

from __future__ import annotations

import os
import secrets
import sys
from collections.abc import Callable
from typing import Any, NoReturn

import click

from ..base.errors import IRExecError, UsageError

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def fail(exc: IRExecError) -> NoReturn:
    """Print a user error's diagnostics to stderr; exit 2 for a usage error
    (an option that names no layer or output), else 1."""
    from ..base.table_text import one_line

    for d in exc.diagnostics:
        click.echo(one_line(d.format()), err=True)  # a name from a file never starts a line of its own
    sys.exit(EXIT_USAGE if isinstance(exc, UsageError) else EXIT_FINDINGS)


# Words users reach for that are not options, and the options that do the job
# (click's own guess goes by spelling: --tolerance would suggest --val-range).
WORD_HINTS = {
    "--tolerance": "--atol [OUTPUT:]VALUE and --rtol [OUTPUT:]VALUE (tolerances of --compare)",
    "--tol": "--atol [OUTPUT:]VALUE and --rtol [OUTPUT:]VALUE (tolerances of --compare)",
    "--threshold": "--atol [OUTPUT:]VALUE and --rtol [OUTPUT:]VALUE (tolerances of --compare)",
    "--eps": "--atol [OUTPUT:]VALUE and --rtol [OUTPUT:]VALUE (tolerances of --compare)",
    "--expected": "--compare REF.npz",
    "--reference": "--compare REF.npz",
    "--ref": "--compare REF.npz",
    "--bin": "--weights FILE.bin",
    "--shape": "--input-shape NAME:DIMS",
    "--range": "--val-range [NAME:]LOW,HIGH",
}


def closing_line(ok: bool, started: float) -> str:
    """Polygraphy's last line: ``PASSED | Runtime: 1.234s | Command: irexec run ...``."""
    import shlex
    import time

    ctx = click.get_current_context()
    command = " ".join(["irexec", ctx.info_name or "", *map(shlex.quote, ctx.meta.get("irexec.args", []))])
    return f"{'PASSED' if ok else 'FAILED'} | Runtime: {time.perf_counter() - started:.3f}s | Command: {command}"


_held: list[str] = []  # the token that resumes workflow commands, while they are held


def hold_workflow_commands() -> None:
    """Under GitHub Actions, tell the runner to read no workflow command
    (``::error ...::``) in what follows until ``resume_workflow_commands``:
    human-readable output repeats names and paths from untrusted files, which
    could otherwise forge annotations, masks or outputs.  The token is random,
    so no file can end the hold."""
    if os.environ.get("GITHUB_ACTIONS") and not _held:
        _held.append(secrets.token_hex(16))
        click.echo(f"::stop-commands::{_held[0]}")


def resume_workflow_commands() -> None:
    if _held:
        click.echo(f"::{_held.pop()}::")


def machine_output(when: Callable[[dict[str, Any]], bool]) -> Callable:
    """Mark a command whose output is for machines when ``when`` says so, given its
    parameters (JSON on stdout, annotations meant as workflow commands): its
    output is not framed.  Every other command is (see ``Command``)."""
    def mark(fn: Callable) -> Callable:
        fn.irexec_machine_output = when  # type: ignore[attr-defined]
        return fn
    return mark


class Command(click.Command):
    """Every irexec command: under GitHub Actions its output is framed by
    ``hold_workflow_commands`` from its first line to its last, unless its
    callback is marked ``machine_output`` for the parameters given.  An option
    given outside the modes it applies to (cli/option_groups.py) is a usage
    error before the command runs."""

    def invoke(self, ctx: click.Context) -> Any:
        from .option_groups import check_modes

        when = getattr(self.callback, "irexec_machine_output", None)
        framed = not (when is not None and when(ctx.params))
        if framed:
            hold_workflow_commands()
        try:
            try:
                check_modes(ctx, self)
            except IRExecError as e:
                fail(e)
            return super().invoke(ctx)
        finally:
            if framed:
                resume_workflow_commands()


class TensorFileHints(Command):
    """Says what to do with an .npz or .npy given as an extra argument
    (``irexec run m.xml in.npz``) instead of click's bare 'unexpected extra argument',
    and which options do what a word users reach for (``--tolerance``) means."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        given = list(args)  # the parser consumes the list
        ctx.meta["irexec.args"] = given  # for the closing line: the command as it was typed
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as e:
            word = e.option_name.split("=", 1)[0]
            if word not in WORD_HINTS:
                raise
            raise click.UsageError(f"No such option: {word}; use {WORD_HINTS[word]}", ctx=e.ctx) from None
        except click.UsageError as e:
            extra = [a for a in given[1:] if a.lower().endswith((".npz", ".npy")) and a in str(e.message)]
            if "unexpected extra argument" not in str(e.message) or not extra:
                raise
            if extra[0].lower().endswith(".npz"):
                hint = f"hint: inputs come with --inputs {extra[0]} (a reference to compare with: --compare {extra[0]})"
            else:
                hint = (f"hint: inputs come with --inputs IN.npz, an .npz keyed by input name; save this array in one with "
                        f"np.savez('in.npz', NAME=np.load('{extra[0]}'))")
            raise click.UsageError(f"{e.message}\n{hint}", ctx=e.ctx) from None


class Group(click.Group):
    command_class = Command  # every command of the group is framed under GitHub Actions


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="irexec")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Read, check and execute OpenVINO IR models without OpenVINO.

    \b
    Examples:
      irexec run model.xml --inputs in.npz --output out.npz
      irexec check models/
      irexec inspect model.xml
      irexec ops

    Defaults for check and run can be set in the [tool.irexec] table of the
    nearest pyproject.toml (see docs/ci-configuration.md); a command-line option wins.
    """
    from ..base.errors import unspell_parameters
    from . import config
    from .options import use_option_names

    token = use_option_names()
    ctx.call_on_close(lambda: unspell_parameters(token))
    path = config.find()
    if path is not None:
        try:
            ctx.default_map = config.load(path)
        except IRExecError as e:
            fail(e)
        ctx.meta["irexec.config"] = path
