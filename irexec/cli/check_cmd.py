"""`irexec check`: every finding in every file at once, in a format CI reads."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import click

from ..base.errors import ERROR, Diagnostic, InternalError, IRExecError, UsageError
from ..base.table_text import one_line
from ..model.naming import did_you_mean
from ..report.check_report import FileReport
from ..report.encoding import encodable
from .base import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, cli, fail, machine_output
from .config import FORMATS
from .option_groups import PIN_SHAPE_HELP, input_options, model_options

if TYPE_CHECKING:
    from ..base.shapes import PartialShape
    from ..report.check_report import CheckReport
    from ..system.user_cache import UserCache



@cli.command()
@click.argument("models", nargs=-1, required=True, metavar="MODEL...")
@click.option("--format", "--output-format", "-f", "fmt", type=click.Choice(FORMATS), default="auto", show_default=True,
              help="Report format (sarif: SARIF 2.1.0 for code scanning; gitlab: GitLab Code Quality); "
                   "auto is github when GITHUB_ACTIONS is set, else text.")
@click.option("--output-file", "-o", metavar="FILE",
              help="Write the report to FILE (atomically, creating missing folders); the summary line still goes to stdout.")
@click.option("--strict", is_flag=True, help="Warnings (e.g. unsupported ops) fail the check too.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings (exit 2 still means a usage or internal error).")
@input_options(inputs=None, seed=False,
               input_shape=PIN_SHAPE_HELP + " Applies to every checked model that has a Parameter of that name.")
@model_options(weights="The .bin file (only with a single MODEL; default: beside it).", follow_symlinks=False)
@click.option("--quiet", "-q", count=True, help="Print the findings and nothing else (no summary line); -qq: print nothing.")
@click.option("--silent", "-s", is_flag=True, help="Print nothing (the exit status still says whether the check failed); same as -qq.")
@click.option("--verbose", "-v", is_flag=True,
              help="Also print notes (e.g. layers not checked because an input failed), the files --skip-non-ir "
                   "passed over, and the config file used.")
@click.option("--select", multiple=True, metavar="CODE[,CODE...]",
              help="Report only these diagnostic codes (comma-separated, repeatable); the exit status follows.")
@click.option("--ignore", multiple=True, metavar="CODE[,CODE...]",
              help="Never report these diagnostic codes (comma-separated, repeatable); applied after --select.")
@click.option("--include-notes", is_flag=True,
              help="Put notes in the github, gitlab, sarif and junit reports too (json always has them; text with -v).")
@click.option("--statistics", is_flag=True,
              help="Print how many findings each code has, instead of the findings (text, or json with -f json).")
@click.option("--jobs", "-j", type=click.IntRange(min=0), default=1, show_default=True, metavar="N",
              help="Check the files on N processes (0: one per CPU); the report is the same as with -j 1.")
@click.option("--skip-non-ir", is_flag=True,
              help="Pass over .xml files whose root element is not <net> (pom.xml, Android resources) without a "
                   "finding; -v names them. The pre-commit hook uses it.")
@click.option("--allow-empty", is_flag=True,
              help="Exit 0 when the paths hold no .xml file (default: that fails, since nothing was checked).")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
              help="Colour the text report; auto: only when stdout is a terminal and NO_COLOR is not set.")
@model_options(weights=None)
@click.option("--no-cache", is_flag=True,
              help="Check every file again: neither read nor write the cache of findings of unchanged files "
                   "($XDG_CACHE_HOME/irexec or ~/.cache/irexec).")
@machine_output(lambda kw: _format(kw["fmt"], kw["statistics"]) != "text" and not kw.get("output_file"))
def check(models: tuple[str, ...], fmt: str, output_file: str | None, strict: bool, exit_zero: bool,
          input_shapes: tuple[str, ...], weights: str | None, quiet: int, silent: bool, verbose: bool,
          select: tuple[str, ...], ignore: tuple[str, ...], include_notes: bool, statistics: bool, jobs: int,
          skip_non_ir: bool, allow_empty: bool, color: str, follow_symlinks: bool | None, no_cache: bool = False) -> None:
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
      irexec check models/ --ignore unsupported-op --statistics
      irexec check models/ -j 4 --select shape-mismatch,type-mismatch
    """
    from ..report.check_report import CheckReport
    from ..report.check_report import select as select_findings
    from .options import parse_input_pins
    from .paths import require_inputs, require_outputs

    quiet, fmt = _settings(quiet, silent, verbose, fmt, statistics)
    selected, ignored = _codes(select, "--select"), _codes(ignore, "--ignore") or frozenset()
    try:
        pins = parse_input_pins(input_shapes)
        paths = _paths(models, weights, allow_empty, quiet)
        require_outputs(output_file)
        require_inputs((weights, "weights file"))
    except IRExecError as e:
        fail(e)
    from .check_cache import user_cache

    cache = None if no_cache else user_cache(models)
    checked = _Checked()
    for outcome in _check_files(paths.files, jobs, weights, pins, follow_symlinks or None, skip_non_ir, cache):
        checked.add(outcome, verbose)
    if cache is not None and checked.stored:
        cache.trim()
    missing = [_missing_file(arg, why) for arg, why in paths.missing]
    # json is the whole contract and keeps notes; the other machine formats carry them when asked
    notes = include_notes or verbose or fmt == "json"
    report = select_findings(CheckReport(missing + checked.reports, strict=strict), select=selected, ignore=ignored,
                             notes=notes)
    _emit(report, fmt, statistics, output_file, quiet, verbose or include_notes, color)
    _unused_pins(pins, checked, bool(missing))
    if checked.internal:
        click.echo("irexec: internal error while checking (see the internal-error findings); this is a bug in irexec",
                   err=True)
        sys.exit(EXIT_USAGE)
    if not paths.files and not paths.missing and not allow_empty:
        sys.exit(EXIT_FINDINGS)  # nothing was checked: a typo in a path must not pass
    sys.exit(EXIT_FINDINGS if report.failed and not exit_zero else EXIT_OK)


