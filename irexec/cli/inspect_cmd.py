"""`irexec inspect`."""

from __future__ import annotations

from collections import Counter
from typing import Any

import click

from ..base.errors import ERROR, Diagnostic, IRExecError
from ..base.shapes import format_dims
from .base import cli, fail, machine_output
from .option_groups import PIN_SHAPE_HELP, Modes, input_options, model_options, modes, option, output_options

INSPECT_MODES = Modes(
    decide=lambda p: ("draw",) if p["dot_path"] or p["svg_path"] else ("summary",),
    needs={"draw": "a drawing (--dot OUT.dot or --svg OUT.svg)"},
    named={"draw": "", "summary": "no drawing is asked for"},
    code="option-not-applicable")


@cli.command()
@click.argument("model")
@click.option("--dot", "dot_path", metavar="OUT.dot",
              help="Write the layer graph as Graphviz DOT ('-' for stdout instead of the summary).")
@click.option("--svg", "svg_path", metavar="OUT.svg",
              help="Render the layer graph to SVG (needs Graphviz's `dot` on PATH).")
@option("--all-nodes", is_flag=True, modes=["draw"],
        help="With --dot/--svg: draw Consts and Converts of Consts too (default: folded into their readers' labels).")
@click.option("--shapes", is_flag=True,
              help="List every layer's output ports: inferred shape and type next to the declared ones.")
@input_options(inputs=None, seed=False, input_shape=PIN_SHAPE_HELP + " The inferred shapes follow from them.")
@output_options(formats=(("text", "json"), "text", "Output format of the summary and of --shapes."))
@model_options(weights=None)
@machine_output(lambda kw: kw.get("dot_path") == "-" or kw.get("fmt") == "json")
@modes(INSPECT_MODES)
def inspect(model: str, dot_path: str | None, svg_path: str | None, all_nodes: bool, shapes: bool,
            input_shapes: tuple[str, ...], fmt: str, follow_symlinks: bool | None) -> None:
    """Summarise MODEL: IR version, layer counts, inputs and outputs (declared and
    inferred shapes, flagged where they disagree), and a stateful model's variables.

    \b
    Example:
      irexec inspect examples/gather-example-1/model.xml
      irexec inspect model.xml --dot model.dot --svg model.svg
      irexec inspect model.xml --shapes --format json
      irexec inspect model.xml --format json
      irexec inspect model.xml --input-shape input_ids:1,16
    """
    m = _read(model, dot_path, svg_path, follow_symlinks)
    try:
        pins = _pins(m, input_shapes)
    except IRExecError as e:
        fail(e)
    if dot_path or svg_path:
        # stdout is the drawing's only output, unless DOT, --shapes or JSON go there
        _draw(m, dot_path, svg_path, all_nodes, quiet_stdout=dot_path == "-" or shapes or fmt == "json")
        if dot_path == "-" or not (shapes or fmt == "json"):
            return  # drawing was asked for: where the files went is the whole answer
    if shapes:
        _shapes(m, fmt, pins)
    else:
        _summary(m, model, fmt, pins)


def _read(model: str, dot_path: str | None, svg_path: str | None, follow_symlinks: bool | None) -> Any:
    from ..api.load import read_model
    from .paths import explain_not_xml, require_inputs, require_outputs

    try:
        require_inputs((model, "model file"))
        require_outputs(dot_path, svg_path)
        try:
            return read_model(model, follow_symlinks=follow_symlinks or None)
        except IRExecError as e:
            e.diagnostics = explain_not_xml(model, e.diagnostics)
            raise
    except IRExecError as e:
        fail(e)


def _pins(m: Any, input_shapes: tuple[str, ...]) -> dict[str, Any]:
    """--input-shape by Parameter layer name (a tensor name works too); a name no Parameter has is a usage error."""
    from ..base.errors import UsageError
    from ..model.naming import did_you_mean, parameter_keys
    from .options import parse_input_pins

    given = parse_input_pins(input_shapes)
    pins, used = {}, set()
    for p in m.parameters:
        key = next((k for k in parameter_keys(p) if k in given), None)
        if key is not None:
            pins[p.name] = given[key]
            used.add(key)
    known = [k for p in m.parameters for k in parameter_keys(p)]
    unknown = [n for n in given if n not in used]
    if unknown:
        raise UsageError([Diagnostic("unknown-name", f"--input-shape names {n!r}, which is no Parameter of {m.path}"
                                     f"{did_you_mean(n, known)}", ERROR) for n in unknown])
    return pins


def _inferred(m: Any, pins: dict[str, Any]) -> Any:
    """Shape inference with the pins; a pin that does not fit its Parameter fails (exit 1), as in check."""
    from ..checker.model_checker import check_model

    result = check_model(m, pins)
    misfits = [d for d in result.diagnostics if d.code == "input-shape-mismatch"]
    if misfits:
        fail(IRExecError(misfits))
    return result


def _port(kind: str, name: str, names: list[str], declared_type: str, declared: Any, info: Any) -> dict[str, Any]:
    """An input or output: its names, declared type and shape, the inferred ones, and whether they agree
    (a declared -1 agrees with any dim; a shape the check cannot infer agrees with its declaration)."""
    from ..ir.declared import shape_of_dims

    row: dict[str, Any] = {"kind": kind, "name": name, "tensor_names": names, "type": declared_type,
                           "shape": format_dims(declared)}
    if info is None:
        row.update(inferred_type=None, inferred_shape=None, declared_matches_inferred=True)
        return row
    shape = declared if not isinstance(declared, tuple) else shape_of_dims(declared)
    agree = info.shape.intersect(shape) is not None and declared_type in ("?", "dynamic", info.etype.name)
    row.update(inferred_type=info.etype.name, inferred_shape=str(info.shape), declared_matches_inferred=agree)
    return row


