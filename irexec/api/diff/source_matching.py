"""Which IR layer computes which tensor of a source model (``irexec diff SOURCE MODEL.xml``).

A converter keeps some of the source's tensor names on the IR's output ports (OpenVINO's
ONNX frontend keeps the name of every node output that survives as one tensor; it
drops those inside an op it fuses, such as a Conv folded with its BatchNormalization or
a MatMul-Softmax-MatMul chain turned into ScaledDotProductAttention).  Two passes:

1. **tensor names**: an IR output port that carries a source tensor's name, of the
   same number of elements;
2. **structure**: a source node whose activation inputs are all matched, and the one
   unmatched IR layer of a corresponding type fed by exactly their counterparts; not a node
   with a weight (more than one constant element), whose IR layer may carry what the
   converter folded into that weight.

An IR layer left unmatched is part of the conversion of the source node whose tensor the
nearest matched layer after it gives (it is re-run with that layer, as one group); a
source tensor left unmatched is listed with why.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...ir.records import Layer
from .core import run_diff
from .matching import Matching
from .reference import ReferenceSide
from .report import DiffReport

Port = tuple[str, int]


@dataclass(frozen=True)
class SourceNode:
    """One node of the source graph, as the matching sees it."""

    name: str
    op_type: str
    inputs: tuple[str, ...]  # tensor names ("" for an omitted optional input)
    outputs: tuple[str, ...]


@dataclass
class SourceGraph:
    nodes: list[SourceNode]
    inputs: list[str]  # the graph's inputs (not its initializers)
    constants: set[str]  # initializers and constant-node outputs
    sizes: Mapping[str, int] = field(default_factory=dict)  # tensor name -> elements, where static


# A source op type -> the IR op types its conversion ends in (for the structural pass).
IR_TYPES: dict[str, tuple[str, ...]] = {
    "Relu": ("ReLU",), "Sigmoid": ("Sigmoid",), "Tanh": ("Tanh",), "Gelu": ("Gelu",), "Erf": ("Erf",),
    "Exp": ("Exp",), "Log": ("Log",), "Sqrt": ("Sqrt",), "Abs": ("Abs",), "Neg": ("Negative",),
    "Add": ("Add",), "Sub": ("Subtract",), "Mul": ("Multiply",), "Div": ("Divide",), "Pow": ("Power",),
    "MatMul": ("MatMul",), "Gemm": ("MatMul", "Add"), "Conv": ("Convolution", "GroupConvolution", "Add"),
    "Softmax": ("SoftMax", "Softmax"), "Clip": ("Clamp",), "Resize": ("Interpolate",),
    "MaxPool": ("MaxPool",), "AveragePool": ("AvgPool",), "GlobalAveragePool": ("ReduceMean",),
    "Transpose": ("Transpose",), "Reshape": ("Reshape",), "Flatten": ("Reshape",), "Concat": ("Concat",),
    "LayerNormalization": ("Add", "Multiply", "MVN"), "BatchNormalization": ("Add", "Multiply"),
    "HardSigmoid": ("HSigmoid", "HardSigmoid"), "HardSwish": ("HSwish",), "LeakyRelu": ("PRelu",),
}


def _varying(side: ReferenceSide) -> list[Layer]:
    return [layer for layer in side.candidates if layer.id in side.varying]


def _elements(layer: Layer, port: int) -> int | None:
    dims = layer.outputs[port].dims if port < len(layer.outputs) else None
    if dims is None or any(d < 0 for d in dims):
        return None
    n = 1
    for d in dims:
        n *= d
    return n


def match_source(ir: ReferenceSide, source: SourceGraph) -> Matching:
    """A matching whose "a" side is the IR's layers and "b" side the source's tensor names
    (``ports`` maps an IR port to (source tensor name, 0))."""
    m = Matching()
    produced = {t: node for node in source.nodes for t in node.outputs if t}
    taken: set[str] = set()

    def pair(layer: Layer, port: int, tensor: str, how: str) -> None:
        m.ports[(layer.name, port)] = (tensor, 0)
        if layer.name not in m.layer:
            m.layer[layer.name], m.how[layer.name] = tensor, how
        taken.add(tensor)

    for layer in _varying(ir):
        for port, out in enumerate(layer.outputs):
            tensor = next((n for n in out.names if n in produced and n not in taken), None)
            if tensor is None:
                continue
            size, mine = source.sizes.get(tensor), _elements(layer, port)
            if size is not None and mine is not None and size != mine:
                m.unmatched_b[tensor] = f"the IR's tensor of that name ({layer.name}) has {mine} elements, not {size}"
                continue
            pair(layer, port, tensor, "tensor name")
    # structure: a source node fed by matched tensors (or the graph's inputs) and the one unmatched IR layer
    # of a corresponding type fed by their counterparts
    at: dict[str, Port] = {tensor: port for port, (tensor, _) in m.ports.items()}
    for name in source.inputs:
        if name in ir.by_name and ir.by_name[name].type == "Parameter":
            at[name] = (name, 0)
    fed_by: dict[tuple[Port, ...], list[Layer]] = {}
    for layer in _varying(ir):
        if layer.name not in m.layer:
            sources = tuple(sorted((p.name, i) for src in ir.producers(layer) if src is not None
                                   for p, i in [src] if p.id in ir.varying))
            fed_by.setdefault(sources, []).append(layer)
    for node in source.nodes:
        outs = [t for t in node.outputs if t and t not in taken]
        acts = [t for t in node.inputs if t and t not in source.constants]
        if len(outs) != 1 or not acts or any(t not in at for t in acts):
            continue
        if any(t in source.constants and source.sizes.get(t, 2) > 1 for t in node.inputs if t):
            continue  # a weighted node: the converter may fold what follows into its weights (a Conv with its BatchNorm)
        types = IR_TYPES.get(node.op_type, ())
        options = [x for x in fed_by.get(tuple(sorted({at[t] for t in acts})), []) if x.type in types
                   and x.name not in m.layer]
        if len(options) == 1:
            pair(options[0], 0, outs[0], "structure")
            at[outs[0]] = (options[0].name, 0)
    for node in source.nodes:
        for t in node.outputs:
            if t and t not in taken and t not in m.unmatched_b:
                m.unmatched_b[t] = (f"{node.op_type} {node.name!r}: no IR tensor keeps its name and no IR layer "
                                    "matches it by structure (fused into a larger op or folded by the converter)")
    _explain_unmatched_ir(ir, m, produced)
    return m


def _explain_unmatched_ir(ir: ReferenceSide, m: Matching, produced: Mapping[str, SourceNode]) -> None:
    """Each unmatched IR layer: the conversion of which source node it is part of (the first matched
    layer after it), or why it has no counterpart at all."""
    for layer in _varying(ir):
        if layer.name in m.layer:
            continue
        after = _first_matched_after(ir, layer, m)
        if after is None:
            m.unmatched_a[layer.name] = f"{layer.type}: no source tensor carries its output, nor any after it"
            continue
        node = produced.get(m.layer[after])
        what = f"{node.op_type} {node.name!r}" if node is not None else repr(m.layer[after])
        m.unmatched_a[layer.name] = (f"{layer.type}: inside the conversion of the source's {what} (no tensor name "
                                     f"kept; compared as part of {after})")


def _first_matched_after(ir: ReferenceSide, layer: Layer, m: Matching) -> str | None:
    frontier, seen = [layer.id], {layer.id}
    for _ in range(64):
        nxt = []
        for lid in frontier:
            for port in range(len(ir.model.layers[lid].outputs)):
                for dst, _ in ir.model.graph.consumers.get((lid, port), ()):
                    if dst in seen:
                        continue
                    seen.add(dst)
                    name = ir.model.layers[dst].name
                    if name in m.layer:
                        return name
                    nxt.append(dst)
        if not nxt:
            return None
        frontier = sorted(nxt, key=lambda lid: ir.position[lid])
    return None


def feed_names(ir: ReferenceSide, source_inputs: Sequence[str]) -> dict[str, str]:
    """IR Parameter name -> the source input it feeds (by name, then by tensor name)."""
    out = {}
    for p in ir.model.parameters:
        names = (p.name, *(n for port in p.outputs for n in port.names))
        given = next((n for n in names if n in source_inputs), None)
        if given is not None:
            out[p.name] = given
    return out


__all__ = ["IR_TYPES", "SourceGraph", "SourceNode", "feed_names", "match_source"]


def exposed_source_values(expose: Sequence[Port], matching: Matching, values: Mapping[str, np.ndarray],
                          fits: Callable[[str, int, np.ndarray], bool] | None = None) -> dict[str, list[np.ndarray | None]]:
    """Per exposed IR layer, by port, the source tensor matched to it (None where there is none,
    or where ``fits`` refuses it)."""
    layers: dict[str, list[np.ndarray | None]] = {}
    for name, port in expose:
        slots = layers.setdefault(name, [])
        slots.extend([None] * (port + 1 - len(slots)))
        tensor = matching.ports.get((name, port))
        arr = None if tensor is None else values.get(tensor[0])
        slots[port] = arr if arr is not None and (fits is None or fits(name, port, arr)) else None
    return layers


def diff_against_source(ref: ReferenceSide, side: Any, feeds: Mapping[str, np.ndarray], *, model: str, where: str,
                        label: str, matched_to: str, kernels: str, slack: float, extract: str | None = None
                        ) -> DiffReport:
    """The IR against its source on one set of inputs, with the source's tolerance (its CPU
    ``kernels`` may depart by up to ``slack`` units) and a first note counting the matching;
    ``extract``: a folder to write the first origin's reproducer to (source_extract.py)."""
    report = run_diff(ref, side, [feeds], mode="all", model=model, inputs=where)
    report.matching = side.matching.as_dict()
    report.tolerance = (f"{side.description} is the reference; its CPU kernels ({kernels}) may depart from the exact "
                        f"result by up to {slack:g} units beyond each op's stated accuracy: counted as within")
    counts = side.matching.counts()
    report.notes.insert(0, f"source: {label}; {len(side.matching.layer)} IR layer(s) matched{matched_to} ("
                        + ", ".join(f"{n} by {how}" for how, n in counts.items())
                        + f"), {len(side.matching.unmatched_a)} IR layer(s) and {len(side.matching.unmatched_b)} "
                        "source tensor(s) without counterpart")
    if extract:
        from .source_extract import extract_source_reproducer, rerun_command

        written = extract_source_reproducer(report, ref, side, feeds, extract,
                                            rerun_command(label, model, where, extract))
        report.notes.append(f"the reproducer of {report.finding.name} is in {written}" if written and report.finding
                            else f"no origin: nothing was extracted to {extract}")
    return report