def _settings(quiet: int, silent: bool, verbose: bool, fmt: str, statistics: bool) -> tuple[int, str]:
    """The quiet level and the format, checked against each other; the config file used, with -v."""
    quiet = 2 if silent else min(quiet, 2)
    if quiet and verbose:
        raise click.UsageError("--quiet/--silent and --verbose cannot be combined")
    fmt = _format(fmt, statistics)
    if statistics and fmt not in ("text", "json"):
        raise click.UsageError(f"--statistics prints text or json, not {fmt}")
    config = click.get_current_context().find_root().meta.get("irexec.config")
    if verbose and config:
        click.echo(one_line(f"irexec: settings from {config}"), err=True)
    return quiet, fmt


def _paths(models: tuple[str, ...], weights: str | None, allow_empty: bool, quiet: int) -> Any:
    """The files to check.  A directory without an .xml file gets a note; when no path
    holds any, one message says so (the check then fails, unless --allow-empty)."""
    from .model_paths import expand

    paths = expand(models)
    if weights is not None and len(paths.files) + len(paths.missing) != 1:
        raise click.UsageError("--weights needs exactly one MODEL file")
    if quiet:
        return paths
    if paths.files or paths.missing:
        for d in paths.empty_dirs:
            click.echo(one_line(f"irexec: no *.xml files under {d}"), err=True)
    else:
        allow = "" if allow_empty else " (--allow-empty accepts that)"
        click.echo(one_line(f"irexec: 0 files checked: no *.xml files under {', '.join(models)}{allow}"), err=True)
    return paths


@dataclass
class _Checked:
    """The outcomes of the files checked, gathered in order."""

    reports: list[FileReport] = field(default_factory=list)
    used: set[str] = field(default_factory=set)  # --input-shape names some model has
    parameter_names: set[str] = field(default_factory=set)
    internal: bool = False
    stored: bool = False  # some file's findings went into the cache

    def add(self, outcome: _Outcome, verbose: bool) -> None:
        if outcome.skipped is not None:
            if verbose:
                click.echo(one_line(f"irexec: skipped {outcome.path}: {outcome.skipped}"), err=True)
            return
        assert outcome.report is not None
        self.reports.append(outcome.report)
        self.used |= outcome.used
        self.parameter_names |= outcome.parameter_names
        self.internal |= outcome.bug
        self.stored |= outcome.stored


