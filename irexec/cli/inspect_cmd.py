"""`irexec inspect`."""

from __future__ import annotations

from collections import Counter

import click

from ..base.errors import IRExecError
from ..base.shapes import format_dims
from .base import cli, fail, machine_output


@cli.command()
@click.argument("model")
@click.option("--dot", "dot_path", metavar="OUT.dot",
              help="Write the layer graph as Graphviz DOT ('-' for stdout instead of the summary).")
@click.option("--svg", "svg_path", metavar="OUT.svg",
              help="Render the layer graph to SVG (needs Graphviz's `dot` on PATH).")
@click.option("--all-nodes", is_flag=True,
              help="With --dot/--svg: draw Consts and Converts of Consts too (default: folded into their readers' labels).")
@click.option("--shapes", is_flag=True,
              help="List every layer's output ports: inferred shape and type next to the declared ones.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="Output format of the summary and of --shapes.")
@click.option("--follow-symlinks", is_flag=True, default=None,
              help="Read files through symbolic links that lead out of their folder (default: $IREXEC_FOLLOW_SYMLINKS).")
@machine_output(lambda kw: kw.get("dot_path") == "-" or kw.get("fmt") == "json")
def inspect(model: str, dot_path: str | None, svg_path: str | None, all_nodes: bool, shapes: bool, fmt: str,
            follow_symlinks: bool | None) -> None:
    """Summarise MODEL: IR version, layer counts, inputs and outputs.

    \b
    Example:
      irexec inspect examples/gather-example-1/model.xml
      irexec inspect model.xml --dot model.dot --svg model.svg
      irexec inspect model.xml --shapes --format json
      irexec inspect model.xml --format json
    """
    from ..api.load import read_model
    from ..base.table_text import render_table
    from ..model.naming import output_names, tensor_names
    from .paths import explain_not_xml, require_inputs, require_outputs

    try:
        require_inputs((model, "model file"))
        require_outputs(dot_path, svg_path)
        try:
            m = read_model(model, follow_symlinks=follow_symlinks or None)
        except IRExecError as e:
            e.diagnostics = explain_not_xml(model, e.diagnostics)
            raise
    except IRExecError as e:
        fail(e)
    if dot_path or svg_path:
        # stdout is the drawing's only output, unless DOT, --shapes or JSON go there
        _draw(m, dot_path, svg_path, all_nodes, quiet_stdout=dot_path == "-" or shapes or fmt == "json")
        if dot_path == "-" or not (shapes or fmt == "json"):
            return  # drawing was asked for: where the files went is the whole answer
    if shapes:
        _shapes(m, fmt)
        return
    counts = Counter(layer.display for layer in m.layers.values())
    rows = []
    for p in m.parameters:
        op = m.ops[p.id]
        if op is not None:
            rows.append(["input", p.name, [n for n in tensor_names(p) if n != p.name], op.element_type.name, str(op.shape)])
    names = output_names(m)
    for r in m.results:
        port = r.inputs[0] if r.inputs else None
        dims = format_dims(port.dims) if port else "?"
        et = port.precision.name if port and port.precision else "?"
        key = names.get(r.id, r.name)
        rows.append(["output", key, [n for n in (port.names if port else ()) if n != key], et, dims])
    errors = [d for d in m.diagnostics if d.severity == "error"]
    if fmt == "json":
        import json

        click.echo(json.dumps({
            "file": model, "ir_version": m.doc.ir_version, "layers": len(m.layers), "edges": len(m.doc.edges),
            "ops": dict(sorted(counts.items())),
            "inputs": [{"name": n, "tensor_names": t, "type": e, "shape": s} for kind, n, t, e, s in rows if kind == "input"],
            "outputs": [{"name": n, "tensor_names": t, "type": e, "shape": s} for kind, n, t, e, s in rows if kind == "output"],
            "errors": len(errors),
        }, indent=2))
    else:
        click.echo(f"{model}: IR v{m.doc.ir_version}, {len(m.layers)} layers, {len(m.doc.edges)} edges")
        click.echo(render_table(["op", "count"], [[k, str(v)] for k, v in sorted(counts.items())]))
        click.echo(render_table(["kind", "name", "tensor names", "type", "shape"],
                                [[k, n, ", ".join(t) or "-", e, s] for k, n, t, e, s in rows]))
    if errors:
        click.echo(f"{len(errors)} error(s): run `irexec check {model}`", err=True)


def _draw(m, dot_path: str | None, svg_path: str | None, all_nodes: bool, quiet_stdout: bool) -> None:
    """Layers labelled with name, Type-N and output shapes, coloured by op family."""
    from ..api.dot import folded_layers, render_svg, to_dot, write_dot

    text = to_dot(m, all_nodes=all_nodes)
    folded = 0 if all_nodes else len(folded_layers(m))
    what = f"{len(m.layers) - folded} layers" + (f"; {folded} constants folded into their readers, --all-nodes draws them"
                                                 if folded else "")
    try:
        if dot_path == "-":
            click.echo(text, nl=False)
        elif dot_path:
            write_dot(dot_path, text)
            click.echo(f"wrote the graph ({what}) to {dot_path}", err=quiet_stdout)
        if svg_path:
            render_svg(text, svg_path)
            click.echo(f"wrote the graph ({what}) to {svg_path}", err=quiet_stdout)
    except IRExecError as e:
        fail(e)


def _shapes(m, fmt: str) -> None:
    """What flows through the model: every output port, inferred and declared."""
    import json

    from ..base.table_text import render_table
    from ..checker.model_checker import check_model

    result = check_model(m)
    rows = []
    for lid in m.graph.order or sorted(m.layers):
        layer = m.layers[lid]
        for port in layer.outputs:
            info = result.tensors.get((lid, port.index))
            if m.ops[lid] is None:
                known = "trusted"  # an op irexec does not implement: its declared dims are taken as they are
            elif info is not None and info.is_constant:
                known = "value"
            else:
                known = "bounds" if info is not None and info.bounds() is not None else ""
            rows.append({
                "line": port.line, "layer_id": lid, "layer": layer.name, "op": layer.display, "port": port.id,
                "inferred_type": info.etype.name if info is not None else None,
                "inferred_shape": str(info.shape) if info is not None else None,
                "declared_type": port.precision.name if port.precision else None,
                "declared_shape": format_dims(port.dims), "known": known or None,
            })
    if fmt == "json":
        click.echo(json.dumps({"file": m.path, "ports": rows}, indent=2))
        return
    table = [[str(r["line"]), str(r["layer_id"]), r["layer"], r["op"], str(r["port"]),
              f"{r['inferred_type']}{r['inferred_shape']}" if r["inferred_shape"] else "(not inferred)",
              f"{r['declared_type'] or '?'}{r['declared_shape']}", r["known"] or ""] for r in rows]
    click.echo(render_table(["line", "id", "layer", "op", "port", "inferred", "declared", "known"], table))
    errors = [d for d in result.diagnostics if d.severity == "error"]
    if errors:
        click.echo(f"{len(errors)} error(s): run `irexec check {m.path}`", err=True)
