"""The bodies of sub-graph ops (TensorIterator, Loop, If) and what ties them to
the op: the port map, the back edges, and the services that check and run them.

The reader reads a body once, with the layer (``Layer.bodies``, ``Layer.port_maps``);
the binding layer binds it like the main graph (so its findings point at lines
inside the body) and hands the op a ``Body``: the bound body model, the port
map read here, and the ``BodyServices`` of the engines.  An op never imports
the checker or the executor: it asks its body to ``check`` or ``run`` itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ...base.errors import ERROR, WARNING, Diagnostic
from .base import Op, TensorInfo

if TYPE_CHECKING:  # the reader (and lxml) is loaded by whoever reads a model, not by `irexec ops`
    from ...ir.records import IRDocument, Layer, MapEntry, PortMap


class BodyModel(Protocol):
    """What an op reads of its bound body (``binding.Model`` is one)."""

    path: str
    ops: dict[int, Op | None]
    diagnostics: list[Diagnostic]
    graph: Any  # .producer: (layer id, input index) -> (layer id, output index)

    @property
    def layers(self) -> dict[int, Layer]: ...


# model, tensors fed to body Parameters -> every inferred tensor by (layer id, output index), findings
BodyChecker = Callable[[Any, Mapping[int, TensorInfo]], tuple[Mapping[tuple[int, int], TensorInfo], list[Diagnostic]]]
# model, arrays fed to body Parameters, Result layer ids -> each Result's array
BodyRunner = Callable[[Any, Mapping[int, np.ndarray], Sequence[int]], Mapping[int, np.ndarray]]


@dataclass(frozen=True)
class BodyServices:
    """The body checker and body runner, given by the layer that loads a model."""

    check: BodyChecker
    run: BodyRunner


@dataclass(frozen=True)
class BodyInput:
    """One ``<port_map><input>``: outer input ``index`` feeds body Parameter
    ``param``; sliced along ``axis`` when it has one; ``merged`` is the body
    Result a back edge feeds into the Parameter from the second iteration on."""

    index: int
    param: int
    axis: int | None = None
    start: int = 0
    end: int = -1
    stride: int = 1
    part_size: int = 1
    merged: int | None = None


@dataclass(frozen=True)
class BodyOutput:
    """One ``<port_map><output>``: body Result ``result`` gives outer output
    ``index``, its last value or, with ``axis``, every iteration's concatenated."""

    index: int
    result: int
    axis: int | None = None
    stride: int = 1
    part_size: int = 1


@dataclass
class Body:
    model: BodyModel
    services: BodyServices
    inputs: list[BodyInput] = field(default_factory=list)
    outputs: list[BodyOutput] = field(default_factory=list)
    current_iteration: int | None = None  # body Parameter fed the iteration number
    condition: int | None = None  # body Result deciding whether to go on

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.model.diagnostics if d.severity == ERROR]

    def check(self, seeds: Mapping[int, TensorInfo]) -> tuple[Mapping[tuple[int, int], TensorInfo], list[Diagnostic]]:
        return self.services.check(self.model, seeds)

    def run(self, feeds: Mapping[int, np.ndarray], targets: Sequence[int]) -> Mapping[int, np.ndarray]:
        return self.services.run(self.model, feeds, targets)


# ------------------------------------------------------------ reading bodies

_MAP_OF = {"body": "port_map", "then_body": "then_port_map", "else_body": "else_port_map"}


def read_bodies(path: str, body_tags: Sequence[str], layer: Layer, bind: Callable[[IRDocument], BodyModel],
                services: BodyServices) -> list[Body]:
    """The op's bodies, in ``body_tags`` order, from what the reader found in the
    layer; a missing body is an empty one with a ``missing-element`` finding."""
    from ...ir.records import IRDocument

    where: dict[str, Any] = {"layer_id": layer.id, "layer_name": layer.name, "op": layer.display}
    found = layer.bodies or {}
    maps = layer.port_maps or {}
    bodies = []
    for tag in body_tags:
        doc = found.get(tag)
        if doc is None:
            missing = Diagnostic("missing-element", f"{layer.display} layer has no <{tag}>", ERROR, file=path, line=layer.line,
                                 **where)
            doc = IRDocument(path, 11, tag, [], [], [missing])
        body = Body(bind(doc), services)
        _read_port_map(body, maps.get(_MAP_OF[tag]), maps.get("back_edges") if tag == "body" else None, layer, where)
        bodies.append(body)
    return bodies


def _int_attr(entry: MapEntry, name: str, default: int | None, problems: list[str]) -> int | None:
    raw = entry.attrs.get(name)
    if raw is None:
        if default is None:
            problems.append(f"<{entry.tag}> at line {entry.line} has no {name}")
        return default
    text = raw.strip()
    if not (text.lstrip("-").isascii() and text.lstrip("-").isdigit() and len(text) <= 19):
        problems.append(f"<{entry.tag}> at line {entry.line}: {name}={raw!r} is not an integer")
        return default
    return int(text)