def _emit(report: CheckReport, fmt: str, statistics: bool, output_file: str | None, quiet: int, verbose: bool,
          color: str) -> None:
    """The report, to --output-file (then the summary line to stdout) or to stdout."""
    colour = output_file is None and fmt == "text" and _colour(color)
    if statistics:
        text = _render_statistics(report, fmt)
    else:
        # -q changes what the human formats print; the machine formats are whole or nothing
        text = _render(report, fmt, quiet=quiet if fmt in ("text", "github") else 0, verbose=verbose, colour=colour)
    text = encodable(text, fmt)  # a file name that is not UTF-8
    if output_file:
        from ..system.atomic import cannot_write, write_atomically

        try:
            write_atomically(output_file, text)
        except OSError as e:
            fail(cannot_write(output_file, e))
        if not quiet:
            click.echo(report.summary_line())
    elif text and quiet < 2:
        click.echo(text, nl=False, color=colour)  # click would strip the codes when stdout is no terminal


def _unused_pins(pins: dict[str, PartialShape], checked: _Checked, missing: bool) -> None:
    """--input-shape names no Parameter of any checked model: a usage error."""
    unused = sorted(set(pins) - checked.used)
    if unused and not missing and all(r.layers for r in checked.reports):  # an unread file may have had that Parameter
        known = sorted(checked.parameter_names)
        fail(UsageError([Diagnostic("unknown-name", f"--input-shape names {n!r}, which no checked model has as a Parameter"
                                    f"{did_you_mean(n, known)}", ERROR) for n in unused]))


def _format(fmt: str, statistics: bool) -> str:
    """The format ``auto`` stands for: github annotations under GitHub Actions, else text."""
    if fmt == "auto":
        return "github" if os.environ.get("GITHUB_ACTIONS") and not statistics else "text"
    return fmt


def _codes(values: tuple[str, ...], option: str) -> frozenset[str] | None:
    from .config import parse_codes

    if not values:
        return None
    try:
        return parse_codes(values)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint=option) from None


@dataclass
class _Outcome:
    """What checking one file gave: its report, or why it was passed over."""

    path: str
    report: FileReport | None = None
    bug: bool = False
    skipped: str | None = None
    used: set[str] = field(default_factory=set)
    parameter_names: set[str] = field(default_factory=set)
    stored: bool = False  # its findings went into the cache


def _one(path: str, weights: str | None, pins: dict[str, PartialShape], follow_symlinks: bool | None,
         skip_non_ir: bool, cache: UserCache | None = None) -> _Outcome:
    if skip_non_ir:
        from ..ir.reader import is_ir_root

        root = _root_element(path, follow_symlinks)
        if root is not None and not is_ir_root(root):  # the reader's own rule: <Net> is IR, broken or not
            uri, _, name = root[1:].rpartition("}") if root.startswith("{") else ("", "", root)
            where = f" (namespace {uri}: IR has none)" if uri else ""
            return _Outcome(path, skipped=f"root element <{name}> is not <net>{where}: not an IR file")
    out = _Outcome(path)
    if cache is None:
        out.report, out.bug = _check_file(path, weights, pins, out.used, out.parameter_names, follow_symlinks)
        return out
    from .check_cache import check_through

    out.report, out.bug, out.stored = check_through(cache, _check_file, path, weights, pins, out.used,
                                                    out.parameter_names, follow_symlinks)
    return out


def _root_element(path: str, follow_symlinks: bool | None = None) -> str | None:
    """The root element's tag as lxml spells it (``{uri}name`` when namespaced), read
    from the first bytes that hold it; None when the file is not well-formed that far
    (then the check says why)."""
    from lxml import etree

    from ..system.files import check_readable

    try:  # a FIFO could block, a link may lead out of its folder: the check reports those
        check_readable(path, "model file", follow_symlinks)
    except IRExecError:
        return None
    if not os.path.isfile(path):
        return None
    try:
        for _, el in etree.iterparse(path, events=("start",), resolve_entities=False, load_dtd=False, no_network=True,
                                     huge_tree=False):
            return el.tag if isinstance(el.tag, str) else None
    except (etree.XMLSyntaxError, OSError, ValueError):
        return None
    return None


