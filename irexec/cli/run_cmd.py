"""`irexec run`: execute a model, optionally comparing, dumping and profiling."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import Any

import click

from ..base.errors import IRExecError
from ..base.table_text import one_line
from .base import EXIT_FINDINGS, TensorFileHints, cli, closing_line, fail
from .option_groups import Modes, input_options, memory_options, model_options, modes, option, output_options

RUN_MODES = Modes(
    decide=lambda p: ("given" if p["inputs_path"] else "generated",
                      *(["compare"] if p["compare_path"] else []), *(["whole"] if p["stop_at"] is None else []),
                      *(["profile"] if p["profile"] else [])),
    needs={"generated": "generated inputs (no --inputs)", "compare": "--compare REF.npz",
           "whole": "a whole run (a run stopped with --stop-at executes no Assign)", "profile": "--profile"},
    named={"given": "the inputs come from {inputs_path}", "generated": "the inputs are generated"},
    unless={"compare": "", "whole": "this run stops at {stop_at}", "profile": ""},
    code="option-not-applicable")


@cli.command(cls=TensorFileHints)
@click.argument("model")
@input_options(inputs_aliases=("--input",), val_range=True, generated=["generated"])
@output_options(output="Write the outputs to this npz (atomically, creating missing folders).",
                report="Write a JSON report of the run (per-output stats, comparison results, timings; "
                       "schemas/run-report.schema.json), atomically; not written when the run fails.")
@model_options()
@click.option("--state-in", "state_in", metavar="S.npz",
              help="A stateful model's variables to start from, keyed by variable_id (default: the initial state).")
@option("--state-out", "state_out", metavar="S.npz", modes=["whole"],
        help="Write the variables the run leaves, keyed by variable_id (atomically).")
@click.option("--compare", "compare_path", metavar="REF.npz",
              help="Compare the outputs with this npz; a mismatch exits 1.")
@option("--atol", "--abs-tol", "atol", multiple=True, metavar="[OUTPUT:]VALUE", modes=["compare"],
        help="Absolute tolerance for --compare, global or per output (repeatable). Default by element type: "
             "0 for integers, booleans and outputs the graph only moves; for floats a fraction of the "
             "reference's largest |value|: 1e-4 for f32, 1e-2 for f16, 8e-2 for bf16.")
@option("--rtol", "--rel-tol", "rtol", multiple=True, metavar="[OUTPUT:]VALUE", modes=["compare"],
        help="Relative tolerance for --compare, global or per output (repeatable). Default by element type: "
             "0 for integers, booleans and outputs the graph only moves, 1e-5 for f32, 1e-2 for f16, "
             "8e-2 for bf16. --atol 0 --rtol 0: exact.")
@click.option("--dump", "dump_dir", metavar="DIR",
              help="Write every executed layer's outputs to DIR (one npz per layer plus index.json).")
@click.option("--check-finite", is_flag=True,
              help="Fail (exit 1) at the first layer whose output holds NaN or Inf, naming it and its inputs' ranges.")
@click.option("--stop-at", metavar="LAYER", help="Stop after this layer (id or name) and output its tensors.")
@click.option("--save-inputs", metavar="FILE.npz", help="Write the inputs used to this npz.")
@click.option("--profile", is_flag=True, help="Print timing tables, slowest first: per layer, then per op type.")
@option("--top", type=click.IntRange(min=0), default=20, show_default=True, metavar="N", modes=["profile"],
        help="With --profile: list the N slowest layers and sum up the rest (0: every layer).")
@click.option("--repeat", type=click.IntRange(min=1), default=1, show_default=True,
              help="Run this many times after one warm-up run, and print latency and throughput; --profile reports medians.")
@click.option("--quiet", "-q", is_flag=True, help="No progress display on the terminal (a long run shows one on stderr).")
@click.option("--verbose", "-v", is_flag=True,
              help="Also print each output's mean, std, median, p95 and p99, and where its min, max, p95 and p99 are.")
@memory_options()
@modes(RUN_MODES)
def run(model: str, inputs_path: str | None, output_path: str | None, weights: str | None, state_in: str | None,
        state_out: str | None, compare_path: str | None,
        atol: tuple[str, ...], rtol: tuple[str, ...], report_path: str | None, dump_dir: str | None, check_finite: bool,
        stop_at: str | None, seed: int,
        input_shapes: tuple[str, ...], val_ranges: tuple[str, ...], save_inputs: str | None, profile: bool, top: int,
        repeat: int, quiet: bool, verbose: bool, max_memory: int | None, follow_symlinks: bool | None) -> None:
    """Run MODEL on the inputs and print a table of its outputs.

    \b
    Example:
      irexec run examples/roll-example-1/model.xml \\
          --inputs examples/roll-example-1/inputs.npz --output out.npz
    \b
    Debugging:
      irexec run model.xml --compare expected.npz --atol 1e-6 --rtol out:1e-3
      irexec run model.xml --dump layers/ --stop-at Gather_7
      irexec run model.xml --inputs in.npz --check-finite
      irexec run model.xml --seed 3 --input-shape x:2,8 --save-inputs in.npz
      irexec run model.xml --val-range input_ids:0,999
      irexec run model.xml --inputs in.npz --profile --repeat 5
    \b
    A stateful model (ReadValue/Assign), a prefill then a decode step:
      irexec run llm.xml --inputs step0.npz --state-out s1.npz
      irexec run llm.xml --inputs step1.npz --state-in s1.npz --state-out s2.npz
    """
    from ..system.heap import retain_freed_memory

    command_started = time.perf_counter()
    atol_t, rtol_t, shapes, ranges = _parsed(atol, rtol, input_shapes, seed, val_ranges)
    retain_freed_memory()  # this process exists for the run: reuse its pages (see irexec/system/heap.py)
    paths = _Paths(model, weights, inputs_path, output_path, compare_path, report_path, state_in, state_out, save_inputs,
                   dump_dir)
    try:
        done = _execute(paths, shapes, ranges, seed, max_memory, follow_symlinks or None, stop_at, profile, repeat,
                        quiet, check_finite, atol_t, rtol_t)
    except IRExecError as e:
        fail(e)
    _print_run(done, paths, verbose, top, repeat)
    report = done.comparison
    if report is not None:
        _print_comparison(report, compare_path or "", atol_t, rtol_t)
        if not report.ok:
            for d in report.diagnostics():
                click.echo(one_line(d.format()), err=True)
            click.echo(closing_line(False, command_started))
            sys.exit(EXIT_FINDINGS)
    click.echo(closing_line(True, command_started))


def _parsed(atol: tuple[str, ...], rtol: tuple[str, ...], input_shapes: tuple[str, ...], seed: int,
            val_ranges: tuple[str, ...]) -> tuple[Any, Any, Any, Any]:
    """The option values that need parsing; a malformed one is a usage error (exit 2), like click's own."""
    from ..base.errors import UsageError
    from .option_groups import parse_seed
    from .options import parse_input_shapes, parse_tolerance, parse_val_ranges

    try:
        atol_t, rtol_t = parse_tolerance(atol, "--atol"), parse_tolerance(rtol, "--rtol")
        shapes = parse_input_shapes(input_shapes)
        parse_seed(seed)
        return atol_t, rtol_t, shapes, parse_val_ranges(val_ranges)
    except UsageError as e:
        fail(e)


