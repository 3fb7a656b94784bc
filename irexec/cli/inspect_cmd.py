"""`irexec inspect`."""

from __future__ import annotations

from collections import Counter

import click

from ..errors import IRExecError
from .base import cli, fail

@cli.command()
@click.argument("model", type=click.Path(dir_okay=False))
def inspect(model: str) -> None:
    """Summarise MODEL: IR version, layer counts, inputs and outputs.

    \b
    Example:
      irexec inspect examples/gather-example-1/model.xml
    """
    from ..execute import output_names
    from ..model import read_model
    from ..report.tables import render_table

    try:
        m = read_model(model)
    except IRExecError as e:
        fail(e)
    counts = Counter(layer.display for layer in m.layers.values())
    click.echo(f"{model}: IR v{m.doc.ir_version}, {len(m.layers)} layers, {len(m.doc.edges)} edges")
    click.echo(render_table(["op", "count"], [[k, str(v)] for k, v in sorted(counts.items())]))
    rows = []
    for p in m.parameters:
        op = m.ops[p.id]
        if op is not None:
            rows.append(["input", p.name, op.element_type.name, str(op.shape)])
    names = output_names(m)
    for r in m.results:
        port = r.inputs[0] if r.inputs else None
        dims = "[" + ",".join("?" if d < 0 else str(d) for d in port.dims) + "]" if port else "?"
        et = port.precision.name if port and port.precision else "?"
        rows.append(["output", names.get(r.id, r.name), et, dims])
    click.echo(render_table(["kind", "name", "type", "shape"], rows))
    errors = [d for d in m.diagnostics if d.severity == "error"]
    if errors:
        click.echo(f"{len(errors)} error(s): run `irexec check {model}`", err=True)