def _ignore_sigint() -> None:
    import signal

    from .options import use_option_names

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle; it stops the pool
    use_option_names()  # a worker's findings name options, as the parent's do


def _check_files(files: list[str], jobs: int, weights: str | None, pins: dict[str, PartialShape],
                 follow_symlinks: bool | None, skip_non_ir: bool, cache: UserCache | None = None) -> Iterator[_Outcome]:
    """Each file's outcome, in the order of ``files`` whatever ``jobs`` is."""
    jobs = min(jobs or os.cpu_count() or 1, len(files))
    if jobs <= 1:
        for path in files:
            yield _one(path, weights, pins, follow_symlinks, skip_non_ir, cache)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    context: multiprocessing.context.BaseContext
    if "forkserver" in multiprocessing.get_all_start_methods():  # no fork of a process that may run threads
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["irexec.cli.check_cmd", "irexec.checker.model_checker", "irexec.api.load"])  # imported once
    else:
        context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(jobs, mp_context=context, initializer=_ignore_sigint)
    try:
        futures = [pool.submit(_one, path, weights, pins, follow_symlinks, skip_non_ir, cache) for path in files]
        for path, future in zip(files, futures):
            try:
                yield future.result()
            except BrokenProcessPool as e:  # a worker died (killed, out of memory): that file's check is a bug report
                bug = Diagnostic("internal-error", f"the process checking this file died: {e}", ERROR, file=path)
                yield _Outcome(path, FileReport(path, [bug]), bug=True)
    except BaseException:  # Ctrl-C, SIGTERM, a report that cannot be written: the checks in progress are not waited for
        _kill_workers(pool)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _kill_workers(pool: Any) -> None:
    """Stop the pool's processes at once: shutdown() alone waits for every file
    in progress, which may take a minute after an interrupt."""
    processes = list((getattr(pool, "_processes", None) or {}).values())  # kill_workers() from Python 3.14 on
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.kill()
    for process in processes:
        process.join(timeout=2)


def _missing_file(arg: str, why: str) -> FileReport:
    from ..report.check_report import FileReport

    return FileReport(arg, [Diagnostic("file-not-found", why, ERROR, file=arg)])


def _check_file(path: str, weights: str | None, pins: dict[str, PartialShape], used: set[str],
                parameter_names: set[str], follow_symlinks: bool | None = None) -> tuple[FileReport, bool]:
    """One file's findings, and whether irexec itself failed on it.  Nothing
    about one file stops the others."""
    from ..api.load import read_model
    from ..checker.model_checker import check_model
    from ..model.naming import parameter_keys
    from ..report.check_report import FileReport, cap_findings, errors_first, group_repeated
    from ..system.gc_pause import gc_paused
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
                found = [replace(d, message=f"{d.message} (irexec check --skip-non-ir passes over .xml files that "
                                 "are not IR)") if d.code == "not-ir" else d for d in found]
                return FileReport(path, errors_first(cap_findings(found)), 0, time.perf_counter() - start), False
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
    return FileReport(path, errors_first(cap_findings(group_repeated(result.diagnostics))), result.layers,
                      time.perf_counter() - start), False


def _colour(choice: str) -> bool:
    if choice != "auto":
        return choice == "always"
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def _render_statistics(report: CheckReport, fmt: str) -> str:
    """ruff's --statistics: one row per code, most frequent first."""
    from ..report.check_report import statistics
    from ..report.rules import rule

    rows = statistics(report)
    if fmt == "json":
        import json

        return json.dumps([{"code": c, "severity": s, "count": n, "description": rule(c).short} for c, s, n in rows],
                          indent=2) + "\n"
    width = max((len(str(n)) for _, _, n in rows), default=1)
    code_width = max((len(c) for c, _, _ in rows), default=0)
    lines = [f"{n:>{width}}  {c:<{code_width}}  {s:<7}  {rule(c).short}".rstrip() for c, s, n in rows]
    lines.append(report.summary_line())
    return "\n".join(lines) + "\n"


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
