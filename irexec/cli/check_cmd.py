"""`irexec check`: every finding in every file at once, in a format CI reads."""

from __future__ import annotations

import os
import sys
import time
from typing import TYPE_CHECKING

import click

from ..errors import ERROR, Diagnostic, InternalError, IRExecError, UsageError
from ..naming import did_you_mean
from ..report.encoding import encodable
from .base import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, cli, fail, hold_workflow_commands, holds_workflow_commands

if TYPE_CHECKING:
    from ..report.check_report import CheckReport, FileReport
    from ..shapes import PartialShape

FORMATS = ("auto", "text", "json", "github", "gitlab", "junit", "sarif")


@cli.command()
@click.argument("models", nargs=-1, required=True, metavar="MODEL...")
@click.option("--format", "--output-format", "-f", "fmt", type=click.Choice(FORMATS), default="auto", show_default=True,
              help="Report format (sarif: SARIF 2.1.0 for code scanning; gitlab: GitLab Code Quality); "
                   "auto is github when GITHUB_ACTIONS is set, else text.")
@click.option("--output-file", "-o", metavar="FILE",
              help="Write the report to FILE (atomically, creating missing folders); the summary line still goes to stdout.")
@click.option("--strict", is_flag=True, help="Warnings (e.g. unsupported ops) fail the check too.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings (exit 2 still means a usage or internal error).")
@click.option("--input-shape", "input_shapes", multiple=True, metavar="NAME:DIMS",
              help="Pin a Parameter's dynamic dims, e.g. x:1,3,-1,-1 (-1 or ? keeps a dim dynamic; repeatable). "
                   "Applies to every checked model that has a Parameter of that name.")
@click.option("--weights", type=click.Path(dir_okay=False), help="The .bin file (only with a single MODEL; default: beside it).")
@click.option("--quiet", "-q", count=True, help="Print the findings and nothing else (no summary line); -qq: print nothing.")
@click.option("--silent", "-s", is_flag=True, help="Print nothing (the exit status still says whether the check failed); same as -qq.")
@click.option("--verbose", "-v", is_flag=True, help="Also print notes (e.g. layers not checked because an input failed).")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
              help="Colour the text report; auto: only when stdout is a terminal and NO_COLOR is not set.")
@click.option("--follow-symlinks", is_flag=True, default=None,
              help="Read files through symbolic links that lead out of their folder (default: $IREXEC_FOLLOW_SYMLINKS).")
@holds_workflow_commands(lambda kw: False)  # held once the format is known to be text
def check(models: tuple[str, ...], fmt: str, output_file: str | None, strict: bool, exit_zero: bool,
          input_shapes: tuple[str, ...], weights: str | None, quiet: int, silent: bool, verbose: bool, color: str,
          follow_symlinks: bool | None) -> None:
    """Check IR files: document structure, edges, attributes, element types and
    every port's declared dims against shape inference.

    MODEL is an .xml file, a directory (every *.xml below it) or a quoted glob
    pattern ('models/**/*.xml'). A layer of an op irexec does not implement is
    trusted as declared: one warning per op type, and everything downstream is
    still checked.

    Exit status: 0 clean, 1 findings (errors; with --strict also warnings; a
    MODEL path that does not exist is an error of that path), 2 usage or
    internal error.

    \b
    Examples:
      irexec check model.xml
      irexec check models/ --strict
      irexec check 'models/**/*.xml' --format json -o report.json
      irexec check model.xml --input-shape x:1,3,224,224
      irexec check models/ --format junit -o irexec-junit.xml --exit-zero
      irexec check models/ --format sarif -o irexec.sarif
    """
    quiet = 2 if silent else min(quiet, 2)
    if quiet and verbose:
        raise click.UsageError("--quiet/--silent and --verbose cannot be combined")
    from ..report.check_report import CheckReport
    from .model_paths import expand
    from .paths import require_inputs, require_outputs

    pins = _parse_pins(input_shapes)
    paths = expand(models)
    if weights is not None and len(paths.files) + len(paths.missing) != 1:
        raise click.UsageError("--weights needs exactly one MODEL file")
    try:
        require_outputs(output_file)
        require_inputs((weights, "weights file"))
    except IRExecError as e:
        fail(e)
    for d in paths.empty_dirs:
        if not quiet:
            click.echo(f"irexec: no *.xml files under {d}", err=True)

    missing = [_missing_file(arg, why) for arg, why in paths.missing]
    used: set[str] = set()
    parameter_names: set[str] = set()
    reports: list[FileReport] = []
    internal = False
    for path in paths.files:
        file_report, bug = _check_file(path, weights, pins, used, parameter_names, follow_symlinks or None)
        reports.append(file_report)
        internal |= bug
    report = CheckReport(missing + reports, strict=strict)
    if fmt == "auto":
        fmt = "github" if os.environ.get("GITHUB_ACTIONS") else "text"
    colour = output_file is None and fmt == "text" and _colour(color)
    # -q changes what the human formats print; the machine formats are whole or nothing
    text = _render(report, fmt, quiet=quiet if fmt in ("text", "github") else 0, verbose=verbose, colour=colour)
    text = encodable(text, fmt)  # a file name that is not UTF-8
    if output_file:
        from ..atomic import cannot_write, write_atomically

        try:
            write_atomically(output_file, text)
        except OSError as e:
            fail(cannot_write(output_file, e))
        if not quiet:
            click.echo(report.summary_line())
    elif text and quiet < 2:
        if fmt == "text":
            hold_workflow_commands()  # paths and names from the files, under GitHub Actions
        click.echo(text, nl=False, color=colour)  # click would strip the codes when stdout is no terminal

    unused = sorted(set(pins) - used)
    if unused and not missing and all(r.layers for r in reports):  # an unread file may have had that Parameter
        known = sorted(parameter_names)
        fail(UsageError([Diagnostic("unknown-name", f"--input-shape names {n!r}, which no checked model has as a Parameter"
                                    f"{did_you_mean(n, known)}", ERROR) for n in unused]))
    if internal:
        click.echo("irexec: internal error while checking (see the internal-error findings); this is a bug in irexec",
                   err=True)
        sys.exit(EXIT_USAGE)
    sys.exit(EXIT_FINDINGS if report.failed and not exit_zero else EXIT_OK)


