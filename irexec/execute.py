"""Running a model: feeds checked against the Parameters, layers executed in
topological order, every intermediate released after its last consumer."""

from __future__ import annotations

import os
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import ml_dtypes
import numpy as np

from . import blas, decompression, dtypes, limits
from .binding import BLOCKS_RUN, Model
from .errors import ERROR, WARNING, Diagnostic, InputError, InternalError, IRExecError, ModelError, UsageError
from .ir.declared import declared_shape, declared_text
from .ir.reader import Layer
from .naming import cast_hint, parameter_label, parameter_list, positional_hint
from .ops.base import Inference, Op, TensorInfo
from .ops.io import Const1, Result1
from .ops.state import AssignOp, ReadValue3, ReadValue6, Variable
from .shapes import PartialShape, format_shape

# Called after each layer with (layer, its output arrays, seconds spent).
# A hook with ``reads_values = False`` looks at shapes only, so an output no
# layer reads may reach it as a stand-in (see Op.compute_unread).
LayerHook = Callable[[Layer, list[np.ndarray], float], None]


def reads_values(hook: LayerHook | None) -> bool:
    return hook is not None and getattr(hook, "reads_values", True)


def output_names(model: Model) -> dict[int, str]:
    """Result layer id -> output key (see README, "Naming of tensors")."""
    names: dict[int, str] = {}
    seen_tensors: set[tuple[int, int]] = set()
    used: set[str] = set()
    for res in model.results:
        src = model.graph.producer.get((res.id, 0))
        key = res.name
        if src is not None and src not in seen_tensors:
            port = model.layers[src[0]].outputs[src[1]]
            if port.names:
                key = port.names[0]
        if src is not None:
            seen_tensors.add(src)
        if key in used:
            key = f"{res.name}:{res.id}"
        used.add(key)
        names[res.id] = key
    return names


def _parameter_for(model: Model) -> dict[str, Layer]:
    cache = _folded(model)
    if cache.params_by_name is None:
        cache.params_by_name = _parameters_by_name(model)
    return cache.params_by_name


def _parameters_by_name(model: Model) -> dict[str, Layer]:
    by_name: dict[str, Layer] = {}
    for p in model.parameters:
        by_name.setdefault(p.name, p)
    for p in model.parameters:
        for port in p.outputs:
            for n in port.names:
                by_name.setdefault(n, p)
    return by_name


def _coerce(arr: np.ndarray, etype: dtypes.ElementType) -> np.ndarray | None:
    """The array as the Parameter's dtype when it holds exactly that type."""
    if etype.name == "bf16":
        if arr.dtype == ml_dtypes.bfloat16:
            return arr
        if arr.dtype.kind == "V" and arr.dtype.itemsize == 2 or arr.dtype == np.uint16:
            return arr.view(ml_dtypes.bfloat16)  # npz stores bf16 as |V2; uint16 raw bits also accepted
        return None
    if etype.packed and arr.dtype.kind == "V" and arr.dtype.itemsize == 1 and arr.dtype.names is None:
        return arr.view(etype.dtype)  # npz stores the ml_dtypes types as |V1
    got = dtypes.from_dtype(arr.dtype)
    if got is None or got.name != etype.name:
        return None
    return arr if arr.dtype.byteorder != ">" else None