@dataclass(frozen=True)
class _Paths:
    """The files a run reads and writes."""

    model: str
    weights: str | None
    inputs: str | None
    output: str | None
    compare: str | None
    report: str | None
    state_in: str | None
    state_out: str | None
    save_inputs: str | None
    dump: str | None


@dataclass
class _Done:
    """What a run gave: the session, the result, the comparison with the reference (if any)."""

    session: Any
    result: Any
    comparison: Any


def _open(paths: _Paths, max_memory: int | None, follow: bool | None, stop_at: str | None) -> tuple[Any, float]:
    """The session of the model, and the seconds it took to load; a misspelt --stop-at fails before any work."""
    from ..api.session import Session
    from ..base.errors import UsageError
    from .paths import explain_not_xml

    started = time.perf_counter()
    try:
        session = Session(paths.model, paths.weights, max_memory=max_memory, follow_symlinks=follow)
    except IRExecError as e:
        e.diagnostics = explain_not_xml(paths.model, e.diagnostics)
        raise
    load_seconds = time.perf_counter() - started
    if stop_at is not None:
        session.find_layer(stop_at)
    if (paths.state_in or paths.state_out) and not session.variables:
        raise UsageError(f"--state-in and --state-out need a stateful model; {paths.model} has no ReadValue/Assign "
                         "variables", code="not-stateful", file=paths.model)
    if paths.state_in:
        session.load_state(paths.state_in, follow_symlinks=follow)
    return session, load_seconds


