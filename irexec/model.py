"""A loaded model: the document, its weights, an op per layer and the graph."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

from . import files, limits
from . import ops as _ops  # noqa: F401  (registers every op)
from .errors import ERROR, WARNING, Diagnostic, IRExecError, ModelError
from .graph import Graph, build_graph
from .ir.reader import IRDocument, Layer, read_document
from .ir.weights import Weights
from .ops.base import Op
from .ops.io import Const1, Parameter1, Result1
from .ops.registry import core_accepts, resolve, unknown_version_reason, unsupported_reason
from .ops.subgraph import attach_bodies
from .preprocess import resolve as resolve_pre_process
from .shapes import PartialShape, format_dims
from .v10_names import collisions as v10_collisions

# Findings that a check reports as warnings (the layer is trusted as declared)
# but that make a run of that layer impossible: a run refuses them only when a
# requested output depends on the layer.
BLOCKS_RUN = frozenset({"unsupported-op", "unsupported-element-type"})


@dataclass
class Model:
    path: str
    doc: IRDocument
    weights: Weights
    graph: Graph
    ops: dict[int, Op | None]  # None: layer that irexec cannot execute
    diagnostics: list[Diagnostic] = field(default_factory=list)
    # what every run shares (folded Const-only layers, run orders): see execute._folded
    run_cache: Any = field(default=None, repr=False, compare=False)
    # the legacy <pre-process> mean values OpenVINO subtracts from an input as it reads the model
    pre_process: Any = field(default=None, repr=False, compare=False)
    # a sub-graph body of an IR v10 model: its declared dims are legacy (see checker.mismatch_finding)
    legacy_body: bool = field(default=False, repr=False, compare=False)
    _by_class: dict[type, tuple[Layer, ...]] = field(default_factory=dict, init=False, repr=False, compare=False)

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


def default_weights_path(xml_path: str) -> str:
    root, _ = os.path.splitext(xml_path)
    return root + ".bin"


def read_model(path: str, weights: str | None = None, *, follow_symlinks: bool | None = None) -> Model:
    """Read and structurally validate a model, collecting every finding.

    Raises ModelError only when the XML cannot be read at all; everything
    else is in ``model.diagnostics``.  The XML and the weights must be regular
    files, and a symbolic link may not lead out of the folder it is named in
    unless ``follow_symlinks`` (default: $IREXEC_FOLLOW_SYMLINKS) allows it.
    """
    path = os.fspath(path)
    files.check_readable(path, "model file", follow_symlinks)
    wpath = os.fspath(weights) if weights is not None else default_weights_path(path)
    files.check_readable(wpath, "weights file", follow_symlinks)
    doc = read_document(path)
    if weights is not None and not os.path.isfile(weights):
        raise ModelError(f"weights file {weights} cannot be opened", code="missing-weights", file=path)
    w = Weights(wpath, explicit=weights is not None)
    diags = list(doc.diagnostics)
    graph, graph_diags = build_graph(doc)
    ops: dict[int, Op | None] = {}
    for layer in graph.layers.values():
        ops[layer.id] = _bind_op(path, layer, w, diags)
    attach_bodies(path, graph, ops, w, ir_version=doc.ir_version)
    diags.extend(graph_diags)
    _check_port_counts(path, graph, ops, diags)
    pre = resolve_pre_process(path, doc.pre_process, graph, ops, w, diags)
    model = Model(path, doc, w, graph, ops, diags)
    model.pre_process = pre
    if doc.ir_version == 10:
        diags.extend(v10_collisions(model))
    diags.sort(key=lambda d: (d.line or 0))
    return model


def load(path: str, weights: str | None = None, max_memory: int | None = None, *,
         follow_symlinks: bool | None = None) -> Model:
    """Read a model for execution: any error raises ModelError.  A layer irexec
    cannot run is refused by the run that needs it (see ``execute.run_model``).

    ``max_memory`` (bytes; default: see ``limits.default_max_memory``) also refuses
    a Const or static Parameter whose declared shape alone exceeds it."""
    model = read_model(path, weights, follow_symlinks=follow_symlinks)
    blocking = [d for d in model.diagnostics if d.severity == ERROR]
    if blocking:
        raise ModelError(blocking)
    too_big = _over_memory_limit(model, limits.resolve(max_memory))
    if too_big:
        raise ModelError(too_big)
    return model


def _over_memory_limit(model: Model, limit: int) -> list[Diagnostic]:
    found = []
    for lid, op in model.ops.items():
        layer = model.layers[lid]
        if not isinstance(op, (Const1, Parameter1)):
            continue
        shape = op.shape  # type: ignore[attr-defined]
        if isinstance(shape, PartialShape):
            if not shape.is_static:
                continue  # inputs of a dynamic shape are checked when they arrive
            shape = shape.to_tuple()
        why = limits.over_limit(limits.nbytes(shape, op.element_type.itemsize), limit)  # type: ignore[attr-defined]
        if why:
            dims = format_dims(shape)
            found.append(Diagnostic("memory-limit", f"declared shape {dims} {why}", ERROR,
                                    **model.where(layer, layer.outputs[0].id if layer.outputs else None, "output")))
    return found


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
    layer.display = _display(cls)
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
    for lid, op in ops.items():
        if op is None:
            continue
        layer = graph.layers[lid]
        n_in, n_out = len(layer.inputs), len(layer.outputs)
        fewest, most = op.input_range()
        if not (fewest <= n_in and (most is None or n_in <= most)):
            want = str(fewest) if fewest == most else f"{fewest} or more" if most is None else f"{fewest} to {most}"
            names = ", ".join(i.name + ("..." if i.variadic else "") for i in op.inputs) or "none"
            diags.append(Diagnostic("wrong-port-count", f"declares {n_in} input ports but {layer.display} takes {want} ({names})",
                                    ERROR, path, layer.line, lid, layer.name, layer.display))
        expected = op.num_outputs(n_in)
        if n_out != expected:
            diags.append(Diagnostic("wrong-port-count", f"declares {n_out} output ports but {layer.display} has {expected}",
                                    ERROR, path, layer.line, lid, layer.name, layer.display))


__all__ = ["Model", "read_model", "load", "IRExecError"]