def bind_feeds(model: Model, feeds: Mapping[str, np.ndarray], needed: set[int] | None = None) -> dict[int, np.ndarray]:
    """Match feeds to Parameters; every problem at once as input-mismatch.
    Only the Parameters in ``needed`` (default: all) must be fed; a feed for
    another one is checked if irexec can, and otherwise left unused."""
    params = _parameter_for(model)
    bound: dict[int, np.ndarray] = {}
    problems: list[Diagnostic] = []
    for key, value in feeds.items():
        layer = params.get(key)
        if layer is None:
            known = _some_names(model.parameters)
            problems.append(Diagnostic("input-mismatch", f"input {key!r} matches no Parameter (Parameters: {known})"
                                       f"{positional_hint(key, [p.name for p in model.parameters])}", ERROR, file=model.path))
            continue
        where = model.where(layer, layer.outputs[0].id if layer.outputs else None, "output" if layer.outputs else None)
        if layer.id in bound:
            problems.append(Diagnostic("input-mismatch", f"fed twice (input {key!r} names the same Parameter)", ERROR, **where))
            continue
        op = model.ops[layer.id]
        if op is None:
            continue  # a Parameter of a type irexec cannot run: a run that needs it is refused before this
        arr = np.asarray(value)
        etype, pshape = op.element_type, op.shape  # type: ignore[union-attr]
        coerced = _coerce(arr, etype)
        if coerced is None:
            problems.append(Diagnostic("input-mismatch", f"input {key!r} has dtype {arr.dtype} but the Parameter is {etype.name} "
                                       f"(irexec does not cast inputs; convert it first, e.g. {cast_hint(etype.dtype)})", ERROR, **where))
            continue
        if not pshape.accepts(coerced.shape):
            problems.append(Diagnostic("input-mismatch", f"input {key!r} has shape {format_shape(coerced.shape)} but the Parameter "
                                       f"accepts {pshape}", ERROR, **where))
            continue
        bound[layer.id] = coerced
    reported = {d.layer_id for d in problems}  # a set: a model may have tens of thousands of Parameters
    for p in _folded(model).parameters:
        op = model.ops[p.id]
        if op is None or needed is not None and p.id not in needed:
            continue
        if p.id not in bound and p.id not in reported:
            problems.append(Diagnostic("input-mismatch", f"no input given for Parameter {parameter_label(p)} "
                                       f"({op.element_type.name}{op.shape})", ERROR, **model.where(p)))  # type: ignore[union-attr]
    if problems:
        raise InputError(problems)
    return bound


def _some_names(layers: list[Layer], shown: int = 10) -> str:
    names = parameter_list(layers[:shown])
    return names + (f", and {len(layers) - shown} more" if len(layers) > shown else "")


@dataclass
class RunResult:
    outputs: dict[str, np.ndarray]
    times: dict[int, float] = field(default_factory=dict)  # layer id -> seconds
    stopped_at: Layer | None = None
    warnings: list[Diagnostic] = field(default_factory=list)  # computed shapes the file declares otherwise
    # what the Assigns of a stateful model received, by variable_id: the state after the run
    state: dict[str, np.ndarray] = field(default_factory=dict)


def live_layers(model: Model, targets: list[int]) -> set[int]:
    live = set(targets)
    stack = list(targets)
    inputs_of = _folded(model).inputs_of
    while stack:
        for src in inputs_of(stack.pop()):  # the port maps: a run needs no networkx graph
            if src is not None and src[0] not in live:
                live.add(src[0])
                stack.append(src[0])
    return live


def run_model(
    model: Model,
    feeds: Mapping[str, np.ndarray],
    *,
    stop_at: str | None = None,
    outputs: Sequence[str] | None = None,
    on_layer: LayerHook | None = None,
    keep_all: bool = False,
    max_memory: int | None = None,
    state: Mapping[str, np.ndarray] | None = None,
) -> RunResult:
    """Execute the model.  ``stop_at`` (layer id or name) ends the run there and
    returns that layer's outputs; ``keep_all`` keeps intermediates alive for hooks.
    ``max_memory`` bounds the bytes of live tensors (default: limits.default_max_memory()).
    ``state``: the value of each variable of a stateful model by variable_id; a
    variable it lacks reads its initial value.  Every Assign executes (unless
    ``stop_at``) and ``RunResult.state`` holds what each one received."""
    folded = _folded(model)
    key = (stop_at, None if outputs is None else tuple(outputs))
    plan = folded.runs.get(key)
    if plan is None:
        plan = _plan_run(model, stop_at, outputs)
        folded.remember(key, plan)
    stop_layer = plan.stop_layer
    bound = bind_feeds(model, feeds, plan.live)
    pre = model.pre_process
    if pre is not None and pre.parameter in bound:  # as OpenVINO's reader inserts it: input - mean, before any layer
        bound[pre.parameter] = pre.apply(bound[pre.parameter])
    limit = limits.resolve(max_memory)
    _refuse_large_inputs(model, bound, limit)
    if plan.reads:
        _bind_variables(model, plan, state or {}, bound)
    steps, preset, preset_bytes = plan.steps, None, 0
    if on_layer is None and not keep_all and stop_layer is None:
        if plan.compact is None:
            plan.compact = _compact(model, plan)
        if plan.compact:
            preset, steps, preset_bytes = plan.compact
    values, results, times, warnings = _execute(model, steps, bound, limit, on_layer, keep_all, preset, preset_bytes,
                                                plan.replay(model, steps))
    if stop_layer is not None:
        if isinstance(model.ops[stop_layer.id], Result1):
            found = {output_names(model)[stop_layer.id]: results[stop_layer.id]}
        else:
            found = {_port_key(stop_layer, i): values[(stop_layer.id, i)] for i in range(len(stop_layer.outputs))}
        return RunResult(_own(found), times, stop_layer, warnings, _assigned(plan, values))
    return RunResult(_own({plan.names[lid]: results[lid] for lid in plan.targets}), times, None, warnings,
                     _assigned(plan, values))


