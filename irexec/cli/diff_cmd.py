"""`irexec diff`: the first layer where an OpenVINO device plugin, or a second IR, departs from irexec."""

from __future__ import annotations

import sys

import click

from ..base.errors import IRExecError
from ..base.table_text import one_line
from .base import EXIT_FINDINGS, TensorFileHints, cli, fail
from .run_cmd import _size


@cli.command(cls=TensorFileHints)
@click.argument("model")
@click.argument("other_model", metavar="[B.xml]", required=False)
@click.option("--device", metavar="DEVICE",
              help="The OpenVINO device plugin to compare with irexec, e.g. CPU (needs irexec[openvino]).")
@click.option("--config", "configs", multiple=True, metavar="KEY=VALUE|FILE.json",
              help="A property of the plugin, e.g. INFERENCE_PRECISION_HINT=f32 (repeatable), or a JSON file of them "
                   "(default: the plugin's own defaults).")
@click.option("--inputs", "-i", "inputs_path", metavar="IN.npz",
              help="npz of inputs keyed by Parameter name or tensor name (default: random inputs from --seed).")
@click.option("--weights", metavar="FILE.bin", help="The .bin file (default: beside MODEL).")
@click.option("--inputs-dir", metavar="DIR", help="With B.xml: a data set, one .npz per sample; per-layer figures "
              "are aggregated over the samples.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=1, show_default=True, metavar="N",
              help="With --inputs-dir: samples run on N local processes.")
@click.option("--scheduler", metavar="tcp://HOST:PORT",
              help="With --inputs-dir: run the samples on a Dask distributed cluster (needs irexec[dask]).")
@click.option("--scheduler-timeout", type=click.FloatRange(min=0, min_open=True), default=10.0, show_default=True,
              metavar="SECONDS", help="With --scheduler: how long to wait for the scheduler to answer, for a worker to "
              "join, and with no worker left, before giving up.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Seed of the random inputs.")
@click.option("--input-shape", "input_shapes", multiple=True, metavar="NAME:DIMS",
              help="Shape of a generated input whose declared dims are not static (repeatable).")
@click.option("--layers", type=click.Choice(["bisect", "all"]), default="bisect", show_default=True,
              help="bisect: keep the deployed graph, expose --expose layers at a time and bisect to the first that "
                   "departs; all: expose every layer at once (the plugin then fuses less).")
@click.option("--expose", "k", type=click.IntRange(min=1), default=8, show_default=True, metavar="K",
              help="With --layers bisect: layers exposed per compilation.")
@click.option("--steps", type=click.IntRange(min=0), default=0, show_default=True, metavar="N",
              help="A stateful causal LM: the prefill, then N decode steps fed irexec's greedy token.")
@click.option("--ablate", type=click.IntRange(min=0), default=32, show_default=True, metavar="K",
              help="With B.xml: run A again with each of the top K compressed weights alone replaced by B's, and rank "
                   "them by the outputs' error (0: rank by the layer's own error only).")
@click.option("--top", type=click.IntRange(min=0), default=10, show_default=True, metavar="N",
              help="Layers listed in the text report (0: all).")
@click.option("--json", "json_path", metavar="OUT.json", help="Write the report as JSON (schemas/diff-report.schema.json).")
@click.option("--html", "html_path", metavar="OUT.html",
              help="Write a self-contained HTML page with an interactive plot (needs irexec[html]).")
@click.option("--fail-on", type=click.Choice(["origin", "never"]), default="never", show_default=True,
              help="origin: exit 1 when an origin is found.")
@click.option("--max-memory", callback=lambda ctx, param, value: _size(value), metavar="SIZE",
              help="Bytes of tensors the diff and its runs may hold together, e.g. 8GiB "
                   "(default: $IREXEC_MAX_MEMORY or half the RAM).")