def _feeds(session: Any, paths: _Paths, shapes: Any, ranges: Any, seed: int, max_memory: int | None,
           follow: bool | None) -> Any:
    """The inputs: read from --inputs, or generated (and listed) from --seed."""
    from ..api.inputs import plan_rows
    from ..base.table_text import render_table
    from ..system.tensorfile import load_npz, save_npz

    if paths.inputs:
        feeds = load_npz(paths.inputs, max_memory, follow_symlinks=follow)
        if session.variables and not paths.state_in:  # made-up positions imply nothing
            _note_missing_state(feeds)
    else:
        plans = session.input_plans(shapes, ranges)
        feeds = session.random_inputs(seed, plans=plans)
        if feeds:
            click.echo(f"random inputs (seed {seed}):")
            click.echo(render_table(["input", "tensor names", "dtype", "shape", "values", "range from"], plan_rows(plans)))
    if paths.save_inputs:
        save_npz(paths.save_inputs, feeds)  # before running, so a failing run can be reproduced
        click.echo(f"wrote {len(feeds)} input(s) to {paths.save_inputs}")
    return feeds


def _execute(paths: _Paths, shapes: Any, ranges: Any, seed: int, max_memory: int | None, follow: bool | None,
             stop_at: str | None, profile: bool, repeat: int, quiet: bool, check_finite: bool, atol: Any,
             rtol: Any) -> _Done:
    from ..system.tensorfile import load_npz, save_npz
    from .paths import require_inputs, require_outputs

    require_inputs((paths.model, "model file"), (paths.weights, "weights file"), (paths.inputs, "inputs file"),
                   (paths.compare, "reference file"), (paths.state_in, "state file"))
    require_outputs(paths.output, paths.save_inputs, paths.report, paths.state_out)
    reference = load_npz(paths.compare, max_memory, follow_symlinks=follow) if paths.compare else None
    started = time.perf_counter()
    session, load_seconds = _open(paths, max_memory, follow, stop_at)
    feeds = _feeds(session, paths, shapes, ranges, seed, max_memory, follow)
    run_started = time.perf_counter()
    result = session.run(feeds, stop_at=stop_at, dump=paths.dump, profile=profile, repeat=repeat,
                         warmup=1 if repeat > 1 else 0, progress=sys.stderr.isatty() and not quiet,
                         check_finite=check_finite)
    run_seconds = time.perf_counter() - run_started
    if paths.output:
        save_npz(paths.output, result.outputs)
    if paths.state_out:
        session.save_state(paths.state_out)
    compare_started = time.perf_counter()
    report = session.compare(result, reference, atol, rtol, reference_name=paths.compare) if reference is not None else None
    if paths.report:
        _write_report(paths.report, model=paths.model, weights=paths.weights, feeds=feeds, inputs_path=paths.inputs,
                      seed=None if paths.inputs else seed, result=result, comparison=report,
                      timings={"load_seconds": load_seconds, "run_seconds": run_seconds,
                               "latencies_seconds": list(result.latencies), "warmup_runs": 1 if repeat > 1 else 0,
                               "compare_seconds": time.perf_counter() - compare_started if report else None,
                               "total_seconds": time.perf_counter() - started})
    return _Done(session, result, report)


def _print_run(done: _Done, paths: _Paths, verbose: bool, top: int, repeat: int) -> None:
    """The warnings, the outputs' table and what was written, before any comparison."""
    result = done.result
    for d in result.warnings:
        click.echo(one_line(d.format()), err=True)
    if result.stopped_at is not None:
        layer = result.stopped_at
        click.echo(f"stopped at layer {layer.id} {layer.name!r} ({layer.display})")
    _print_table(result.outputs)
    if verbose:
        _print_distribution(result.outputs)
    written = [(paths.output, f"wrote {len(result.outputs)} output(s) to {paths.output}"),
               (paths.report, f"wrote the run report to {paths.report}"),
               (paths.state_out, f"wrote {len(done.session.variables)} variable(s) to {paths.state_out}"),
               (paths.dump, f"dumped layer outputs to {paths.dump} (index.json lists them)")]
    for path, line in written:
        if path:
            click.echo(line)
    if result.profile is not None:
        click.echo(result.profile.render(top=top))
    if repeat > 1:
        click.echo(_latency_summary(result.latencies))


