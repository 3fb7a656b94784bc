"""`irexec run`."""

from __future__ import annotations

from typing import Any

import click

from ..errors import IRExecError
from .base import cli, fail

@cli.command()
@click.argument("model", type=click.Path(dir_okay=False))
@click.option("--inputs", "-i", "inputs_path", type=click.Path(dir_okay=False), help="npz of inputs keyed by Parameter name.")
@click.option("--output", "-o", "output_path", type=click.Path(dir_okay=False), help="Write the outputs to this npz (atomically).")
@click.option("--weights", type=click.Path(dir_okay=False), help="The .bin file (default: beside MODEL).")
def run(model: str, inputs_path: str | None, output_path: str | None, weights: str | None) -> None:
    """Run MODEL on the inputs and print a table of its outputs.

    \b
    Example:
      irexec run examples/roll-example-1/model.xml \\
          --inputs examples/roll-example-1/inputs.npz --output out.npz
    """
    from ..execute import run_model
    from ..model import load
    from ..tensorfile import load_npz, save_npz

    try:
        m = load(model, weights)
        feeds = load_npz(inputs_path) if inputs_path else {}
        result = run_model(m, feeds)
        if output_path:
            save_npz(output_path, result.outputs)
    except IRExecError as e:
        fail(e)
    _print_table(result.outputs)
    if output_path:
        click.echo(f"wrote {len(result.outputs)} output(s) to {output_path}")


def _print_table(outputs: dict[str, Any]) -> None:
    from ..report.tables import tensor_rows, render_table

    click.echo(render_table(["output", "dtype", "shape", "min", "max"], tensor_rows(outputs)))