def diff(model: str, other_model: str | None, device: str | None, configs: tuple[str, ...], inputs_path: str | None,
         weights: str | None, inputs_dir: str | None, jobs: int, scheduler: str | None, scheduler_timeout: float, seed: int,
         input_shapes: tuple[str, ...], layers: str, k: int, steps: int, ablate: int, top: int, json_path: str | None,
         html_path: str | None, fail_on: str, max_memory: int | None) -> None:
    """Find the first layer where an OpenVINO device plugin's result, or a second IR's, departs from irexec.

    Both run the same inputs; layer outputs are compared against each op's stated
    accuracy (docs/accuracy.md), and the ORIGIN is the first layer beyond it while its
    inputs are within theirs (see docs/diff.md).

    \b
    Examples:
      irexec diff model.xml --device CPU
      irexec diff model.xml --device CPU --config INFERENCE_PRECISION_HINT=f32
      irexec diff model.xml --device CPU --layers all --html report.html
      irexec diff llm.xml --device CPU --inputs prefill.npz --steps 8
      irexec diff f32.xml int4.xml --inputs sample.npz --json weights.json
      irexec diff f32.xml int4.xml --inputs-dir samples/ -j 2
    """
    if inputs_path and input_shapes:
        raise click.UsageError("--input-shape shapes generated inputs; it cannot be combined with --inputs")
    from ..base.errors import UsageError
    from .options import parse_input_shapes

    try:
        shapes = parse_input_shapes(input_shapes)
        from .options import parse_device_config

        config = parse_device_config(configs)
    except UsageError as e:
        fail(e)
    if (other_model is None) == (device is None):
        fail(UsageError("give either a second IR (irexec diff A.xml B.xml) or --device, not both", code="diff-usage"))
    if other_model is None and (inputs_dir or jobs > 1 or scheduler):
        fail(UsageError("--inputs-dir, -j and --scheduler compare a second IR: irexec diff A.xml B.xml",
                        code="diff-usage"))
    if other_model is not None:
        from .paths import require_inputs

        try:
            require_inputs((model, "model file"), (other_model, "model file"), (weights, "weights file"),
                           (inputs_path, "inputs file"))
        except IRExecError as e:
            fail(e)
    if inputs_dir:
        _dataset(model, other_model, weights, inputs_dir, jobs, scheduler, scheduler_timeout, json_path, top, max_memory)
        return
    try:
        if other_model is not None:
            from ..api.diff.ab import diff_ab

            report = diff_ab(model, other_model, weights, None, inputs_path, seed, shapes, steps, ablate, max_memory)
        else:
            report = _diff(model, weights, str(device), config, inputs_path, seed, shapes, layers, k, steps, max_memory)
        if json_path:
            from ..api.diff.render_json import render_json
            from ..system.atomic import write_atomically

            write_atomically(json_path, render_json(report))
        if html_path:
            from ..api.diff.render_html import render_html
            from ..system.atomic import write_atomically

            write_atomically(html_path, render_html(report))
    except IRExecError as e:
        fail(e)
    from ..api.diff.render_text import render_text

    click.echo(render_text(report, top))
    if other_model is not None:
        from ..api.diff.render_ab import render_ab

        click.echo(render_ab(report, top))
    if json_path:
        click.echo(one_line(f"wrote the JSON report to {json_path}"))
    if html_path:
        click.echo(one_line(f"wrote the HTML report to {html_path}"))
    if fail_on == "origin" and report.origins:
        sys.exit(EXIT_FINDINGS)


def _dataset(model: str, other_model: str | None, weights: str | None, inputs_dir: str, jobs: int,
             scheduler: str | None, scheduler_timeout: float, json_path: str | None, top: int,
             max_memory: int | None) -> None:
    from ..api.diff.ab import diff_dataset
    from ..api.diff.render_dataset import render_dataset

    try:
        summary = diff_dataset(model, str(other_model), weights, None, inputs_dir, jobs, scheduler, scheduler_timeout,
                               max_memory)
        if json_path:
            import json

            from ..system.atomic import write_atomically

            write_atomically(json_path, json.dumps({"format": 1, "model": model, "other": other_model,
                                                    "dataset": summary.as_dict()}, indent=1) + "\n")
    except IRExecError as e:
        fail(e)
    click.echo(render_dataset(summary, top))
    if json_path:
        click.echo(one_line(f"wrote the JSON report to {json_path}"))


def _diff(model: str, weights: str | None, device: str, config: dict[str, str], inputs_path: str | None, seed: int,
          shapes: dict, layers: str, k: int, steps: int, max_memory: int | None):
    from ..api.diff.core import run_diff
    from ..api.diff.device import DeviceSide, import_openvino
    from ..api.diff.reference import ReferenceSide
    from ..api.diff.steps import greedy_steps
    from ..api.inputs import plan_inputs, random_inputs
    from ..api.session import Session
    from ..base.errors import UsageError
    from ..system.tensorfile import load_npz
    from .paths import require_inputs

    import_openvino()  # before any work: a missing extra is the one error
    require_inputs((model, "model file"), (weights, "weights file"), (inputs_path, "inputs file"))
    session = Session(model, weights, max_memory)
    if inputs_path:
        feeds = _by_parameter(session, load_npz(inputs_path, max_memory))
        where = inputs_path
    else:
        feeds = random_inputs(session.model, seed, max_memory=max_memory, plans=plan_inputs(session.model, shapes, {}))
        where = f"random (seed {seed})"
    logits = None
    if steps:
        if not session.variables:
            raise UsageError(f"--steps needs a stateful model; {model} has no ReadValue/Assign variables",
                             code="not-stateful", file=model)
        all_feeds, _, _, logits = greedy_steps(session, feeds, steps)
    else:
        all_feeds = [feeds]
    other = DeviceSide(model, weights, device, config)
    return run_diff(ReferenceSide(session), other, all_feeds, mode=layers, k=k, model=model, inputs=where,
                    config=config, logits=logits)


def _by_parameter(session, feeds):
    """Feeds keyed by Parameter name (an npz may key them by tensor name)."""
    out = {}
    for p in session.model.parameters:
        for name in (p.name, *(n for port in p.outputs for n in port.names)):
            if name in feeds:
                out[p.name] = feeds[name]
                break
    return out