def _ports(m: Any, result: Any) -> list[dict[str, Any]]:
    from ..model.naming import output_names, tensor_names

    rows = []
    for p in m.parameters:
        op = m.ops[p.id]
        if op is not None:
            rows.append(_port("input", p.name, tensor_names(p), op.element_type.name, op.shape,
                              result.tensors.get((p.id, 0))))
    names = output_names(m)
    for r in m.results:
        port = r.inputs[0] if r.inputs else None
        source = m.graph.inputs_of(r.id)[0] if r.inputs else None
        rows.append(_port("output", names.get(r.id, r.name), _names_at(m, source),
                          port.precision.name if port and port.precision else "?", tuple(port.dims) if port else None,
                          result.tensors.get(source) if source is not None else None))
    return rows


def _names_at(m: Any, source: tuple[int, int] | None) -> list[str]:
    """The tensor names of an output port (a Result's input port has none of its own)."""
    if source is None:
        return []
    lid, index = source
    return next((list(p.names) for p in m.layers[lid].outputs if p.index == index), [])


def _summary(m: Any, model: str, fmt: str, pins: dict[str, Any]) -> None:
    result = _inferred(m, pins)
    counts = Counter(layer.display for layer in m.layers.values())
    rows = _ports(m, result)
    variables = [{"variable_id": v.id, "type": v.etype.name, "shape": str(v.shape)} for v in m.variables.values()]
    errors = [d for d in m.diagnostics if d.severity == "error"]
    if fmt == "json":
        import json

        click.echo(json.dumps({
            "file": model, "ir_version": m.doc.ir_version, "layers": len(m.layers), "edges": len(m.doc.edges),
            "ops": dict(sorted(counts.items())),
            "inputs": [{k: v for k, v in r.items() if k != "kind"} for r in rows if r["kind"] == "input"],
            "outputs": [{k: v for k, v in r.items() if k != "kind"} for r in rows if r["kind"] == "output"],
            "variables": variables, "errors": len(errors),
        }, indent=2))
    else:
        _summary_text(m, model, counts, rows, variables)
    differ = [r for r in rows if not r["declared_matches_inferred"]]
    for r in differ:
        click.echo(f"warning: {r['kind']} {r['name']!r}: declared {r['type']}{r['shape']} != inferred "
                   f"{r['inferred_type']}{r['inferred_shape']}", err=True)
    if errors or differ:
        click.echo(f"{len(errors) + len(differ)} error(s): run `irexec check {model}`", err=True)


def _summary_text(m: Any, model: str, counts: Counter, rows: list[dict[str, Any]],
                  variables: list[dict[str, str]]) -> None:
    from ..base.table_text import render_table

    click.echo(f"{model}: IR v{m.doc.ir_version}, {len(m.layers)} layers, {len(m.doc.edges)} edges")
    click.echo(render_table(["op", "count"], [[k, str(v)] for k, v in sorted(counts.items())]))
    click.echo(render_table(["kind", "name", "tensor names", "type", "shape", "inferred"],
                            [[r["kind"], r["name"], ", ".join(r["tensor_names"]) or "-", r["type"], r["shape"],
                              _inferred_text(r)] for r in rows]))
    if variables:
        click.echo(render_table(["variable", "type", "shape"], [[v["variable_id"], v["type"], v["shape"]] for v in variables]))


def _inferred_text(row: dict[str, Any]) -> str:
    if row["inferred_shape"] is None:
        return "(not inferred)"
    text = f"{row['inferred_type']}{row['inferred_shape']}"
    if not row["declared_matches_inferred"]:
        return f"{text} (declared != inferred)"
    return "same" if row["inferred_shape"] == row["shape"] and row["inferred_type"] == row["type"] else text


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


def _port_row(m: Any, result: Any, lid: int, port: Any) -> dict[str, Any]:
    """One output port of ``--shapes``: inferred and declared."""
    layer = m.layers[lid]
    info = result.tensors.get((lid, port.index))
    if m.ops[lid] is None:
        known = "trusted"  # an op irexec does not implement: its declared dims are taken as they are
    elif info is not None and info.is_constant:
        known = "value"
    else:
        known = "bounds" if info is not None and info.bounds() is not None else ""
    return {
        "line": port.line, "layer_id": lid, "layer": layer.name, "op": layer.display, "port": port.id,
        "inferred_type": info.etype.name if info is not None else None,
        "inferred_shape": str(info.shape) if info is not None else None,
        "declared_type": port.precision.name if port.precision else None,
        "declared_shape": format_dims(port.dims), "known": known or None,
    }


def _shapes(m, fmt: str, pins: dict[str, Any]) -> None:
    """What flows through the model: every output port, inferred and declared."""
    import json

    from ..base.table_text import render_table

    result = _inferred(m, pins)
    rows = [_port_row(m, result, lid, port) for lid in m.graph.order or sorted(m.layers) for port in m.layers[lid].outputs]
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
