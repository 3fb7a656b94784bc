"""The layer graph: layers joined port to port, validated structurally; a
networkx DAG of it is built when something asks for one."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ..base.errors import ERROR, WARNING, Diagnostic
from ..ir.records import EdgeTable, IRDocument, Layer

if TYPE_CHECKING:
    import networkx as nx


@dataclass
class Graph:
    """Layers joined by port-to-port edges, in a deterministic topological order."""

    layers: dict[int, Layer]
    # (layer id, input index) -> (producer layer id, output index); a value is
    # the same tuple as its key in ``consumers``
    producer: dict[tuple[int, int], tuple[int, int]] = field(default_factory=dict)
    # (layer id, output index) -> [(consumer layer id, input index)]
    consumers: dict[tuple[int, int], list[tuple[int, int]]] = field(default_factory=dict)
    order: list[int] = field(default_factory=list)
    _dag: nx.DiGraph | None = field(default=None, repr=False, compare=False)

    @property
    def dag(self) -> nx.DiGraph:
        """One networkx edge per pair of joined layers (which ports join them is
        in ``producer``), built on first use: a check needs only the port maps,
        and a networkx graph costs about 500 bytes a layer."""
        if self._dag is None:
            import networkx as nx

            dag = nx.DiGraph()
            dag.add_nodes_from(self.layers)
            dag.add_edges_from((src, dst) for (dst, _), (src, _) in self.producer.items())
            self._dag = dag
        return self._dag

    def inputs_of(self, layer_id: int) -> list[tuple[int, int] | None]:
        layer = self.layers[layer_id]
        return [self.producer.get((layer_id, p.index)) for p in layer.inputs]


def _role_by_name(layer: Layer) -> str:
    low = layer.type.lower()
    return "sink" if low == "assign" else low


def build_graph(doc: IRDocument, role: Callable[[Layer], str] = _role_by_name) -> tuple[Graph, list[Diagnostic]]:
    """``role`` tells a Result layer ("result") and a Parameter ("parameter") from
    the rest: the binding layer asks the op registry, which knows their versions."""
    diags: list[Diagnostic] = []

    def add(code: str, msg: str, line: int | None, layer: Layer | None = None, severity: str = ERROR, **kw: object) -> None:
        where = {"layer_id": layer.id, "layer_name": layer.name, "op": layer.display} if layer else {}
        diags.append(Diagnostic(code, msg, severity, file=doc.path, line=line, **where, **kw))  # type: ignore[arg-type]

    layers: dict[int, Layer] = {}
    for layer in doc.layers:
        first = layers.get(layer.id)
        if first is not None:
            add(
                "duplicate-layer-id",
                f"layer id {layer.id} is already used by {first.name!r} at line {first.line}",
                layer.line,
                layer,
            )
            continue
        layers[layer.id] = layer

    graph = Graph(layers)
    edges = doc.edges
    rows = edges.rows() if isinstance(edges, EdgeTable) else (
        (e.from_layer, e.from_port, e.to_layer, e.to_port, e.line) for e in edges)
    _add_edges(graph, rows, add)

    for layer in layers.values():
        result = role(layer) == "result"
        if result and not layer.inputs:
            add("result-without-input", "Result layer declares no input port", layer.line, layer)
        for port in layer.inputs:
            if (layer.id, port.index) not in graph.producer:
                code = "result-without-input" if result else "unconnected-input"
                add(code, f"input port {port.id} is not fed by any edge", port.line, layer, port=port.id, port_kind="input")

    _suggest_targets(graph, diags)

    # A topological sort is linear; nx.find_cycle over the whole graph is
    # quadratic, so it only runs to name the cycle once one is known to exist.
    order = _topological_order(graph)
    cycle = _find_cycle(graph.dag) if order is None else None
    graph.order = order or []
    if cycle:
        members = [layers[u] for u, *_ in cycle]
        path = " -> ".join(f'{m.id} "{m.name}"' for m in members + members[:1])
        first = min(members, key=lambda m: m.index)
        add("cycle", f"the graph has a cycle: {path}", first.line, first)
        graph.order = []
    else:
        _flag_unreachable(graph, add, role, diags)
    return graph, diags


def _suggest_targets(graph: Graph, diags: list[Diagnostic]) -> None:
    """An edge into an unknown layer whose port only one layer leaves unfed (or out of
    an unknown layer whose port only one layer leaves unread) was most likely meant
    for that layer: say which."""
    for i, d in enumerate(diags):
        if d.code != "unknown-layer" or "end" not in d.values:
            continue
        port_id = d.values["port"]
        if d.values["end"] == "to":
            cands = [l for l in graph.layers.values() for p in l.inputs
                     if p.id == port_id and (l.id, p.index) not in graph.producer]
            side = f"input port {port_id} is fed by no edge"
        else:
            cands = [l for l in graph.layers.values() for p in l.outputs
                     if p.id == port_id and (l.id, p.index) not in graph.consumers]
            side = f"output port {port_id} is read by no edge"
        if len(cands) == 1:
            c = cands[0]
            diags[i] = replace(d, message=f'{d.message}; perhaps layer {c.id} "{c.name}" (line {c.line}) was meant: its {side}',
                               values=dict(d.values, suggested_layer_id=c.id))


def _find_cycle(dag: nx.DiGraph) -> list[tuple[int, int]]:
    import networkx as nx

    return nx.find_cycle(dag)


def _topological_order(graph: Graph) -> list[int] | None:
    """Kahn's algorithm, ready layers taken in document order (what
    nx.lexicographical_topological_sort gives, at a fraction of its cost on
    large graphs); None when there is a cycle."""
    layers = graph.layers
    # Most documents list every producer before its consumers; then the
    # document order is the answer (every layer is ready when its turn comes,
    # and it is the first ready one), with no heap.
    if all(layers[src].index < layers[dst].index for (dst, _), (src, _) in graph.producer.items()):
        return sorted(layers, key=lambda lid: layers[lid].index)
    pending = {lid: 0 for lid in graph.layers}
    for dst, _ in graph.producer:
        pending[dst] += 1
    successors: dict[int, list[int]] = {}
    for (src, _), consumers in graph.consumers.items():
        successors.setdefault(src, []).extend(dst for dst, _ in consumers)
    ready = [(layers[lid].index, lid) for lid, n in pending.items() if n == 0]
    heapq.heapify(ready)
    order: list[int] = []
    pop, push, no_successors = heapq.heappop, heapq.heappush, ()
    while ready:
        _, lid = pop(ready)
        order.append(lid)
        for dst in successors.get(lid, no_successors):
            n = pending[dst] - 1
            pending[dst] = n
            if n == 0:
                push(ready, (layers[dst].index, dst))
    return order if len(order) == len(pending) else None


def _add_edges(graph: Graph, rows: Iterable[tuple[int, int, int, int, int]], add) -> None:
    """Records each edge (from layer, from port, to layer, to port, line) in the port
    maps, or reports why it is invalid.  One loop over every edge of the document:
    the common case (a known port of a known layer, an input not yet fed) stays inline."""
    layers, producer, consumers = graph.layers, graph.producer, graph.consumers
    edge_lines: dict[tuple[int, int], int] = {}  # for a second edge into one input: where the first is
    get_layer = layers.get
    for from_layer, from_port, to_layer, to_port, line in rows:
        src, dst = get_layer(from_layer), get_layer(to_layer)
        if src is None or dst is None:
            for lid, layer, end in ((from_layer, src, "from"), (to_layer, dst, "to")):
                if layer is None:
                    add("unknown-layer", f"edge refers to layer id {lid}, which does not exist", line,
                        values={"end": end, "port": to_port if end == "to" else from_port})
            continue
        out_index = src.output_index(from_port)
        if out_index is None:
            ids = [p.id for p in src.outputs]
            add("unknown-port", f"edge leaves output port {from_port}, which the layer does not declare (output ports: {ids})",
                line, src, port=from_port, port_kind="output")
            continue
        in_index = dst.input_index(to_port)
        if in_index is None:
            ids = [p.id for p in dst.inputs]
            add("unknown-port", f"edge enters input port {to_port}, which the layer does not declare (input ports: {ids})",
                line, dst, port=to_port, port_kind="input")
            continue
        key = (to_layer, in_index)
        prev = producer.get(key)
        if prev is not None:
            add("input-fed-twice",
                f"input port {to_port} is already fed by layer {prev[0]} (edge at line {edge_lines[key]}); "
                f"a second edge from layer {from_layer} port {from_port} is not allowed",
                line, dst, port=to_port, port_kind="input")
            continue
        edge_lines[key] = line
        out_key = (from_layer, out_index)
        readers = consumers.get(out_key)
        if readers is None:
            consumers[out_key] = [key]
        else:
            out_key = producer[readers[0]]  # the tuple already keying it: one per output port, not one per edge
            readers.append(key)
        producer[key] = out_key


# Errors that cut an edge: the layers upstream of the lost edge become unreachable
# as a consequence, and are told with the error rather than one warning each.
_CUTTING = ("unknown-layer", "unknown-port", "input-fed-twice", "duplicate-layer-id", "unconnected-input",
            "result-without-input")
_LINES_SHOWN = 3


def _flag_unreachable(graph: Graph, add, role: Callable[[Layer], str], diags: list[Diagnostic]) -> None:
    """Layers no Result or sink (Assign) depends on are dropped by OpenVINO; say so,
    once per layer, or in the message of the broken edge's error when there is one."""
    layers, producer = graph.layers, graph.producer
    live: set[int] = set()
    # consumers come after their producers in graph.order: walking it backwards
    # marks every producer of a live layer before that producer is visited
    for lid in reversed(graph.order):
        layer = layers[lid]
        if lid in live or role(layer) in ("result", "sink"):  # an Assign executes: a sink
            live.add(lid)
            for port in layer.inputs:
                src = producer.get((lid, port.index))
                if src is not None:
                    live.add(src[0])
    dead = [layers[lid] for lid in graph.order if lid not in live and role(layers[lid]) != "parameter"]
    cutting = [i for i, d in enumerate(diags) if d.code in _CUTTING]
    if not dead:
        return
    if not cutting:
        for layer in dead:
            add("unreachable-layer", "no Result depends on this layer; it is never executed", layer.line, layer,
                severity=WARNING)
        return
    root = min(cutting, key=lambda i: (_CUTTING.index(diags[i].code), diags[i].line or 0))
    d = diags[root]
    lines = ", ".join(str(l.line) for l in dead[:_LINES_SHOWN]) + (", ..." if len(dead) > _LINES_SHOWN else "")
    n = f"{len(dead)} layer{'s' if len(dead) != 1 else ''}"
    message = (f"{d.message}; {n} cut off by it from every Result (unreachable, first at lines {lines}) "
               "are not reported apart")
    values = dict(d.values, unreachable_layers=[{"line": l.line, "layer_id": l.id, "layer_name": l.name} for l in dead])
    diags[root] = replace(d, message=message, values=values)
