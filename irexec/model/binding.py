"""A document bound to ops: the ``Model`` record, one op per layer, the graph,
and the bodies of sub-graph ops.

It sits between the ops and the two engines: the checker and the executor
take a ``Model``, and a sub-graph op is given their body checker and body
runner here (``BodyServices``), by the loader in ``model.py``, so no op
imports either engine.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

from ..base.errors import ERROR, WARNING, Diagnostic
from ..ir.records import IRDocument, Layer
from ..ir.weights import Weights
from ..ops.control.subgraph import SubgraphOp
from ..ops.framework.base import Op
from ..ops.framework.body import BodyServices, read_bodies
from ..ops.framework.registry import core_accepts, resolve, unknown_version_reason, unsupported_reason
from ..ops.io import Parameter1, Result1
from ..ops.state import Variable
from .graph import Graph, build_graph

# Findings that a check reports as warnings (the layer is trusted as declared)
# but that make a run of that layer impossible: a run refuses them only when a
# requested output depends on the layer.
BLOCKS_RUN = frozenset({"unsupported-op", "unsupported-element-type"})


@dataclass(eq=False)  # compared and hashed by identity: the executor keys its per-model cache on it
class Model:
    path: str
    doc: IRDocument
    weights: Weights
    graph: Graph
    ops: dict[int, Op | None]  # None: layer that irexec cannot execute
    diagnostics: list[Diagnostic] = field(default_factory=list)
    # a stateful model's variables by variable_id (see irexec/model/variables.py)
    variables: dict[str, Variable] = field(default_factory=dict)
    # the legacy <pre-process> mean values OpenVINO subtracts from an input as it reads the model
    pre_process: Any = field(default=None, repr=False)
    # a sub-graph body of an IR v10 model: its declared dims are legacy (see checker.mismatch_finding)
    legacy_body: bool = field(default=False, repr=False)
    _by_class: dict[type, tuple[Layer, ...]] = field(default_factory=dict, init=False, repr=False)

    @property
    def layers(self) -> dict[int, Layer]:
        return self.graph.layers

    @property
    def parameters(self) -> list[Layer]:
        return self._layers_of(Parameter1)

    @property
    def results(self) -> list[Layer]:
        return self._layers_of(Result1)

    def _layers_of(self, cls: type[Op]) -> list[Layer]:
        """Layers of one op class (also those whose attributes are bad), in document order;
        found once per model (a run asks for the Results every time)."""
        found = self._by_class.get(cls)
        if found is None:
            found = self._by_class[cls] = tuple(sorted((l for l in self.layers.values() if resolve(l.type, l.version) is cls),
                                                       key=lambda l: l.index))
        return list(found)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == ERROR]

    def find_layer(self, key: str) -> Layer | None:
        """A layer by id or by name."""
        if key.isdigit() and len(key) <= 20 and int(key) in self.layers:  # no int() of 5000 digits
            return self.layers[int(key)]
        for layer in self.layers.values():
            if layer.name == key:
                return layer
        return None

    def where(self, layer: Layer, port: int | None = None, port_kind: str | None = None, line: int | None = None) -> dict:
        return {
            "file": self.path,
            "line": line or layer.line,
            "layer_id": layer.id,
            "layer_name": layer.name,
            "op": layer.display,
            "port": port,
            "port_kind": port_kind,
        }

    def locate(self, diags: list[Diagnostic], layer: Layer) -> list[Diagnostic]:
        """Diagnostics an op raised, located at ``layer``.  Ops speak of input
        *indices*; the file (and so the user) speaks of XML port ids and lines."""
        fixed = []
        for d in diags:
            if d.port is not None and d.port_kind == "input" and d.port < len(layer.inputs):
                d = replace(d, port=layer.inputs[d.port].id, line=d.line or layer.inputs[d.port].line)
            fixed.append(d.located(**self.where(layer)))
        return fixed

    def close(self) -> None:
        self.weights.close()


def _role(layer: Layer) -> str:
    cls = resolve(layer.type, layer.version)
    if getattr(cls, "sink", False):
        return "sink"
    return "result" if cls is Result1 else "parameter" if cls is Parameter1 else ""


def _document_roles() -> Callable[[Layer], str]:
    """``_role``, asked of the registry once per (type, version) of one document:
    the graph asks it of every layer in several passes."""
    known: dict[tuple[str, str], str] = {}

    def role(layer: Layer) -> str:
        key = (layer.type, layer.version)
        found = known.get(key)
        if found is None:
            found = known[key] = _role(layer)
        return found
    return role


def bind_model(path: str, doc: IRDocument, weights: Weights, services: BodyServices) -> Model:
    """The document's graph with an op per layer; every sub-graph op gets its
    bodies, bound the same way (recursively) and served by ``services``."""
    diags = list(doc.diagnostics)
    graph, graph_diags = build_graph(doc, _document_roles())
    ops: dict[int, Op | None] = {}
    for layer in graph.layers.values():
        ops[layer.id] = _bind_op(path, layer, weights, diags)
    bind = _body_binder(path, weights, services, doc.ir_version)
    for lid, op in ops.items():
        if isinstance(op, SubgraphOp):
            op.bodies = read_bodies(path, op.body_tags, graph.layers[lid], bind, services)
    diags.extend(graph_diags)
    _check_port_counts(path, graph, ops, diags)
    diags.sort(key=lambda d: (d.line or 0))
    return Model(path, doc, weights, graph, ops, diags)


def _body_binder(path: str, weights: Weights, services: BodyServices, ir_version: int) -> Callable[[IRDocument], Model]:
    """Binds a body as its document's IR version (a body of IR v10 has legacy declared dims)."""
    def bind(doc: IRDocument) -> Model:
        body = bind_model(path, replace(doc, ir_version=ir_version), weights, services)
        body.legacy_body = ir_version == 10  # see checker.mismatch_finding
        return body
    return bind


