"""The layer graph as Graphviz DOT text, and as SVG through Graphviz's ``dot``.

Each layer is a box labelled with its name, ``Type-N`` and output shapes
(inferred where the check could, else as declared), filled by op family.
Layers irexec cannot execute are drawn dashed and red.  Constants (Consts,
and Converts of constants: the f16 weights OpenVINO writes) are folded into
the label of the layer that reads them unless ``all_nodes`` asks for them.
"""

from __future__ import annotations

import os
import shutil
import subprocess

from ..base.errors import IRExecError
from ..base.shapes import PartialShape, format_dims
from ..checker.model_checker import check_model
from ..ir.records import Layer, Port
from ..system.atomic import cannot_write, write_atomically
from .load import Model

FAMILY_COLOURS = {
    "io": "#e8e8e8",
    "movement": "#cfe2f3",
    "convert": "#fff2cc",
}
_PALETTE = ("#d9ead3", "#f4cccc", "#d9d2e9", "#fce5cd", "#d0e0e3", "#ead1dc")
UNSUPPORTED_COLOUR = "#ff4d4d"


def quote(text: str) -> str:
    """A DOT double-quoted string: backslashes and quotes escaped, newlines as \\n."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + escaped.replace("\r", "").replace("\n", "\\n") + '"'


def family_colour(family: str) -> str:
    if family in FAMILY_COLOURS:
        return FAMILY_COLOURS[family]
    return _PALETTE[sum(map(ord, family)) % len(_PALETTE)]  # stable across runs, unlike hash()


def _declared(port: Port) -> str:
    etype = port.precision.name if port.precision else "?"
    return etype + format_dims(port.dims)


def _output_texts(model: Model, layer: Layer, inferred: dict[tuple[int, int], object]) -> list[str]:
    texts = []
    for port in layer.outputs:
        info = inferred.get((layer.id, port.index))
        shape = getattr(info, "shape", None)
        if isinstance(shape, PartialShape):
            texts.append(f"{info.etype.name}{shape}")  # type: ignore[attr-defined]
        else:
            texts.append(_declared(port))
    return texts


def folded_layers(model: Model) -> set[int]:
    """Const layers, and Convert layers all of whose inputs are folded."""
    folded: set[int] = set()
    order = model.graph.order or sorted(model.layers, key=lambda lid: model.layers[lid].index)
    for lid in order:
        layer = model.layers[lid]
        if layer.type == "Const" or layer.type == "Convert" and layer.inputs and all(
                model.graph.producer.get((lid, port.index), (None,))[0] in folded for port in layer.inputs):
            folded.add(lid)
    return folded


def to_dot(model: Model, all_nodes: bool = False) -> str:
    """The model as a DOT digraph: one node per layer (constants folded into
    their readers' labels unless ``all_nodes``), one edge per connection."""
    inferred = check_model(model).tensors if model.graph.order else {}
    folded = set() if all_nodes else folded_layers(model)
    constants: dict[int, list[str]] = {}  # reader -> a line per folded input
    for (dst, in_index), (src, out_index) in sorted(model.graph.producer.items()):
        if src in folded and dst not in folded:
            text = _output_texts(model, model.layers[src], inferred)[out_index]
            constants.setdefault(dst, []).append(f"const {model.layers[dst].inputs[in_index].id}: {text}")
    lines = [f"digraph {quote(model.doc.name or os.path.basename(model.path))} {{",
             "  rankdir=TB;",
             '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10];',
             '  edge [fontname="Helvetica", fontsize=8];']
    order = model.graph.order or sorted(model.layers, key=lambda lid: model.layers[lid].index)
    for lid in order:
        if lid in folded:
            continue
        layer = model.layers[lid]
        op = model.ops.get(lid)
        label = "\n".join([layer.name, layer.display, *_output_texts(model, layer, inferred), *constants.get(lid, ())])
        if op is None:
            attrs = (f'label={quote(label + chr(10) + "(not executable)")}, style="rounded,filled,dashed", '
                     f'color="{UNSUPPORTED_COLOUR}", fontcolor="{UNSUPPORTED_COLOUR}", fillcolor="#ffffff", penwidth=2')
        else:
            attrs = f'label={quote(label)}, fillcolor="{family_colour(op.family)}"'
        lines.append(f"  n{lid} [{attrs}, tooltip={quote(f'layer {lid}')}];")
    for (dst, in_index), (src, out_index) in sorted(model.graph.producer.items(), key=lambda kv: (kv[1], kv[0])):
        if src in folded:
            continue
        out_port = model.layers[src].outputs[out_index].id
        in_port = model.layers[dst].inputs[in_index].id
        lines.append(f'  n{src} -> n{dst} [taillabel="{out_port}", headlabel="{in_port}"];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_dot(path: str, text: str) -> None:
    try:
        write_atomically(path, text)
    except OSError as e:
        raise cannot_write(path, e) from None


def render_svg(text: str, path: str) -> None:
    """Render DOT text to an SVG file with Graphviz's ``dot`` from PATH."""
    exe = shutil.which("dot")
    if exe is None:
        raise IRExecError("drawing SVG needs Graphviz's dot program, which is not on PATH; install Graphviz "
                          "(e.g. apt install graphviz) or write DOT text and render it elsewhere",
                          code="graphviz-not-found", file=path)
    try:
        proc = subprocess.run([exe, "-Tsvg"], input=text.encode("utf-8"), capture_output=True, timeout=300, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise IRExecError(f"running {exe} failed: {e}", code="graphviz-failed", file=path) from None
    if proc.returncode != 0 or not proc.stdout:
        err = proc.stderr.decode("utf-8", "replace").strip() or "no output"
        raise IRExecError(f"{exe} -Tsvg exited with status {proc.returncode}: {err}", code="graphviz-failed", file=path)
    try:
        write_atomically(path, proc.stdout)
    except OSError as e:
        raise cannot_write(path, e) from None
