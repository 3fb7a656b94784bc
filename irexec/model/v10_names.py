"""IR v10 models whose operation names collide with tensor names.

OpenVINO reads an IR v10 model and then (``update_v10_model`` in
src/inference/src/model_reader.cpp) gives every input and output the legacy
name of its operation as an extra tensor name: a Parameter's layer name, and
for a Result the name of the layer feeding it (``name.N`` when that layer has
several outputs).  A name that already belongs to another model input or
output tensor makes it refuse the model ("Model operation names have
collisions with tensor names. Please use OVC to generate new IR version"), and
so does an output tensor name already taken by an input or an earlier output
("Model tensor names have collisions").  The same rules, in the same order,
find the same models here.  IR v11 has no such step.
"""

from __future__ import annotations

from typing import Any

from ..base.errors import ERROR, Diagnostic
from ..ir.records import Layer
from ..ops.io import Parameter1, Result1

CODE = "v10-name-collision"
_ADVICE = "OpenVINO refuses this IR v10 model; convert the model again (ovc writes IR v11, which has no such rule)"


def collisions(model: Any) -> list[Diagnostic]:  # a Model: binding imports this module
    graph, ops = model.graph, model.ops
    layers = sorted(graph.layers.values(), key=lambda l: l.index)
    params = [l for l in layers if isinstance(ops.get(l.id), Parameter1)]
    results = [l for l in layers if isinstance(ops.get(l.id), Result1)]
    found: list[Diagnostic] = []

    def refuse(layer: Layer, message: str) -> None:
        found.append(Diagnostic(CODE, f"{message}; {_ADVICE}", ERROR, file=model.path, line=layer.line, layer_id=layer.id,
                                layer_name=layer.name, op=layer.display))

    # names of each tensor, by its producer (layer id, output index), as OpenVINO extends them
    names: dict[tuple[int, int], set[str]] = {}

    def tensor_names(key: tuple[int, int]) -> set[str]:
        if key not in names:
            producer = graph.layers[key[0]]
            names[key] = set(producer.outputs[key[1]].names) if key[1] < len(producer.outputs) else set()
        return names[key]

    taken: set[str] = set()
    for p in params:  # the model's inputs (duplicates among them are not refused: OpenVINO's reader keeps one)
        if p.outputs:
            taken |= tensor_names((p.id, 0))
    sources: dict[int, tuple[int, int]] = {}
    for r in results:  # every output is a tensor of its own: a name seen before is a collision
        src = graph.producer.get((r.id, 0))
        if src is None:
            continue
        sources[r.id] = src
        for name in sorted(tensor_names(src)):
            if name in taken:
                refuse(r, f"output tensor name {name!r} is already the name of a model input or of another output")
                return found
        taken |= tensor_names(src)
    for r in results:
        src = sources.get(r.id)
        if src is None:
            continue
        producer = graph.layers[src[0]]
        legacy = producer.name if len(producer.outputs) == 1 else f"{producer.name}.{src[1]}"
        if legacy in taken and legacy not in tensor_names(src):
            refuse(r, f"the output's operation name {legacy!r} (the layer feeding this Result) is already a tensor name "
                      "of another input or output")
            return found
        taken.add(legacy)
        tensor_names(src).add(legacy)
    for p in params:
        if not p.outputs:
            continue
        if p.name in taken and p.name not in tensor_names((p.id, 0)):
            refuse(p, f"the input's operation name {p.name!r} is already a tensor name of another input or output")
            return found
        taken.add(p.name)
        tensor_names((p.id, 0)).add(p.name)
    return found
