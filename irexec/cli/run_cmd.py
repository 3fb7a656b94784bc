"""`irexec run`: execute a model, optionally comparing, dumping and profiling."""

from __future__ import annotations

import sys
from typing import Any

import click

from ..errors import IRExecError
from .base import EXIT_FINDINGS, cli, fail


@cli.command()
@click.argument("model", type=click.Path(dir_okay=False))
@click.option("--inputs", "-i", "inputs_path", type=click.Path(dir_okay=False),
              help="npz of inputs keyed by Parameter name (default: random inputs from --seed).")
@click.option("--output", "-o", "output_path", type=click.Path(dir_okay=False), help="Write the outputs to this npz (atomically).")
@click.option("--weights", type=click.Path(dir_okay=False), help="The .bin file (default: beside MODEL).")
@click.option("--compare", "compare_path", type=click.Path(dir_okay=False), metavar="REF.npz",
              help="Compare the outputs with this npz; a mismatch exits 1.")
@click.option("--atol", multiple=True, metavar="[OUTPUT:]VALUE",
              help="Absolute tolerance for --compare, global or per output (repeatable). Default 0.")
@click.option("--rtol", multiple=True, metavar="[OUTPUT:]VALUE",
              help="Relative tolerance for --compare, global or per output (repeatable). Default 0.")
@click.option("--dump", "dump_dir", type=click.Path(file_okay=False), metavar="DIR",
              help="Write every executed layer's outputs to DIR (one npz per layer plus index.json).")
@click.option("--stop-at", metavar="LAYER", help="Stop after this layer (id or name) and output its tensors.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the random inputs.")
@click.option("--input-shape", "input_shapes", multiple=True, metavar="NAME:DIMS",
              help="Shape of a generated input whose declared dims are not static, e.g. x:1,3,224,224 (repeatable).")
@click.option("--save-inputs", type=click.Path(dir_okay=False), metavar="FILE.npz", help="Write the inputs used to this npz.")
@click.option("--profile", is_flag=True, help="Print a per-layer timing table, slowest first.")
@click.option("--repeat", type=click.IntRange(min=1), default=1, show_default=True,
              help="Run this many times; --profile reports medians.")
@click.option("--max-memory", callback=lambda ctx, param, value: _size(value), metavar="SIZE",
              help="Bytes of tensors a run may hold, e.g. 8GiB (default: $IREXEC_MAX_MEMORY or half the RAM).")
@click.option("--follow-symlinks", is_flag=True, default=None,
              help="Read files through symbolic links that lead out of their folder (default: $IREXEC_FOLLOW_SYMLINKS).")