def _read_port_map(body: Body, port_map: PortMap | None, back_edges: PortMap | None, layer: Layer,
                   where: dict[str, Any]) -> None:
    """Port map and back edges -> BodyInput/BodyOutput records; every problem
    becomes a ``bad-port-map`` finding of the body (so check reports it and a
    run refuses it)."""
    model = body.model
    problems: list[tuple[str, int | None]] = []
    line = port_map.line if port_map is not None else layer.line
    if port_map is None:
        problems.append((f"{layer.display} layer has no port map", line))
    merged: dict[int, int] = {}
    if back_edges is not None:
        for edge in back_edges.entries:
            if edge.tag != "edge":
                continue
            msgs: list[str] = []
            src, dst = _int_attr(edge, "from-layer", None, msgs), _int_attr(edge, "to-layer", None, msgs)
            if src is not None and dst is not None:
                if not _is(model, src, "Result") or not _is(model, dst, "Parameter"):
                    msgs.append(f"back edge {src} -> {dst} must lead from a body Result to a body Parameter")
                else:
                    merged[dst] = src
            problems.extend((m, edge.line) for m in msgs)
    # OpenVINO's reader (XmlDeserializer::parse_input/output_description): the
    # entries are taken in the order of their external_port_id, the first of
    # each id wins; an input's id is the position of the layer input it reads,
    # while the outputs with an id >= 0 become the layer's outputs in the order
    # of their ids, whatever the ids are (If-8 spec Example 1 maps port 4 with
    # external_port_id="0")
    seen: dict[tuple[str, int], MapEntry] = {}
    ignored: list[tuple[str, int | None]] = []
    outputs: list[tuple[int, BodyOutput, int]] = []
    for child in port_map.entries if port_map is not None else ():
        if child.tag not in ("input", "output"):
            continue
        msgs = []
        ext = _int_attr(child, "external_port_id", None, msgs)
        internal = _int_attr(child, "internal_layer_id", None, msgs)
        axis = _int_attr(child, "axis", -(1 << 62), msgs)
        start, end = _int_attr(child, "start", 0, msgs), _int_attr(child, "end", -1, msgs)
        stride, part = _int_attr(child, "stride", 1, msgs), _int_attr(child, "part_size", 1, msgs)
        purpose = child.attrs.get("purpose", "")
        if ext is None or internal is None:
            problems.extend((m, child.line) for m in msgs)
            continue
        has_axis = axis != -(1 << 62)
        if has_axis and (stride == 0 or (part or 0) <= 0):
            msgs.append(f"stride={stride} and part_size={part}: the stride must be non-zero and the part size positive")
        first = seen.setdefault((child.tag, ext), child)
        if first is not child and (ext >= 0 or child.tag == "output"):
            # OpenVINO keeps the first entry of an id and drops this one without a word
            ignored.append((f"external_port_id={ext} is mapped twice (first at line {first.line}): this entry is "
                            "ignored, as OpenVINO ignores it", child.line))
            continue
        if child.tag == "input":
            if not _is(model, internal, "Parameter"):
                msgs.append(f"internal_layer_id={internal} is not a Parameter of the body")
            elif purpose == "current_iteration" or ext < 0:
                body.current_iteration = internal
            elif ext >= len(layer.inputs):
                msgs.append(f"external_port_id={ext} is not an input of the layer: it names the input's position, "
                            f"and the layer has {len(layer.inputs)} input(s)")
            else:
                body.inputs.append(BodyInput(ext, internal, axis if has_axis else None, start or 0,
                                             end if end is not None else -1, stride or 1, part or 1,
                                             merged.get(internal)))
        else:
            if not _is(model, internal, "Result"):
                msgs.append(f"internal_layer_id={internal} is not a Result of the body")
            else:
                if purpose == "execution_condition" or (ext < 0 and purpose == "" and layer.type.lower() == "loop"
                                                        and body.condition is None):
                    body.condition = internal
                if ext >= 0:
                    outputs.append((ext, BodyOutput(-1, internal, axis if has_axis else None, stride or 1, part or 1),
                                    child.line))
        problems.extend((m, child.line) for m in msgs)
    for index, (ext, out, at) in enumerate(sorted(outputs, key=lambda o: o[0])):
        if index >= len(layer.outputs):
            problems.append((f"external_port_id={ext} maps output number {index + 1} of the body, but the layer declares "
                             f"{len(layer.outputs)} output port(s)", at))
        else:
            body.outputs.append(BodyOutput(index, out.result, out.axis, out.stride, out.part_size))
    fed = {i.param for i in body.inputs}
    for dst in merged:
        if dst not in fed and dst != body.current_iteration:
            problems.append((f"back edge to body Parameter {dst}, which no input of the port map feeds", line))
    for msg, at_line in problems:
        model.diagnostics.append(Diagnostic("bad-port-map", msg, ERROR, file=model.path, line=at_line, **where))
    for msg, at_line in ignored:
        model.diagnostics.append(Diagnostic("ignored-port-map-entry", msg, WARNING, file=model.path, line=at_line, **where))


def _is(model: BodyModel, lid: int, op_type: str) -> bool:
    layer = model.layers.get(lid)
    return layer is not None and layer.type.lower() == op_type.lower()