def _bind_variables(model: Model, plan: RunPlan, state: Mapping[str, np.ndarray], bound: dict[int, np.ndarray]) -> None:
    """Feed each ReadValue the value of its variable: the one ``state`` holds,
    else zeros when it has no initialising input (it computes that input itself)."""
    for lid, var, has_init in plan.reads:
        value = state.get(var.id)
        if value is None:
            if has_init:
                continue
            value = var.initial_zeros()
            if value is None:
                continue  # no declared type or rank to start from: the op says so
        else:
            why = var.fits(PartialShape.static(value.shape), dtypes.from_dtype(value.dtype) or dtypes.get("dynamic"))
            if why:
                layer = model.layers[lid]
                raise InputError(f"the state of variable {var.id!r} does not fit: {why}", code="state-mismatch", **model.where(layer))
        bound[lid] = value


def _assigned(plan: RunPlan, values: Mapping[tuple[int, int], np.ndarray]) -> dict[str, np.ndarray]:
    """The value each executed Assign received, by variable_id."""
    return {vid: values[(lid, 0)] for lid, vid in plan.writes if (lid, 0) in values}


def _own(outputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The outputs, each one the caller may write to: a tensor kept for later
    runs (a Const, shape arithmetic) is read-only, so it is handed out as a copy."""
    return {k: a if a.flags.writeable else a.copy() for k, a in outputs.items()}


# One layer of a run plan: (layer id, layer, op, the tensors it reads, the
# tensors whose last reader it is, whether it is a Result, the indexes of its
# outputs no layer reads or None, and per output its key and declared dims).
Step = tuple[int, Layer, Op, tuple, tuple, bool, frozenset[int] | None, tuple[tuple[tuple[int, int], tuple], ...]]


@dataclass
class RunPlan:
    """What a run on some targets executes, in which order, and when each
    tensor can be let go: the same for every run of a model."""

    stop_layer: Layer | None
    names: dict[int, str]
    targets: list[int]
    live: set[int]
    steps: list[Step]
    # once every layer computed from Consts alone is kept: their outputs the
    # other layers read, and the steps without them (False: not yet possible)
    compact: tuple[dict[tuple[int, int], np.ndarray], list[Step], int] | bool | None = None
    # per step list: the inferences of a run, by the shapes and types of its feeds (see _Replay)
    replays: dict[int, _Replay] = field(default_factory=dict)
    # a stateful model's ReadValue layers (layer id, variable, whether it has an initialising input)
    # and the Assign layers the run executes (layer id, variable_id)
    reads: tuple[tuple[int, Variable, bool], ...] = ()
    writes: tuple[tuple[int, str], ...] = ()

    def replay(self, model: Model, steps: list[Step]) -> _Replay:
        found = self.replays.get(id(steps))
        if found is None or found.steps is not steps:
            found = self.replays[id(steps)] = _Replay(model, steps)
        return found


def _compact(model: Model, plan: RunPlan) -> tuple[dict[tuple[int, int], np.ndarray], list[Step], int] | bool | None:
    """A plain run need not step through the kept layers (Consts, the f16
    weights -> Convert): their outputs go into the run's tensors at once.
    None until the first run has kept them all; False if some cannot be."""
    folded = _folded(model)
    kept = folded.outputs
    fixed_ids = {step[0] for step in plan.steps if step[0] in folded.foldable}
    rest = [step for step in plan.steps if step[0] not in fixed_ids]
    # only the kept layers the other steps read must be kept (not a weight only its decompression chain read)
    if any(src[0] not in kept for step in rest for src in step[3] if src is not None and src[0] in fixed_ids):
        return False if folded.full else None
    preset = {src: kept[src[0]][src[1]] for step in rest for src in step[3] if src is not None and src[0] in fixed_ids}
    return preset, rest, sum(a.nbytes for a in preset.values())


class _Replay:
    """The inference of every step of a run, kept per shapes and types of the
    feeds, so that a later run on feeds of the same shapes skips each layer's
    inference (its signature costs a few µs a layer, as much as a small
    kernel).  Only where that is sound: every input whose value an op's
    inference reads comes from a Const, a ShapeOf or shape arithmetic on them
    (never from the data), and every inferred output shape is static (no
    NonZero-like op), so each layer's input shapes, types and read values
    follow from the feeds' shapes and types alone."""

    LIMIT = 16  # feed signatures kept; a caller feeding ever new shapes starts over

    def __init__(self, model: Model, steps: list[Step]) -> None:
        self.steps = steps
        folded = _folded(model)
        settled = folded.foldable | folded.shape_of | folded.shape_derived
        self.sound = all(src is None or src[0] in settled
                         for _, _, op, sources, *_ in steps
                         for i, src in enumerate(sources) if op.input_spec(i).value)
        self.runs: dict[tuple, list[Inference | None]] = {}

    def key(self, bound: Mapping[int, np.ndarray]) -> tuple | None:
        return tuple([(lid, a.shape, a.dtype) for lid, a in bound.items()]) if self.sound else None

    def keep(self, key: tuple, inferences: list[Inference | None]) -> None:
        if any(inf is not None and inf.output_nbytes is None for inf in inferences):
            return  # an output shape found only by computing it: later runs may differ
        if len(self.runs) >= self.LIMIT:
            self.runs.clear()
        self.runs[key] = inferences


def _execute(model: Model, steps: list[Step], bound: Mapping[int, np.ndarray], limit: int, on_layer: LayerHook | None,
             keep_all: bool, preset: Mapping[tuple[int, int], np.ndarray] | None = None, preset_bytes: int = 0,
             replay: _Replay | None = None, outside: int = 0,
             ) -> tuple[dict[tuple[int, int], np.ndarray], dict[int, np.ndarray], dict[int, float], list[Diagnostic]]:
    """Run the steps, starting from the tensors in ``preset``; every tensor is
    released after its last reader unless ``keep_all``.  The loop every run
    and every sub-graph iteration goes through, so it does per layer only
    what a run needs.  ``outside``: bytes a body's caller already uses, the
    arrays in ``bound`` among them."""
    folded = _folded(model)
    kept, foldable, shapes_ok = folded.outputs, folded.foldable, folded.shapes_ok
    shape_of, derived, derived_outs = folded.shape_of, folded.shape_derived, folded.derived
    signature = 0  # of the shapes seen so far in this run (see _Folded)
    values: dict[tuple[int, int], np.ndarray] = dict(preset) if preset else {}
    results: dict[int, np.ndarray] = {}
    times: dict[int, float] = {}  # of the layers stepped through
    warnings: list[Diagnostic] = []
    # bytes of `values` and `results`, the fold cache and `outside`, aliases
    # counted twice: an upper bound
    held = preset_bytes + folded.nbytes + outside
    if outside:
        held -= sum(a.nbytes for a in bound.values())  # counted by the caller, added again as the Parameters step
    clock = time.perf_counter
    shown = keep_all or reads_values(on_layer)  # every output must be real, not a stand-in
    run_key = replay.key(bound) if replay is not None else None
    known = replay.runs.get(run_key) if replay is not None and run_key is not None else None
    inferences = known if known is not None else [None] * len(steps)
    with blas.limited():
        for index, (lid, layer, op, sources, frees, is_result, unread, ports) in enumerate(steps):
            start = clock()
            outs = bound.get(lid)
            if outs is not None:
                outs = [outs]
            else:
                outs = kept.get(lid)
                if outs is None and lid in derived:
                    outs = derived_outs.get((lid, signature))
                if outs is None:
                    keep = lid in foldable or lid in derived  # kept outputs must be real, not stand-ins
                    cached = folded.nbytes
                    outs, inferences[index] = _compute(model, layer, op, [values[src] for src in sources], values,
                                                       results, limit, held, None if shown or keep else unread,
                                                       inferences[index], outside, bound)
                    held += folded.nbytes - cached  # the fold cache let go to make room
                    if lid in foldable:
                        held += folded.offer(model, lid, outs, limit)
                    elif lid in derived:
                        folded.keep_derived(lid, signature, outs)
                    elif lid in shape_of:
                        signature = folded.signature(signature, lid, outs[0])
            elapsed = times[lid] = clock() - start
            if is_result:
                results[lid] = outs[0]
                held += outs[0].nbytes
            for (key, dims), arr in zip(ports, outs):
                values[key] = arr
                held += arr.nbytes
                if arr.shape != dims and (lid, key[1], arr.shape) not in shapes_ok:
                    _note_undeclared_shape(model, layer, key[1], arr.shape, warnings, shapes_ok)
            if on_layer is not None:
                on_layer(layer, outs, elapsed)
            if not keep_all:
                for src in frees:
                    gone = values.pop(src, None)
                    if gone is not None:
                        held -= gone.nbytes
    if replay is not None and run_key is not None and known is None:
        replay.keep(run_key, inferences)
    return values, results, times, warnings


def _plan_run(model: Model, stop_at: str | None, outputs: Sequence[str] | None) -> RunPlan:
    stop_layer: Layer | None = None
    names: dict[int, str] = {}
    if stop_at is not None:
        stop_layer = model.find_layer(stop_at)
        if stop_layer is None:
            raise UsageError(f"--stop-at {stop_at!r} names no layer (give a layer id or name)", code="unknown-name", file=model.path)
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
    live, order = _execution_order(model, targets + sinks)
    keep = {stop_layer.id} if stop_layer is not None else set()
    reads = tuple((lid, op.variable, bool(model.layers[lid].inputs)) for lid in order
                  if isinstance(op := model.ops[lid], (ReadValue3, ReadValue6)) and op.variable is not None)
    writes = tuple((lid, model.ops[lid].variable_id) for lid in sinks if isinstance(model.ops[lid], AssignOp))  # type: ignore[union-attr]
    return RunPlan(stop_layer, names, targets, live, _steps(model, order, keep), reads=reads, writes=writes)


def _steps(model: Model, order: list[int], keep: set[int]) -> list[Step]:
    """The run plan's steps; a tensor is freed by its last reader, except the
    outputs of the layers in ``keep``."""
    folded = _folded(model)
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

    return [(lid, model.layers[lid], folded.op(lid), sources[lid], tuple(frees.get(lid, ())),  # type: ignore[misc]
             isinstance(model.ops[lid], Result1), unread(lid),
             tuple(((lid, i), port.dims) for i, port in enumerate(model.layers[lid].outputs))) for lid in order]


def _execution_order(model: Model, targets: list[int]) -> tuple[set[int], list[int]]:
    """The layers ``targets`` depend on, and them in run order; refused when one cannot run."""
    live = live_layers(model, targets)
    order = [lid for lid in model.graph.order if lid in live]
    refuse_missing_ops(model, order)
    return live, order


# Non-deterministic ops are never folded, even on constant inputs.
# Nor are a stateful model's ReadValue and Assign: a variable's value changes between runs.
_NOT_FOLDED = frozenset({"RandomUniform", "Multinomial", "ReadValue", "Assign"})
# At most this many bytes of folded tensors are kept per model, and at most
# this share (1/FOLD_SHARE) of a run's memory limit.
FOLD_BYTES = 1 << 30
FOLD_SHARE = 8
# At most this many bytes of shape-derived tensors (see _Folded).
DERIVED_BYTES = 64 << 20


class _Folded:
    """What every run of a model shares, kept on the model: the outputs of
    layers computed from Consts alone (the f16 weights -> Convert -> f32 of a
    saved model), kept after their first run so later runs skip them, as
    OpenVINO folds them when compiling; the run order per set of targets; the
    Parameters by name."""

    def __init__(self, model: Model) -> None:
        self.graph = model.graph
        self.model_ops = model.ops
        # weight decompression chains: their last layer computes the chain in f32 from its Consts
        chains = decompression.find(model)
        self.rewired: dict[int, tuple[list[tuple[int, int]], Op]] = {
            end: (chain.leaves, decompression.DecompressionChain(model, chain)) for end, chain in chains.items()}
        # unpacked low-bit weights that only their chains read: not kept, the chain's value is
        in_chains = {lid for chain in chains.values() for lid in chain.layers}
        self.chain_only = {src[0] for chain in chains.values() for src in chain.leaves
                           if getattr(model.ops[src[0]], "element_type", None) is not None
                           and model.ops[src[0]].element_type.packed  # type: ignore[union-attr]
                           and all(reader in in_chains for reader, _ in model.graph.consumers.get(src, []))}
        const: set[int] = set()
        for lid in model.graph.order:
            op = model.ops[lid]
            if isinstance(op, Const1):
                const.add(lid)
            elif (op is not None and model.layers[lid].type not in _NOT_FOLDED and not isinstance(op, Result1)
                  and model.layers[lid].inputs
                  and all(src is not None and src[0] in const for src in self.inputs_of(lid))):
                const.add(lid)
        self.foldable = const
        self.outputs: dict[int, list[np.ndarray]] = {}
        self.nbytes = 0
        self.dropped = False  # the cache gave way to a run once: Consts only from then on
        self.model_ops = model.ops
        self.full = False  # some foldable layer's outputs were too big to keep
        # Layers computed from the output of ShapeOf layers (and Consts) alone:
        # the shape arithmetic of a converted model (ShapeOf -> Gather -> Concat,
        # Range...), the same for every run on inputs of the same shapes.  Their
        # outputs are kept per "shape signature": the values every ShapeOf
        # before them in the run order gave (see _execute).
        self.shape_of = {lid for lid in model.graph.order if model.ops[lid] is not None and model.layers[lid].type == "ShapeOf"}
        derived: set[int] = set()
        for lid in model.graph.order:
            op = model.ops[lid]
            if (op is None or lid in const or lid in self.shape_of or isinstance(op, Result1)
                    or model.layers[lid].type in _NOT_FOLDED or not model.layers[lid].inputs):
                continue
            srcs = self.inputs_of(lid)
            if all(s is not None and (s[0] in derived or s[0] in const or s[0] in self.shape_of) for s in srcs):
                derived.add(lid)
        self.shape_derived = derived
        self.signatures: dict[tuple[int, int, bytes], int] = {}
        self.derived: dict[tuple[int, int], list[np.ndarray]] = {}
        self.derived_nbytes = 0
        self.runs: dict[tuple, RunPlan] = {}
        # (layer id, output index, shape) found to agree with the declared dims
        self.shapes_ok: set[tuple[int, int, tuple[int, ...]]] = set()
        self.parameters = model.parameters
        self.params_by_name: dict[str, Layer] | None = None

    def inputs_of(self, lid: int) -> list[tuple[int, int] | None]:
        """The tensors a layer reads in a run (a decompression chain's last layer reads the chain's Consts)."""
        found = self.rewired.get(lid)
        return list(found[0]) if found is not None else self.graph.inputs_of(lid)

    def op(self, lid: int) -> Op | None:
        found = self.rewired.get(lid)
        return found[1] if found is not None else self.model_ops[lid]

    def remember(self, key: tuple, plan: RunPlan) -> None:
        if len(self.runs) > 16:
            self.runs.clear()  # a caller asking for ever new targets: keep the cache small
        self.runs[key] = plan

    def offer(self, model: Model, lid: int, outs: list[np.ndarray], limit: int) -> int:
        """Keep a folded layer's outputs for later runs, within FOLD_BYTES and an
        eighth of the run's memory limit: the rest of a run must fit beside them
        (a weight that does not fit is computed again by each run).  The bytes it
        now holds (the cache counts against --max-memory like any tensor)."""
        if lid not in self.foldable or lid in self.chain_only:
            return 0
        size = 0 if self._mapped(lid) else sum(a.nbytes for a in outs)
        if self.nbytes + size > min(FOLD_BYTES, limit // FOLD_SHARE) or self.dropped and size:
            self.full = True
            return 0
        for a in outs:
            a.flags.writeable = False  # shared by every later run
        self.outputs[lid] = outs
        self.nbytes += size
        return size

    def _mapped(self, lid: int) -> bool:
        """A Const is a view of the mapped weights, no memory of its own, unless unpacked from a low-bit type."""
        op = self.model_ops[lid]
        return isinstance(op, Const1) and not op.element_type.packed

    def drop(self) -> bool:
        """Let go of every kept output that has memory of its own, for good: a
        run that needs the room comes first (the cache counts against
        --max-memory like any tensor).  Whether there was anything to drop."""
        if not self.nbytes:
            return False
        for lid in [lid for lid in self.outputs if not self._mapped(lid)]:
            del self.outputs[lid]
        self.nbytes = 0
        self.dropped = self.full = True
        for plan in self.runs.values():
            plan.compact = None  # its preset holds kept outputs
        return True


    def signature(self, before: int, lid: int, shape: np.ndarray) -> int:
        """The shape signature after ShapeOf layer ``lid`` gave ``shape``."""
        key = (before, lid, shape.tobytes())
        found = self.signatures.get(key)
        if found is None:
            if len(self.signatures) > 4096:  # ever new shapes: start over
                self.signatures.clear()
                self.derived.clear()
                self.derived_nbytes = 0
            found = self.signatures[key] = len(self.signatures) + 1
        return found

    def keep_derived(self, lid: int, signature: int, outs: list[np.ndarray]) -> None:
        size = sum(a.nbytes for a in outs)
        if self.derived_nbytes + size > DERIVED_BYTES:
            return
        for a in outs:
            a.flags.writeable = False  # shared by every later run with these shapes
        self.derived[(lid, signature)] = outs
        self.derived_nbytes += size


# What every run of a model shares (folded Const-only layers, run orders), kept
# here for as long as the model lives.
_RUN_CACHE: weakref.WeakKeyDictionary[Model, _Folded] = weakref.WeakKeyDictionary()


def _folded(model: Model) -> _Folded:
    found = _RUN_CACHE.get(model)
    if found is None:
        found = _RUN_CACHE[model] = _Folded(model)
    return found


def _note_undeclared_shape(model: Model, layer: Layer, index: int, shape: tuple[int, ...], out: list[Diagnostic],
                           accepted: set[tuple[int, int, tuple[int, ...]]]) -> None:
    """A computed output whose shape the port's ``<dim>``s rule out.  OpenVINO
    never looks at them, so the run goes on; ``irexec check`` calls it an error.
    Shapes found to agree go into ``accepted``, so later runs skip the test."""
    port = layer.outputs[index]
    if declared_shape(port).accepts(shape):  # no <dim> at all reads as dynamic rank, which accepts any shape
        if len(accepted) > 100_000:
            accepted.clear()  # a model fed ever new shapes: keep the set small
        accepted.add((layer.id, index, shape))
        return
    code, checked_as = ("legacy-body-dims", "a warning") if model.legacy_body else ("shape-mismatch", "an error")
    out.append(Diagnostic(code, f"declared {declared_text(port)} but computed {format_shape(shape)}; the run goes on as "
                          f"OpenVINO's would (irexec check reports this as {checked_as})", WARNING,
                          **model.where(layer, port.id, "output", port.line)))


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


def _refuse_large_inputs(model: Model, bound: dict[int, np.ndarray], limit: int) -> None:
    total = sum(a.nbytes for a in bound.values())
    why = limits.over_limit(total, limit)
    if why:
        raise InputError(f"the inputs together {why}", code="memory-limit", file=model.path)


# Outputs of these ops take no new memory: a Const is a view of the mapped
# .bin, a Result passes its input through.
_NO_ALLOCATION = (Const1, Result1)

# Set (tests do) to hold every kernel's outputs to what inference said.
VERIFY_ENV = "IREXEC_VERIFY_KERNELS"
_verify = os.environ.get(VERIFY_ENV, "") not in ("", "0")


def _compute(model: Model, layer: Layer, op: Op, args: list[np.ndarray], values: Mapping[tuple[int, int], np.ndarray],
             results: Mapping[int, np.ndarray], limit: int, held: int, unread: frozenset[int] | None = None,
             inference: Inference | None = None, outside: int = 0,
             bound: Mapping[int, np.ndarray] | None = None) -> tuple[list[np.ndarray], Inference]:
    """Infer on the concrete inputs (cached per signature; ``inference`` when
    the caller knows it already), refuse an output over the memory limit, then
    run the kernel on the plan (told which outputs no layer reads, if any)."""
    try:
        if inference is None:
            inference = op.plan_for(args)
        need = inference.output_nbytes
        if (need is not None and need + held > limit) and not isinstance(op, _NO_ALLOCATION):
            refuse_over_memory_limit(model, layer, inference, values, results, limit, held, outside, bound)
        # what the kernel (and a body: its layers) may still allocate; a body makes the outputs itself
        in_use = held if need is None or op.family == "control" else held + need
        token = limits.IN_USE.set((limit, in_use))  # (limits.charged without a generator's cost per layer)
        try:
            outs = list(op.compute_unread(unread, inference.plan, *args) if unread else op.compute(inference.plan, *args))
        finally:
            limits.IN_USE.reset(token)
        # NumPy hands back scalars, not arrays, for many operations on 0-d arrays
        outs = [o if type(o) is np.ndarray else np.asarray(o) for o in outs]
    except IRExecError as e:
        raise type(e)(model.locate(e.diagnostics, layer)) from None
    except MemoryError:
        raise IRExecError("ran out of memory computing this layer", code="out-of-memory", **model.where(layer)) from None
    except Exception as e:  # a kernel bug, not the user's doing
        raise InternalError(f"{layer.display} layer {layer.id} {layer.name!r} failed: {type(e).__name__}: {e}") from e
    if _verify and not isinstance(op, Result1):
        verify_outputs(layer, inference.outputs, outs)
    return outs, inference


def verify_outputs(layer: Layer, infos: list[TensorInfo], outs: list[np.ndarray]) -> None:
    """A kernel whose outputs contradict its own inference is a bug, named here
    rather than blamed on the next layer."""
    if len(outs) != len(infos):
        raise InternalError(f"{layer.display} layer {layer.id} {layer.name!r}: kernel returned {len(outs)} outputs, "
                                f"inference said {len(infos)}")
    for k, (info, arr) in enumerate(zip(infos, outs)):
        if not isinstance(arr, np.ndarray) or arr.dtype != info.etype.dtype or not info.shape.accepts(arr.shape):
            got = f"{arr.dtype}{format_shape(arr.shape)}" if isinstance(arr, np.ndarray) else type(arr).__name__
            raise InternalError(f"{layer.display} layer {layer.id} {layer.name!r} output {k}: kernel returned {got}, "
                                f"inference said {info.etype.name}{info.shape}")


def refuse_over_memory_limit(
    model: Model,
    layer: Layer,
    inference: Inference,
    values: Mapping[tuple[int, int], np.ndarray],
    results: Mapping[int, np.ndarray],
    limit: int,
    held: int,
    outside: int = 0,
    bound: Mapping[int, np.ndarray] | None = None,
) -> None:
    """Before a kernel runs: refuse the layer (``memory-limit``) if its inferred
    outputs and the tensors still alive would exceed ``limit`` bytes.  Nothing
    is allocated to find out.  ``held`` is an upper bound of the live bytes, so
    the common case costs one sum."""
    need = inference.output_nbytes
    if need is None:
        return  # the op cannot say before computing (NonZero...); nothing to hold it to
    if need + held <= limit:
        return  # even counting the mapped Consts and any aliases twice, it fits
    alive = _alive(model, values, results, outside, bound)
    if need + alive > limit and _folded(model).drop():  # the fold cache gives way to the run
        alive = _alive(model, values, results, outside, bound)
    why = limits.over_limit(need + alive, limit)
    if why:
        shapes = ", ".join(f"{i.etype.name}{i.shape}" for i in inference.outputs)
        also = f" plus {limits.format_bytes(alive)} of tensors still in use" if alive else ""
        raise IRExecError(f"output {shapes}{also} {why}", code="memory-limit", **model.where(layer))


def _alive(model: Model, values: Mapping[tuple[int, int], np.ndarray], results: Mapping[int, np.ndarray],
           outside: int, bound: Mapping[int, np.ndarray] | None) -> int:
    """Exact bytes in use: each array once, mapped Consts not at all, the fold
    cache included; a body's feeds are in ``outside`` already."""
    distinct: dict[int, int] = {}
    for lid, outs in _folded(model).outputs.items():
        if not isinstance(model.ops[lid], Const1):
            for a in outs:
                distinct[id(a)] = a.nbytes
    for (src, _), a in values.items():
        if not isinstance(model.ops[src], _NO_ALLOCATION):
            distinct[id(a)] = a.nbytes
    for a in results.values():
        distinct[id(a)] = a.nbytes
    if outside and bound:
        for a in bound.values():
            distinct.pop(id(a), None)
    return outside + sum(distinct.values())


def _port_key(layer: Layer, index: int) -> str:
    port = layer.outputs[index]
    return port.names[0] if port.names else f"{layer.name}:{port.id}"


def run_bound(model: Model, bound: Mapping[int, np.ndarray], targets: Sequence[int],
              max_memory: int | None = None) -> dict[int, np.ndarray]:
    """Run the layers ``targets`` (Result layer ids) need, the Parameters given
    by layer id, and return each target's value: how a sub-graph op runs its
    body, through the same plans, loop and kernels as a model.  Inside a
    running layer (no ``max_memory``), the body runs under that layer's run:
    its limit, counting from the bytes the run already uses."""
    folded = _folded(model)
    key = ("bound", tuple(targets))
    plan = folded.runs.get(key)
    if plan is None:
        _, order = _execution_order(model, list(targets))
        plan = RunPlan(None, {}, list(targets), set(order), _steps(model, order, set()))
        folded.remember(key, plan)
    outer = limits.accounting() if max_memory is None else None
    limit, in_use = outer if outer is not None else (limits.resolve(max_memory), 0)
    _, results, _, _ = _execute(model, plan.steps, bound, limit, None, False, replay=plan.replay(model, plan.steps),
                                outside=in_use)
    return {lid: results[lid] for lid in targets}
