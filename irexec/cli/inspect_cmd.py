"""`irexec inspect`."""

from __future__ import annotations

from collections import Counter

import click

from ..errors import IRExecError
from .base import cli, fail


@cli.command()
@click.argument("model")
@click.option("--dot", "dot_path", metavar="OUT.dot",
              help="Write the layer graph as Graphviz DOT ('-' for stdout instead of the summary).")
@click.option("--svg", "svg_path", metavar="OUT.svg",
              help="Render the layer graph to SVG (needs Graphviz's `dot` on PATH).")
def inspect(model: str, dot_path: str | None, svg_path: str | None) -> None:
    """Summarise MODEL: IR version, layer counts, inputs and outputs.

    \b
    Example:
      irexec inspect examples/gather-example-1/model.xml
      irexec inspect model.xml --dot model.dot --svg model.svg
    """
    from ..execute import output_names
    from ..model import read_model
    from ..naming import tensor_names
    from ..report.tables import render_table
    from .paths import explain_not_xml, require_inputs, require_outputs

    try:
        require_inputs((model, "model file"))
        require_outputs(dot_path, svg_path)
        try:
            m = read_model(model)
        except IRExecError as e:
            e.diagnostics = explain_not_xml(model, e.diagnostics)
            raise
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
            rows.append(["input", p.name, ", ".join(n for n in tensor_names(p) if n != p.name) or "-",
                         op.element_type.name, str(op.shape)])
    names = output_names(m)
    for r in m.results:
        port = r.inputs[0] if r.inputs else None
        dims = "[" + ",".join("?" if d < 0 else str(d) for d in port.dims) + "]" if port else "?"
        et = port.precision.name if port and port.precision else "?"
        key = names.get(r.id, r.name)
        others = [n for n in (port.names if port else ()) if n != key]
        rows.append(["output", key, ", ".join(others) or "-", et, dims])
    click.echo(render_table(["kind", "name", "tensor names", "type", "shape"], rows))
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
