"""`irexec diff`: the first layer where an OpenVINO device plugin departs from irexec."""

from __future__ import annotations

import sys

import click

from ..errors import IRExecError
from .base import EXIT_FINDINGS, TensorFileHints, cli, fail


@cli.command(cls=TensorFileHints)
@click.argument("model")
@click.option("--device", required=True, metavar="DEVICE",
              help="The OpenVINO device plugin to compare with irexec, e.g. CPU (needs irexec[openvino]).")
@click.option("--config", "configs", multiple=True, metavar="KEY=VALUE|FILE.json",
              help="A property of the plugin, e.g. INFERENCE_PRECISION_HINT=f32 (repeatable), or a JSON file of them "
                   "(default: the plugin's own defaults).")
@click.option("--inputs", "-i", "inputs_path", metavar="IN.npz",
              help="npz of inputs keyed by Parameter name or tensor name (default: random inputs from --seed).")
@click.option("--weights", metavar="FILE.bin", help="The .bin file (default: beside MODEL).")
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
@click.option("--top", type=click.IntRange(min=0), default=10, show_default=True, metavar="N",
              help="Layers listed in the text report (0: all).")
@click.option("--json", "json_path", metavar="OUT.json", help="Write the report as JSON (schemas/diff-report.schema.json).")
@click.option("--html", "html_path", metavar="OUT.html",
              help="Write a self-contained HTML page with an interactive plot (needs irexec[html]).")
@click.option("--fail-on", type=click.Choice(["origin", "never"]), default="never", show_default=True,
              help="origin: exit 1 when an origin is found.")
def diff(model: str, device: str, configs: tuple[str, ...], inputs_path: str | None, weights: str | None, seed: int,
         input_shapes: tuple[str, ...], layers: str, k: int, steps: int, top: int, json_path: str | None,
         html_path: str | None, fail_on: str) -> None:
    """Find the first layer where an OpenVINO device plugin's result departs from irexec.

    Both run the same inputs; layer outputs are compared against each op's stated
    accuracy (docs/accuracy.md), and the ORIGIN is the first layer beyond it while its
    inputs are within theirs (see docs/diff.md).

    \b
    Examples:
      irexec diff model.xml --device CPU
      irexec diff model.xml --device CPU --config INFERENCE_PRECISION_HINT=f32
      irexec diff model.xml --device CPU --layers all --html report.html
      irexec diff llm.xml --device CPU --inputs prefill.npz --steps 8
    """
    if inputs_path and input_shapes:
        raise click.UsageError("--input-shape shapes generated inputs; it cannot be combined with --inputs")
    from ..errors import UsageError
    from .options import parse_input_shapes

    try:
        shapes = parse_input_shapes(input_shapes)
        from .options import parse_device_config

        config = parse_device_config(configs)
    except UsageError as e:
        fail(e)
    try:
        report = _diff(model, weights, device, config, inputs_path, seed, shapes, layers, k, steps)
        if json_path:
            from ..atomic import write_atomically
            from ..diff.render_json import render_json

            write_atomically(json_path, render_json(report))
        if html_path:
            from ..atomic import write_atomically
            from ..diff.render_html import render_html

            write_atomically(html_path, render_html(report))
    except IRExecError as e:
        fail(e)
    from ..diff.render_text import render_text

    click.echo(render_text(report, top))
    if json_path:
        click.echo(f"wrote the JSON report to {json_path}")
    if html_path:
        click.echo(f"wrote the HTML report to {html_path}")
    if fail_on == "origin" and report.origins:
        sys.exit(EXIT_FINDINGS)


def _diff(model: str, weights: str | None, device: str, config: dict[str, str], inputs_path: str | None, seed: int,
          shapes: dict, layers: str, k: int, steps: int):
    from ..diff.core import run_diff
    from ..diff.device import DeviceSide, import_openvino
    from ..diff.reference import ReferenceSide
    from ..diff.steps import greedy_steps
    from ..errors import UsageError
    from ..random_inputs import plan_inputs, random_inputs
    from ..session import Session
    from ..tensorfile import load_npz
    from .paths import require_inputs

    import_openvino()  # before any work: a missing extra is the one error
    require_inputs((model, "model file"), (weights, "weights file"), (inputs_path, "inputs file"))
    session = Session(model, weights)
    if inputs_path:
        feeds = _by_parameter(session, load_npz(inputs_path))
        where = inputs_path
    else:
        feeds = random_inputs(session.model, seed, plans=plan_inputs(session.model, shapes, {}))
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