def run(model: str, inputs_path: str | None, output_path: str | None, weights: str | None, compare_path: str | None,
        atol: tuple[str, ...], rtol: tuple[str, ...], dump_dir: str | None, stop_at: str | None, seed: int,
        input_shapes: tuple[str, ...], save_inputs: str | None, profile: bool, repeat: int, max_memory: int | None,
        follow_symlinks: bool | None) -> None:
    """Run MODEL on the inputs and print a table of its outputs.

    \b
    Example:
      irexec run examples/roll-example-1/model.xml \\
          --inputs examples/roll-example-1/inputs.npz --output out.npz
    \b
    Debugging:
      irexec run model.xml --compare expected.npz --atol 1e-6 --rtol out:1e-3
      irexec run model.xml --dump layers/ --stop-at Gather_7
      irexec run model.xml --seed 3 --input-shape x:2,8 --save-inputs in.npz
      irexec run model.xml --inputs in.npz --profile --repeat 5
    """
    if inputs_path and input_shapes:
        raise click.UsageError("--input-shape shapes generated inputs; it cannot be combined with --inputs")
    if (atol or rtol) and not compare_path:
        raise click.UsageError("--atol and --rtol need --compare REF.npz")

    from ..comparison import compare_outputs, parse_tolerance
    from ..errors import UsageError
    from ..heap import retain_freed_memory
    from ..random_inputs import describe, parse_input_shapes
    from ..session import Session
    from ..tensorfile import load_npz, save_npz

    try:  # malformed option values are usage errors (exit 2), like click's own
        atol_t, rtol_t = parse_tolerance(atol, "--atol"), parse_tolerance(rtol, "--rtol")
        shapes = parse_input_shapes(input_shapes)
        if seed < 0:
            raise UsageError(f"--seed {seed} must be a non-negative integer", code="bad-seed")
    except UsageError as e:
        raise click.UsageError(e.diagnostics[0].format()) from None
    retain_freed_memory()  # this process exists for the run: reuse its pages (see irexec/heap.py)
    try:
        follow = follow_symlinks or None
        reference = load_npz(compare_path, max_memory, follow_symlinks=follow) if compare_path else None
        session = Session(model, weights, max_memory=max_memory, follow_symlinks=follow)
        feeds = load_npz(inputs_path, max_memory, follow_symlinks=follow) if inputs_path else session.random_inputs(seed, shapes)
        if not inputs_path and feeds:
            click.echo(f"random inputs (seed {seed}): {describe(feeds)}")
        if save_inputs:
            save_npz(save_inputs, feeds)  # before running, so a failing run can be reproduced
            click.echo(f"wrote {len(feeds)} input(s) to {save_inputs}")
        result = session.run(feeds, stop_at=stop_at, dump=dump_dir, profile=profile, repeat=repeat,
                             progress=sys.stderr.isatty())
        if output_path:
            save_npz(output_path, result.outputs)
        report = None
        if reference is not None:
            report = compare_outputs(result.outputs, reference, atol_t, rtol_t, reference_name=compare_path)
    except IRExecError as e:
        fail(e)
    for d in result.warnings:
        click.echo(d.format(), err=True)
    if result.stopped_at is not None:
        layer = result.stopped_at
        click.echo(f"stopped at layer {layer.id} {layer.name!r} ({layer.display})")
    _print_table(result.outputs)
    if output_path:
        click.echo(f"wrote {len(result.outputs)} output(s) to {output_path}")
    if dump_dir:
        click.echo(f"dumped layer outputs to {dump_dir} (index.json lists them)")
    if result.profile is not None:
        click.echo(result.profile.render())
    if report is not None:
        _print_comparison(report, compare_path or "", atol_t, rtol_t)
        if not report.ok:
            for d in report.diagnostics():
                click.echo(d.format(), err=True)
            sys.exit(EXIT_FINDINGS)


def _size(value: str | None) -> int | None:
    from ..limits import parse_size

    if value is None:
        return None
    try:
        return parse_size(value)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--max-memory") from None


def _print_table(outputs: dict[str, Any]) -> None:
    from ..report.tables import render_table, tensor_rows

    click.echo(render_table(["output", "dtype", "shape", "min", "max"], tensor_rows(outputs)))


def _print_comparison(report: Any, ref: str, atol: Any, rtol: Any) -> None:
    from ..comparison import format_number as _num
    from ..report.tables import render_table

    click.echo(render_table(["output", "compare", "max abs err", "max rel err", "mismatches", "worst"], report.rows()))
    tolerances = f"atol={_num(atol.default)}, rtol={_num(rtol.default)}"
    if atol.per_output or rtol.per_output:
        tolerances += " (per output: " + ", ".join(
            [f"atol {k}:{_num(v)}" for k, v in atol.per_output.items()] + [f"rtol {k}:{_num(v)}" for k, v in rtol.per_output.items()]) + ")"
    if report.ok:
        click.echo(f"PASSED: {len(report.comparisons)} output(s) match {ref} ({tolerances})")
    else:
        click.echo(f"FAILED: {len(report.failures)} of {len(report.comparisons)} output(s) differ from {ref} ({tolerances})")
