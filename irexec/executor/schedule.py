"""How a run plan is made: the layers some targets need, their order, when
each tensor can be let go, and the plain run's shortcut past kept layers."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..base.errors import ModelError, UsageError
from ..ir.records import Layer
from ..model.binding import BLOCKS_RUN, Model
from ..model.naming import output_names
from ..ops.io import Result1
from ..ops.state import AssignOp, ReadValueOp
from .cache import run_cache
from .memory import own_bytes
from .plan import RunPlan, Step


def live_layers(model: Model, targets: list[int]) -> set[int]:
    live = set(targets)
    stack = list(targets)
    inputs_of = run_cache(model).inputs_of
    while stack:
        for src in inputs_of(stack.pop()):  # the port maps: a run needs no networkx graph
            if src is not None and src[0] not in live:
                live.add(src[0])
                stack.append(src[0])
    return live


def plan_run(model: Model, stop_at: str | None, outputs: Sequence[str] | None) -> RunPlan:
    stop_layer: Layer | None = None
    names: dict[int, str] = {}
    if stop_at is not None:
        stop_layer = model.find_layer(stop_at)
        if stop_layer is None:
            raise UsageError(f"`stop_at` {stop_at!r} names no layer (give a layer id or name)", code="unknown-name", file=model.path)
        targets = [stop_layer.id]
    else:
        names = output_names(model)
        wanted = [r for r in model.results if outputs is None or names[r.id] in outputs]
        unknown = sorted(set(outputs or ()) - {names[r.id] for r in wanted})
        if unknown:
            raise UsageError(f"outputs {', '.join(map(repr, unknown))} name no output of the model (outputs: "
                             f"{', '.join(map(repr, names.values()))})", code="unknown-name", file=model.path)
        targets = [r.id for r in wanted]
    # sinks execute though no output depends on them, except in a run stopped early
    sinks = [lid for lid in model.graph.order if getattr(model.ops[lid], "sink", False)] if stop_layer is None else []
    live, order = execution_order(model, targets + sinks)
    keep = {stop_layer.id} if stop_layer is not None else set()
    reads = tuple((lid, op.variable, bool(model.layers[lid].inputs)) for lid in order
                  if isinstance(op := model.ops[lid], ReadValueOp) and op.variable is not None)
    writes = tuple((lid, model.ops[lid].variable_id) for lid in sinks if isinstance(model.ops[lid], AssignOp))  # type: ignore[union-attr]
    return RunPlan(stop_layer, names, targets, live, plan_steps(model, order, keep), reads=reads, writes=writes)


def plan_steps(model: Model, order: list[int], keep: set[int]) -> list[Step]:
    """The run plan's steps; a tensor is freed by its last reader, except the
    outputs of the layers in ``keep``."""
    folded = run_cache(model)
    sources = {lid: tuple(folded.inputs_of(lid)) for lid in order}
    last_reader: dict[tuple[int, int], int] = {}
    for lid in order:
        for src in sources[lid]:
            if src is not None:
                last_reader[src] = lid
    frees: dict[int, list[tuple[int, int]]] = {}
    for src, lid in last_reader.items():
        if src[0] not in keep:
            frees.setdefault(lid, []).append(src)
    def unread(lid: int) -> frozenset[int] | None:
        if lid in keep:
            return None
        idle = frozenset(i for i in range(len(model.layers[lid].outputs)) if (lid, i) not in last_reader)
        return idle or None

    steps = []
    for lid in order:
        op = folded.op(lid)
        assert op is not None, "refuse_missing_ops let a layer irexec cannot run through"
        steps.append(Step(lid, model.layers[lid], op, sources[lid], tuple(frees.get(lid, ())),
                          isinstance(model.ops[lid], Result1), unread(lid),
                          tuple(((lid, i), port.dims) for i, port in enumerate(model.layers[lid].outputs))))
    return steps


def execution_order(model: Model, targets: list[int]) -> tuple[set[int], list[int]]:
    """The layers ``targets`` depend on, and them in run order; refused when one cannot run."""
    live = live_layers(model, targets)
    order = [lid for lid in model.graph.order if lid in live]
    refuse_missing_ops(model, order)
    return live, order


def compact_steps(model: Model, plan: RunPlan) -> tuple[dict[tuple[int, int], np.ndarray], list[Step], int] | bool | None:
    """A plain run need not step through the kept layers (Consts, the f16
    weights -> Convert): their outputs go into the run's tensors at once.
    None until the first run has kept them all; False if some cannot be."""
    folded = run_cache(model)
    kept = folded.outputs
    fixed_ids = {step.lid for step in plan.steps if step.lid in folded.foldable}
    rest = [step for step in plan.steps if step.lid not in fixed_ids]
    # only the kept layers the other steps read must be kept (not a weight only its decompression chain read)
    if any(src[0] not in kept for step in rest for src in step.sources if src is not None and src[0] in fixed_ids):
        return False if folded.full else None
    preset = {src: kept[src[0]][src[1]] for step in rest for src in step.sources if src is not None and src[0] in fixed_ids}
    return preset, rest, sum(own_bytes(a) for a in preset.values())


def refuse_missing_ops(model: Model, order: list[int]) -> None:
    """One error naming every op type the requested outputs need that irexec
    cannot run, with its layer count and first line; layers no requested
    output depends on are never looked at."""
    missing: dict[str, list[Layer]] = {}
    for lid in order:
        if model.ops[lid] is None:
            layer = model.layers[lid]
            missing.setdefault(layer.display or f"{layer.type}/{layer.version}", []).append(layer)
    if not missing:
        return
    parts = []
    for name, layers in missing.items():
        first = min(layers, key=lambda l: l.index)
        count = f"{len(layers)} layers, first" if len(layers) > 1 else "1 layer"
        parts.append(f"{name} ({count} at line {first.line})")
    reasons = {d.message for d in model.diagnostics if d.code in BLOCKS_RUN and d.layer_id in {l.id for ls in missing.values() for l in ls}}
    first_layer = min((l for ls in missing.values() for l in ls), key=lambda l: l.index)
    message = (f"cannot run: the requested outputs need {len(missing)} op type{'s' if len(missing) > 1 else ''} irexec cannot "
               f"execute: {', '.join(parts)}" + (f" ({'; '.join(sorted(reasons))})" if reasons else ""))
    raise ModelError(message, code="unsupported-op", file=model.path, line=first_layer.line)
