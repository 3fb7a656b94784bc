"""Which layer of one IR is which layer of another (``irexec diff A.xml B.xml``).

Three passes, each over what the previous left unmatched:

1. **tensor names**: an output port of A and one of B that share a tensor name;
2. **layer names**: layers of the same type and name (NNCF keeps the names of the
   MatMul and Convolution layers it compresses; optimum-intel exports at two
   precisions share them);
3. **structure**: in topological order, a layer whose inputs come from matched ports
   (or matched Parameters) and a layer of the same type fed by their counterparts; a
   weighted op's constant input (NNCF's decompression chain) does not count.

Only the layers that depend on the inputs or the state are matched: constant
sub-graphs (weights and their decompression chains) are compared by ``weights.py``.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from ...ir.records import Layer
from .reference import ReferenceSide

WEIGHTED = ("MatMul", "Convolution", "GroupConvolution", "ConvolutionBackpropData", "GroupConvolutionBackpropData",
            "Gather", "FullyConnected")
Port = tuple[str, int]  # (layer name, output index)


@dataclass
class Matching:
    """A's ports -> B's ports, how each was matched, and why the rest was not."""

    ports: dict[Port, Port] = field(default_factory=dict)
    how: dict[str, str] = field(default_factory=dict)  # A layer name -> "tensor name" | "layer name" | "structure"
    layer: dict[str, str] = field(default_factory=dict)  # A layer name -> B layer name
    unmatched_a: dict[str, str] = field(default_factory=dict)  # A layer name -> why
    unmatched_b: dict[str, str] = field(default_factory=dict)  # B layer name -> why

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for how in self.how.values():
            out[how] = out.get(how, 0) + 1
        return out

    def as_dict(self) -> dict[str, object]:
        return {"matched": [{"a": a, "b": self.layer[a], "by": self.how[a]} for a in self.layer],
                "unmatched_a": self.unmatched_a, "unmatched_b": self.unmatched_b, "counts": self.counts()}


def _varying(side: ReferenceSide) -> list[Layer]:
    return [layer for layer in side.candidates if layer.id in side.varying]


def match(a: ReferenceSide, b: ReferenceSide) -> Matching:
    m = Matching()
    left, right = _varying(a), _varying(b)
    taken_b: set[str] = set()

    def pair(la: Layer, lb: Layer, how: str) -> None:
        m.layer[la.name], m.how[la.name] = lb.name, how
        taken_b.add(lb.name)
        for i in range(min(len(la.outputs), len(lb.outputs))):
            m.ports[(la.name, i)] = (lb.name, i)

    by_tensor = {n: lb for lb in right for port in lb.outputs for n in port.names}
    for la in left:
        for port in la.outputs:
            lb = next((by_tensor[n] for n in port.names if n in by_tensor), None)
            if lb is not None and lb.name not in taken_b and lb.type == la.type:
                pair(la, lb, "tensor name")
                break
    by_name = {lb.name: lb for lb in right}
    for la in left:
        lb = by_name.get(la.name)
        if la.name not in m.layer and lb is not None and lb.name not in taken_b and lb.type == la.type:
            pair(la, lb, "layer name")
    # structure, in topological order: a layer whose varying inputs all come from matched ports is the
    # unmatched layer of the same type fed by their counterparts (the first such one in B's order);
    # Parameters are matched by name or tensor name to start from
    sources = dict(m.ports)
    b_params = {n: p for p in b.model.parameters for n in (p.name, *(x for port in p.outputs for x in port.names))}
    for p in a.model.parameters:
        q = next((b_params[n] for n in (p.name, *(x for port in p.outputs for x in port.names)) if n in b_params), None)
        if q is not None:
            sources[(p.name, 0)] = (q.name, 0)
    # B's layers by (type, the ports feeding them), each list in B's order: a look-up, not a scan of B
    fed_by: dict[tuple[str, tuple[Port, ...]], deque[Layer]] = {}
    for x in right:
        if x.name not in taken_b:
            fed_by.setdefault((x.type, tuple(_activation_sources(b, x))), deque()).append(x)
    for la in left:
        if la.name in m.layer:
            continue
        wanted = _activation_sources(a, la)
        if not wanted or any(src not in sources for src in wanted):
            continue
        queue = fed_by.get((la.type, tuple(sources[src] for src in wanted)))
        while queue and queue[0].name in taken_b:
            queue.popleft()
        lb = queue[0] if queue else None
        if lb is not None:
            pair(la, lb, "structure")
            sources.update({(la.name, i): (lb.name, i) for i in range(min(len(la.outputs), len(lb.outputs)))})
    right_by_name: dict[str, Layer] = {}
    for lb in right:
        right_by_name.setdefault(lb.name, lb)
    for la in left:
        if la.name not in m.layer:
            m.unmatched_a[la.name] = _why_a(la, right_by_name.get(la.name))
    weights_of = _weight_chains(b, m)
    for lb in b.candidates:
        if lb.name in taken_b:
            continue
        if lb.id in weights_of:
            m.unmatched_b[lb.name] = f"part of the weight of {weights_of[lb.id]} (compared as a weight)"
        elif lb.id in b.varying:
            m.unmatched_b[lb.name] = f"{lb.type}: no layer of A shares its tensor names or its name"
    return m


def _activation_sources(side: ReferenceSide, layer: Layer) -> list[Port]:
    return [(p.name, i) for src in side.producers(layer) if src is not None
            for p, i in [src] if p.id in side.varying]


def _why_a(la: Layer, same: Layer | None) -> str:
    if same is not None:
        return f"B's layer of that name is a {same.type}, not a {la.type}"
    if la.type in WEIGHTED:
        return "a weighted op whose activation input has no counterpart in B"
    return "no layer of B shares its tensor names or its name (fused or renamed in B)"


def _weight_chains(b: ReferenceSide, m: Matching) -> dict[int, str]:
    """B's constant layers feeding a matched layer, by id -> that layer's name."""
    matched_b = set(m.layer.values())
    out: dict[int, str] = {}
    for layer in b.order:
        if layer.name not in matched_b:
            continue
        for src in b.producers(layer):
            if src is not None and src[0].id not in b.varying and src[0].id not in out:  # walked once, not per reader
                for lid in b.ancestors([src[0]]):
                    out.setdefault(lid, layer.name)
    return out


__all__ = ["Matching", "WEIGHTED", "match"]