def _note_missing_state(feeds: Any) -> None:
    """A decode step's inputs (positions past 0) on a fresh state: the KV cache they imply is not there."""
    import numpy as np

    positions = feeds.get("position_ids")
    if positions is None or np.asarray(positions).size == 0 or np.asarray(positions).dtype.kind not in "iu":
        return
    first = int(np.asarray(positions).min())
    if first > 0:
        click.echo(f"note: position_ids start at {first}, so these inputs continue a sequence of {first} earlier "
                   "tokens whose KV cache this run does not have (it starts from the initial state); pass the state "
                   "the earlier step left with --state-in S.npz (written by --state-out)", err=True)


def _write_report(path: str, *, model: str, weights: str | None, feeds: Any, inputs_path: str | None, seed: int | None,
                  result: Any, comparison: Any, timings: dict[str, Any]) -> None:
    from ..report.run_report import render_run_report, run_report
    from ..system.atomic import write_atomically

    stopped = result.stopped_at
    doc = run_report(model=model, weights=weights, inputs=feeds, inputs_path=inputs_path, seed=seed,
                     outputs=result.outputs, comparison=comparison,
                     stopped_at=None if stopped is None else {"layer_id": stopped.id, "layer_name": stopped.name,
                                                              "op": stopped.display},
                     warnings=result.warnings, timings=timings)
    write_atomically(path, render_run_report(doc))


def _tolerances_applied(report: Any) -> str:
    """The tolerances of the compared outputs: one text when all share it, else per output."""
    from ..api.comparison import EXTRA, MISSING

    texts = {c.name: c.tolerance_text() for c in report.comparisons if c.status not in (EXTRA, MISSING)}
    if len(set(texts.values())) <= 1:
        return next(iter(texts.values()), "nothing compared")
    return "; ".join(f"{name}: {text}" for name, text in texts.items())


def _latency_summary(latencies: list[float]) -> str:
    """benchmark_app's summary: count, duration, latency median/average/min/max, throughput."""
    import statistics

    ms = [t * 1000 for t in latencies]
    total = sum(ms)
    lines = [f"Count:          {len(ms)} iterations (after 1 warm-up run, not counted)",
             f"Duration:       {total:.2f} ms",
             "Latency:",
             f"   Median:      {statistics.median(ms):.3f} ms",
             f"   Average:     {statistics.fmean(ms):.3f} ms",
             f"   Min:         {min(ms):.3f} ms",
             f"   Max:         {max(ms):.3f} ms",
             f"Throughput:     {len(ms) * 1000 / total if total > 0 else float('inf'):.2f} FPS"]
    return "\n".join(lines)


def _print_distribution(outputs: dict[str, Any]) -> None:
    from ..api.stats import distribution
    from ..base.table_text import render_table

    def at(index: Any) -> str:
        return "[" + ",".join(map(str, index)) + "]"

    rows = []
    for name, arr in outputs.items():
        d = distribution(arr)
        if not d:
            rows.append([name] + ["-"] * 7)
            continue
        rows.append([name, f"{d['mean']:.6g}", f"{d['std']:.6g}", f"{d['median']:.6g}",
                     f"{d['p95']:.6g} at {at(d['p95_at'])}", f"{d['p99']:.6g} at {at(d['p99_at'])}",
                     at(d["min_at"]), at(d["max_at"])])
    click.echo(render_table(["output", "mean", "std", "median", "p95", "p99", "min at", "max at"], rows))


def _print_table(outputs: dict[str, Any]) -> None:
    from ..base.table_text import render_table
    from ..report.tables import TENSOR_HEADER, tensor_rows

    click.echo(render_table(TENSOR_HEADER, tensor_rows(outputs)))


def _print_comparison(report: Any, ref: str, atol: Any, rtol: Any) -> None:
    from ..api.comparison import EXTRA
    from ..base.table_text import render_table

    if report.by_position:
        click.echo(f"no output name is in {ref}: paired by position, "
                   + ", ".join(f"{out!r} with {arr!r}" for out, arr in report.by_position))
    click.echo(render_table(["output", "compare", "max abs err", "max rel err", "mismatches", "worst"], report.rows()))
    tolerances = _tolerances_applied(report)
    outputs = [c for c in report.comparisons if c.status != EXTRA]
    extra = len(report.comparisons) - len(outputs)
    extra_text = f"; {ref} holds {extra} array(s) that are not outputs of this run" if extra else ""
    if report.ok:
        click.echo(f"PASSED: {len(outputs)} output(s) match {ref} ({tolerances})")
    else:
        differ = sum(not c.ok for c in outputs)
        click.echo(f"FAILED: {differ} of {len(outputs)} output(s) differ from {ref} ({tolerances}){extra_text}")
