"""Running a model: feeds checked against the Parameters, layers executed in
topological order, every intermediate released after its last consumer."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from ..base import limits
from ..base.errors import WARNING, Diagnostic
from ..base.shapes import format_shape
from ..ir.declared import declared_shape, declared_text
from ..ir.records import Layer
from ..kernels.compressed_linear import StandIn
from ..model.binding import Model
from ..model.naming import output_names, port_key
from ..ops.framework.base import Inference
from ..ops.io import Result1
from ..system import blas
from . import compressed_weights
from . import program as program_module
from . import program_pattern as pattern_module
from .cache import run_cache
from .feeds import bind_feeds, bind_variables
from .last_position import find_head
from .last_position import last_position as last_position_of
from .layer import compute_layer
from .memory import own_bytes, refuse_large_inputs
from .plan import Replay, RunPlan, Step
from .schedule import compact_steps, execution_order, plan_run, plan_steps

# Called after each layer with (layer, its output arrays, seconds spent).
# A hook with ``reads_values = False`` looks at shapes only, so an output no
# layer reads may reach it as a stand-in (see Op.compute_unread).  A hook with
# ``keeps`` (a set of layer ids) holds on to those layers' outputs: the run
# keeps them alive to its end, so they count against its memory limit.
LayerHook = Callable[[Layer, list[np.ndarray], float], None]


def reads_values(hook: LayerHook | None) -> bool:
    return hook is not None and getattr(hook, "reads_values", True)


@dataclass
class RunResult:
    outputs: dict[str, np.ndarray]
    times: dict[int, float] = field(default_factory=dict)  # layer id -> seconds
    stopped_at: Layer | None = None
    warnings: list[Diagnostic] = field(default_factory=list)  # computed shapes the file declares otherwise
    # what the Assigns of a stateful model received, by variable_id: the state after the run
    state: dict[str, np.ndarray] = field(default_factory=dict)


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
    last_position: str | None = None,
) -> RunResult:
    """Execute the model.  ``stop_at`` (layer id or name) ends the run there and
    returns that layer's outputs; ``keep_all`` keeps intermediates alive for hooks.
    ``max_memory`` bounds the bytes of live tensors (default: limits.default_max_memory()).
    ``state``: the value of each variable of a stateful model by variable_id; a
    variable it lacks reads its initial value.  Every Assign executes (unless
    ``stop_at``) and ``RunResult.state`` holds what each one received.
    ``last_position``: an output of a causal LM's logits [batch, positions, vocabulary] of which
    only the last position is wanted; where its head product can be found, only that position
    is computed and the output holds it alone (``last_position.py``)."""
    folded = run_cache(model)
    if stop_at is not None:
        last_position = None
    key = (stop_at, None if outputs is None else tuple(outputs), last_position)
    plan = folded.runs.get(key)
    if plan is None:
        plan = plan_run(model, stop_at, outputs)
        head = find_head(model, last_position) if last_position is not None else None
        # (a head computed from Consts or shapes alone is kept for every run, cut or not: left whole)
        if head is not None and head.matmul in plan.live and head.matmul not in folded.special:
            plan.head, plan.cut = head.matmul, head.cut
        folded.remember(key, plan)
    stop_layer = plan.stop_layer
    bound = bind_feeds(model, feeds, plan.live)
    pre = model.pre_process
    if pre is not None and pre.parameter in bound:  # as OpenVINO's reader inserts it: input - mean, before any layer
        bound[pre.parameter] = pre.apply(bound[pre.parameter])
    limit = limits.resolve(max_memory)
    refuse_large_inputs(model, bound, limit)
    if plan.reads:
        bind_variables(model, plan, state or {}, bound, limit)
    steps, preset, preset_bytes = plan.steps, None, 0
    keeps = getattr(on_layer, "keeps", None) if on_layer is not None and not keep_all else None
    if keeps:
        steps = plan.keeping(frozenset(keeps))
    # a hook that looks at times and shapes only (a profile, a progress bar) sees the run a
    # plain run makes: kept layers are not stepped through (a weight only its decompression
    # chain read would otherwise be unpacked again on every profiled run)
    if not reads_values(on_layer) and not keep_all and stop_layer is None:
        if plan.compact is None:
            plan.compact = compact_steps(model, plan)
        if isinstance(plan.compact, tuple):
            preset, steps, preset_bytes = plan.compact
    # a run that shows or returns values other than the outputs gets real weights, never a StandIn
    token = compressed_weights.REAL_WEIGHTS.set(keep_all or reads_values(on_layer) or stop_layer is not None)
    try:
        values, results, times, warnings = _execute(model, steps, bound, limit, on_layer, keep_all, preset,
                                                    preset_bytes, plan.replay(steps, run_cache(model).settled),
                                                    head=plan.head, cut=plan.cut, plain=preset is not None)
    finally:
        compressed_weights.REAL_WEIGHTS.reset(token)
    if stop_layer is not None:
        if isinstance(model.ops[stop_layer.id], Result1):
            found = {output_names(model)[stop_layer.id]: results[stop_layer.id]}
        else:
            found = {port_key(stop_layer, i): values[(stop_layer.id, i)] for i in range(len(stop_layer.outputs))}
        return RunResult(_own(found), times, stop_layer, warnings, _assigned(plan, values))
    return RunResult(_own({plan.names[lid]: results[lid] for lid in plan.targets}), times, None, warnings,
                     _assigned(plan, values))


def _assigned(plan: RunPlan, values: Mapping[tuple[int, int], np.ndarray]) -> dict[str, np.ndarray]:
    """The value each executed Assign received, by variable_id."""
    return {vid: values[(lid, 0)] for lid, vid in plan.writes if (lid, 0) in values}


def _own(outputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The outputs, each one the caller may write to: a tensor kept for later
    runs (a Const, shape arithmetic) is read-only, so it is handed out as a copy."""
    return {k: a if a.flags.writeable else a.copy() for k, a in outputs.items()}