def _bind_op(path: str, layer: Layer, weights: Weights, diags: list[Diagnostic]) -> Op | None:
    cls = resolve(layer.type, layer.version)
    if cls is None and core_accepts(layer.type, layer.version) is False:
        # a core op under a version OpenVINO has not got: a defect of the file, not an op irexec lacks
        diags.append(Diagnostic("unknown-op-version", unknown_version_reason(layer.type, layer.version), ERROR,
                                op=layer.display, file=path, line=layer.line, layer_id=layer.id, layer_name=layer.name))
        return None
    if cls is None:
        diags.append(Diagnostic("unsupported-op", unsupported_reason(layer.type, layer.version), WARNING, op=layer.display,
                                file=path, line=layer.line, layer_id=layer.id, layer_name=layer.name))
        return None
    layer.display = _display(cls)  # type: ignore[arg-type]  # a class hashes by identity (Op defines __eq__ for instances)
    op, errors = cls.build(layer, layer.data, weights)
    if op is not None:
        return op
    data_where = {"file": path, "line": layer.data_line or layer.line, "layer_id": layer.id, "layer_name": layer.name,
                  "op": layer.display}
    for e in errors:
        for d in e.diagnostics:
            severity = WARNING if d.code in BLOCKS_RUN else d.severity
            diags.append(replace(d.located(**data_where), severity=severity))
    return None


@cache  # one string per op class, not one per layer
def _display(cls: type[Op]) -> str:
    return cls.display()


def _check_port_counts(path: str, graph: Graph, ops: dict[int, Op | None], diags: list[Diagnostic]) -> None:
    ranges: dict[type[Op], tuple[int, int | None]] = {}  # per op class: input_range hashes the class's input specs
    for lid, op in ops.items():
        if op is None:
            continue
        layer = graph.layers[lid]
        n_in, n_out = len(layer.inputs), len(layer.outputs)
        cls = type(op)
        found = ranges.get(cls)
        if found is None:
            found = ranges[cls] = op.input_range()
        fewest, most = found
        if not (fewest <= n_in and (most is None or n_in <= most)):
            want = str(fewest) if fewest == most else f"{fewest} or more" if most is None else f"{fewest} to {most}"
            names = ", ".join(i.name + ("..." if i.variadic else "") for i in op.inputs) or "none"
            diags.append(Diagnostic("wrong-port-count", f"declares {n_in} input ports but {layer.display} takes {want} ({names})",
                                    ERROR, path, layer.line, lid, layer.name, layer.display))
        expected = op.num_outputs(n_in)
        # Fewer is what OpenVINO's reader accepts: the op keeps its outputs and the
        # undeclared trailing ones are simply not connected (an edge that reads one
        # is `unknown-port`); more output ports than the op has is an error there too.
        if n_out > expected:
            diags.append(Diagnostic("wrong-port-count", f"declares {n_out} output ports but {layer.display} has {expected}",
                                    ERROR, path, layer.line, lid, layer.name, layer.display))