def _parse_pins(specs: tuple[str, ...]) -> dict[str, PartialShape]:
    """``NAME:1,3,-1`` -> {name: shape}; the shape follows the last colon."""
    from ..shapes import ShapeSyntaxError, parse_partial_shape

    pins: dict[str, PartialShape] = {}
    for spec in specs:
        name, sep, dims = spec.rpartition(":")
        if not sep or not name:
            raise click.BadParameter(f"{spec!r} is not NAME:DIMS (e.g. x:1,3,224,224)", param_hint="--input-shape")
        try:
            shape = parse_partial_shape(dims)
        except ShapeSyntaxError as e:
            raise click.BadParameter(f"{spec!r}: {e}", param_hint="--input-shape") from None
        if shape.dims is None:
            raise click.BadParameter(f"{spec!r}: give the dims (a dynamic rank pins nothing)", param_hint="--input-shape")
        pins[name] = shape
    return pins


def _missing_file(arg: str, why: str) -> FileReport:
    from ..report.check_report import FileReport

    return FileReport(arg, [Diagnostic("file-not-found", why, ERROR, file=arg)])


def _check_file(path: str, weights: str | None, pins: dict[str, PartialShape], used: set[str],
                parameter_names: set[str], follow_symlinks: bool | None = None) -> tuple[FileReport, bool]:
    """One file's findings, and whether irexec itself failed on it.  Nothing
    about one file stops the others."""
    from ..checker import check_model
    from ..gc_pause import gc_paused
    from ..model import read_model
    from ..naming import parameter_keys
    from ..report.check_report import FileReport, cap_findings, group_repeated
    from .paths import explain_not_xml, input_problem

    start = time.perf_counter()
    unreadable = input_problem(path, "model file")
    if unreadable is not None:
        return FileReport(path, [unreadable], 0, time.perf_counter() - start), False
    try:
        with gc_paused():
            try:
                model = read_model(path, weights, follow_symlinks=follow_symlinks)
            except IRExecError as e:
                found = explain_not_xml(path, [d.located(file=path) for d in e.diagnostics])
                return FileReport(path, cap_findings(found), 0, time.perf_counter() - start), False
            try:
                mine = {}
                for p in model.parameters:
                    keys = parameter_keys(p)
                    parameter_names.update(keys)
                    given = next((k for k in keys if k in pins), None)  # by layer name or tensor name
                    if given is not None:
                        mine[p.name] = pins[given]
                        used.add(given)
                result = check_model(model, mine, keep_tensors=False)  # a report needs only the findings
            finally:
                model.close()
    except (InternalError, Exception) as e:  # noqa: BLE001 - a bug must not hide the other files' findings
        bug = Diagnostic("internal-error", f"irexec failed on this file: {type(e).__name__}: {e}", ERROR, file=path)
        return FileReport(path, [bug], 0, time.perf_counter() - start), True
    return FileReport(path, cap_findings(group_repeated(result.diagnostics)), result.layers, time.perf_counter() - start), False


def _colour(choice: str) -> bool:
    if choice != "auto":
        return choice == "always"
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def _render(report: CheckReport, fmt: str, *, quiet: int, verbose: bool, colour: bool) -> str:
    if fmt == "json":
        from ..report.json_report import render_json

        return render_json(report)
    if fmt == "junit":
        from ..report.junit import render_junit

        return render_junit(report)
    if fmt == "sarif":
        from ..report.sarif import render_sarif

        return render_sarif(report)
    if fmt == "gitlab":
        from ..report.gitlab import render_gitlab

        return render_gitlab(report)
    if fmt == "github":
        from ..report.github import render_github

        return render_github(report, quiet=quiet)
    from ..report.text import render_text

    return render_text(report, verbose=verbose, quiet=quiet, colour=colour)