def _execute(model: Model, steps: list[Step], bound: Mapping[int, np.ndarray], limit: int, on_layer: LayerHook | None,
             keep_all: bool, preset: Mapping[tuple[int, int], np.ndarray] | None = None, preset_bytes: int = 0,
             replay: Replay | None = None, outside: int = 0, head: int = -1, cut: frozenset[int] = frozenset(),
             plain: bool = False,
             ) -> tuple[dict[tuple[int, int], np.ndarray], dict[int, np.ndarray], dict[int, float], list[Diagnostic]]:
    """Run the steps, starting from the tensors in ``preset``; every tensor is
    released after its last reader unless ``keep_all``.  The loop every run
    and every sub-graph iteration goes through, so it does per layer only
    what a run needs.  ``outside``: bytes a body's caller already uses, the
    arrays in ``bound`` among them.  ``head``: the layer whose first input is cut to its last
    position, ``cut``: the layers whose outputs then differ from their declared dims.
    ``plain``: a run from the kept layers' outputs with no hook, nothing kept and no stop,
    which a feed signature seen before runs as a program (program.py)."""
    folded = run_cache(model)
    kept, foldable, shapes_ok = folded.outputs, folded.foldable, folded.shapes_ok
    shape_of, derived, derived_outs = folded.shape_of, folded.shape_derived, folded.derived
    chain_readers, special = folded.chain_readers, folded.special
    real = compressed_weights.REAL_WEIGHTS.get()  # a kept StandIn is not served: the chain makes its weight
    signature = 0  # of the shapes seen so far in this run (see RunCache)
    values: dict[tuple[int, int], np.ndarray] = dict(preset) if preset else {}
    results: dict[int, np.ndarray] = {}
    times: dict[int, float] = {}  # of the layers stepped through
    warnings: list[Diagnostic] = []
    # bytes of `values` and `results`, the fold cache and `outside`, aliases
    # counted twice: an upper bound
    held = preset_bytes + folded.nbytes + outside
    if outside:
        held -= sum(own_bytes(a) for a in bound.values())  # counted by the caller, added again as the Parameters step
    clock = time.perf_counter
    shown = keep_all or reads_values(on_layer)  # every output must be real, not a stand-in
    run_key = replay.key(bound) if replay is not None else None
    known = replay.runs.get(run_key) if replay is not None and run_key is not None else None
    inferences: list[Inference | None] = known[0] if known is not None else [None] * len(steps)
    checked = known is not None  # the run replayed computed these shapes and checked them
    record, learn = None, False
    if plain and run_key is not None and not outside and on_layer is None and not keep_all:
        assert replay is not None
        program = replay.programs.get(run_key) if known is not None else None
        if program is not None and program.fits(held, limit):
            return program.run(model, bound, limit, held)
        # feeds whose dims grow with one length (a decode step's cache and mask): a pattern's program
        if program is None and replay.patterns and (found := pattern_module.match(replay, bound)) is not None:
            ran = found[0].run(model, bound, limit, held, found[1])
            if ran is not None:
                return ran
        if known is not None and run_key not in replay.programs:
            record = program_module.Recorder(held, folded.dropped)  # this run through the loop makes the program
        elif known is None and pattern_module.learning(replay, run_key):
            record, learn = program_module.Recorder(held, folded.dropped), True  # a pattern may be learnt from it
    with blas.limited():
        for index, (lid, layer, op, sources, frees, is_result, unread, ports) in enumerate(steps):
            start = clock()
            mark = held
            fed = bound.get(lid)
            outs: list[np.ndarray] | None
            if fed is not None:
                outs = [fed]
            else:
                # only a layer in ``special`` may be kept, derived or skipped; any other is computed
                outs, shown_only = None, False
                if lid in special:
                    outs = kept.get(lid)
                    # a run that reads values makes the weight a StandIn stands for, and keeps it to itself
                    shown_only = real and outs is not None and isinstance(outs[0], StandIn)
                    if shown_only:
                        outs = None
                    if outs is None and lid in derived:
                        outs = derived_outs.get((lid, signature))
                    if outs is None and lid in chain_readers and all(
                            end in kept and not (real and isinstance(kept[end][0], StandIn)) for end in chain_readers[lid]):
                        continue  # a packed weight whose chains' values are kept: nothing reads it any more
                if outs is None:
                    keep = lid in foldable or lid in derived  # kept outputs must be real, not stand-ins
                    cached = folded.nbytes
                    # a runnable layer reads a tensor on every input (the binding refuses a dangling one)
                    args = [values[src] for src in sources]  # type: ignore[index]
                    if lid == head:
                        args[0] = last_position_of(args[0])
                    outs, inferences[index] = compute_layer(model, layer, op, args, values, results, limit, held,
                                                            None if shown or keep else unread, inferences[index],
                                                            outside, bound)
                    held += folded.nbytes - cached  # the fold cache let go to make room
                    if lid in foldable and not shown_only:
                        held += folded.offer(model, lid, outs, limit)
                    elif lid in derived:
                        folded.keep_derived(lid, signature, outs)
                    elif lid in shape_of:
                        signature = folded.signature(signature, lid, outs[0])
            elapsed = times[lid] = clock() - start
            if record is not None:
                record.step(mark, fed is not None, outs if lid in shape_of or lid in derived else None)
            if is_result:
                results[lid] = outs[0]
                held += own_bytes(outs[0])
            for (key, dims), arr in zip(ports, outs):
                values[key] = arr
                held += own_bytes(arr)
                if not checked and arr.shape != dims and (lid, key[1], arr.shape) not in shapes_ok and lid not in cut:
                    _note_undeclared_shape(model, layer, key[1], arr.shape, warnings, shapes_ok)
            if on_layer is not None:
                token = limits.IN_USE.set((limit, held))  # what the hook makes is charged like a kernel's temporaries
                try:
                    on_layer(layer, outs, elapsed)
                finally:
                    limits.IN_USE.reset(token)
            if not keep_all:
                for src in frees:
                    gone = values.pop(src, None)
                    if gone is not None:
                        held -= own_bytes(gone)
    if known is not None:
        warnings = list(known[1])  # the findings of the run replayed
        # (not when the fold cache gave way during the run: the preset would hold what it let go)
        if record is not None and folded.dropped == record.dropped:
            assert replay is not None and run_key is not None and preset is not None
            replay.programs[run_key] = program_module.build(steps, preset, inferences, record,
                                                            folded.shape_of | folded.shape_derived, head, warnings)
    elif replay is not None and run_key is not None:
        replay.keep(run_key, inferences, warnings)
        if learn and record is not None and folded.dropped == record.dropped and preset is not None:
            sized = all(inf is None or inf.output_nbytes is not None for inf in inferences)
            fixed = folded.shape_of | folded.shape_derived
            pattern_module.learn(replay, run_key, partial(program_module.build, steps, preset, inferences, record, fixed,
                                                          head, list(warnings)) if sized else _nothing,
                                 record, steps, inferences)
    return values, results, times, warnings


def _nothing() -> None:
    """The program of a run that cannot have one."""
    return None


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


def run_bound(model: Model, bound: Mapping[int, np.ndarray], targets: Sequence[int],
              max_memory: int | None = None) -> dict[int, np.ndarray]:
    """Run the layers ``targets`` (Result layer ids) need, the Parameters given
    by layer id, and return each target's value: how a sub-graph op runs its
    body, through the same plans, loop and kernels as a model.  Inside a
    running layer (no ``max_memory``), the body runs under that layer's run:
    its limit, counting from the bytes the run already uses."""
    folded = run_cache(model)
    key = ("bound", tuple(targets))
    plan = folded.runs.get(key)
    if plan is None:
        _, order = execution_order(model, list(targets))
        plan = RunPlan(None, {}, list(targets), set(order), plan_steps(model, order, set()))
        folded.remember(key, plan)
    limit, in_use = limits.budget(max_memory)
    _, results, _, _ = _execute(model, plan.steps, bound, limit, None, False, replay=plan.replay(plan.steps, folded.settled),
                                outside=in_use)
    return {lid: results[lid] for lid in targets}
