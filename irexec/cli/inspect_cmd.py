"""`irexec inspect`."""

from __future__ import annotations

from collections import Counter

import click

from ..errors import IRExecError
from .base import cli, fail


@cli.command()
@click.argument("model", type=click.Path(dir_okay=False))
@click.option("--dot", "dot_path", type=click.Path(dir_okay=False), metavar="OUT.dot",
              help="Write the layer graph as Graphviz DOT ('-' for stdout instead of the summary).")
@click.option("--svg", "svg_path", type=click.Path(dir_okay=False), metavar="OUT.svg",
              help="Render the layer graph to SVG (needs Graphviz's `dot` on PATH).")
@click.option("--follow-symlinks", is_flag=True, default=None,
              help="Read files through symbolic links that lead out of their folder (default: $IREXEC_FOLLOW_SYMLINKS).")
def inspect(model: str, dot_path: str | None, svg_path: str | None, follow_symlinks: bool | None) -> None:
    """Summarise MODEL: IR version, layer counts, inputs and outputs.

    \b
    Example:
      irexec inspect examples/gather-example-1/model.xml
      irexec inspect model.xml --dot model.dot --svg model.svg
    """
    from ..execute import output_names
    from ..model import read_model
    from ..report.tables import render_table

    try:
        m = read_model(model, follow_symlinks=follow_symlinks or None)
    except IRExecError as e:
        fail(e)
    if dot_path or svg_path:
        _draw(m, dot_path, svg_path)
        if dot_path == "-":
            return
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


def _draw(m, dot_path: str | None, svg_path: str | None) -> None:  # type: ignore[no-untyped-def]
    """Layers labelled with name, Type-N and output shapes, coloured by op family."""
    from ..dot import render_svg, to_dot, write_dot

    text = to_dot(m)
    try:
        if dot_path == "-":
            click.echo(text, nl=False)
        elif dot_path:
            write_dot(dot_path, text)
            click.echo(f"wrote the graph ({len(m.layers)} layers) to {dot_path}", err=True)
        if svg_path:
            render_svg(text, svg_path)
            click.echo(f"wrote the graph ({len(m.layers)} layers) to {svg_path}", err=True)
    except IRExecError as e:
        fail(e)
