"""A program for feeds whose shapes grow with one length: a causal LM's decode steps.

A decode step feeds a KV cache of L positions and an attention mask of L + 1, so its
signature never recurs within one generation and a program per signature (program.py)
never serves it.  A pattern takes the place of the signature: every feed dim is
``slope * n + offset`` in one length n (the first dim that moved).  It is learnt from the
programs of three plain runs of one shape class (the feeds' ranks and types) at three
lengths: the first two fit each feed dim and the bytes in use at each call as affine in n,
the third must agree exactly, or there is no pattern.

Nothing else is taken from the fit.  A layer keeps its recorded plan only where what its
inference reads is the same at every length: the shapes of its inputs and the values of
those it reads (a Reshape's target) come from Consts, feeds whose dims do not move, or
such layers.  Every other layer runs on every run, shape arithmetic included, on the plan
its op infers for the inputs it gets (``Op.plan_for``), kept per length.  Where the three
lengths agreed on such a layer's output shapes or shape values, later layers take them as
fixed, and the first run at each new length holds the layer to them: one that moved (a
``min(n, window)`` that stops growing) drops the run to the layer loop, and the pattern.

The memory limit is held as a program holds it: the most bytes in use at any call, a
maximum of affine functions of n, is taken before the run, and a run that could pass the
limit goes through the layer loop, which refuses exactly where it would have.  The fit is
held to the run: the first run at a length checks that every layer planned again makes
outputs of the bytes its own affine fit says, or the run goes to the loop."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

import numpy as np

from ..base.errors import Diagnostic
from ..ir.records import Layer
from ..ops.framework.base import Inference, Op
from . import layer as layer_module
from . import program as program_module
from .plan import Replay, Step
from .program import Program
from .program_calls import COMPUTE, FREES, IS_RESULT, LID, PLAN, READS, USED, VERIFY, WRITES, freeing_also

# Patterns kept per replay, and plain runs of one shape class recorded before giving up on it.
PATTERNS = 4
ATTEMPTS = 32
# Lengths whose inferences a pattern keeps.
KNOWN = 64
# The plan of a call planned again on every run.
_AGAIN = object()

# (layer id, dtype, per dim (slope, offset)) of each feed, in the order the feeds are bound
_Entry = tuple[int, np.dtype, tuple[tuple[int, int], ...]]

_served = 0


def served() -> int:
    """How many runs patterns have served in this process (what tests look at)."""
    return _served


class Pattern:
    """A program whose feed dims and memory in use are affine in one length."""

    __slots__ = ("entries", "symbol", "program", "used_base", "used_slope", "plain", "again", "known", "moved")

    def __init__(self, entries: list[_Entry], symbol: tuple[int, int], program: Program, used_base: np.ndarray,
                 used_slope: np.ndarray, plain: list[Any]) -> None:
        self.entries = entries
        self.symbol = symbol  # (layer id, axis) of the feed dim that is n
        self.program = program  # the calls, and the tensors that are the same at every length
        self.used_base = used_base
        self.used_slope = used_slope
        self.plain = plain  # per call planned again: its kernel without the planning around it
        self.again = [i for i, call in enumerate(program.calls) if call[PLAN] is _AGAIN]
        # per length seen once: each call's plan, those planned again as inferred at that length
        # (their inputs' shapes and read values follow from the feeds' shapes, as a replay's do)
        # and the values of the shape arithmetic made there; per length seen again: its program
        self.known: dict[int, list[Any] | Program] = {}
        self.moved = False  # a run found a shape or value taken as fixed to move

    def length(self, bound: Mapping[int, np.ndarray]) -> int | None:
        """The length n the feeds follow the pattern at, or None."""
        if len(bound) != len(self.entries):
            return None
        lid, axis = self.symbol
        first = bound.get(lid)
        if first is None or len(first.shape) <= axis:
            return None
        n = first.shape[axis]
        for lid, dtype, dims in self.entries:
            a = bound.get(lid)
            if a is None or a.dtype != dtype or len(a.shape) != len(dims):
                return None
            for d, (slope, offset) in zip(a.shape, dims):
                if d != slope * n + offset or slope and d < 1:  # a dim that moves is never empty
                    return None
        return n

    def run(self, model: Any, bound: Mapping[int, np.ndarray], limit: int, start: int, n: int,
            ) -> tuple[dict[tuple[int, int], np.ndarray], dict[int, np.ndarray], dict[int, float], list[Diagnostic]] | None:
        """The run at length ``n``, or None where it could pass the limit (the layer loop refuses)."""
        global _served
        found = self.known.get(n)
        if isinstance(found, Program):
            if not found.fits(start, limit):
                return None
            _served += 1
            return found.run(model, bound, limit, start)
        used = self.used_base + self.used_slope * n
        if start + int(used.max(initial=0)) > limit:
            return None
        if found is not None:  # seen once: from now on a program of this length, as per signature
            program = self.known[n] = self._at(found, used.tolist())
            _served += 1
            return program.run(model, bound, limit, start)
        plans = list(self.program.plans)
        for i in self.again:
            plans[i] = [n]  # the length; the call puts its inference in its place
        try:
            ran = self.program.run(model, bound, limit, start, None, used.tolist(), plans)
        except program_module.Moved:
            self.moved = True  # the loop makes this run; the pattern is dropped
            return None
        _served += 1
        if len(self.known) >= KNOWN:
            self.known.clear()
        self.known[n] = plans
        return ran

    def _at(self, plans: list[Any], uses: list[int]) -> Program:
        """The program of one length: each call on its plan there, the shape arithmetic as its values."""
        template = self.program.template.copy()
        calls: list[Any] = []
        for call, plan, plain, used in zip(self.program.calls, plans, self.plain, uses):
            if plain is None:
                calls.append(call[:USED] + (used,) + call[USED + 1:])
            elif len(plan) > 1:  # shape arithmetic: its values at this length
                for slot, out in zip(call[WRITES], plan[1]):
                    template[slot] = out
                if calls and call[FREES]:  # what it was the last to read goes once the call before it has run
                    calls[-1] = freeing_also(calls[-1], call[FREES])
            else:
                verify = plan[0].outputs if layer_module.verifying() and not call[IS_RESULT] else None
                calls.append(call[:COMPUTE] + (plain, plan[0].plan) + call[READS:USED] + (used, call[IS_RESULT], verify))
        return Program(template, self.program.fed, calls, max(uses, default=0), self.program.ends, [])


def match(replay: Replay, bound: Mapping[int, np.ndarray]) -> tuple[Pattern, int] | None:
    """The replay's pattern the feeds follow, and their length, or None."""
    for pattern in replay.patterns:
        if pattern.moved:
            replay.patterns.remove(pattern)
            return None
        n = pattern.length(bound)
        if n is not None:
            return pattern, n
    return None


def shape_class(key: tuple) -> tuple:
    return tuple([(lid, len(shape), dtype) for lid, shape, dtype in key])


def learning(replay: Replay, key: tuple) -> bool:
    """Whether a plain run on a new signature should be recorded to learn a pattern from."""
    return len(replay.patterns) < PATTERNS and replay.attempts.get(shape_class(key), 0) < ATTEMPTS


def learn(replay: Replay, key: tuple, make: Callable[[], Program | None], record: program_module.Recorder,
          steps: list[Step], inferences: Sequence[Inference | None]) -> None:
    """Take a plain run at a new signature (``make`` builds its program); with the two before it
    in its shape class, make a pattern where they fit one.  The first run of a class is only
    kept, its program built once another signature of the class comes: a model fed one
    signature never builds one for nothing."""
    cls = shape_class(key)
    replay.attempts[cls] = replay.attempts.get(cls, 0) + 1
    seen = replay.learnt.setdefault(cls, [])
    for i, outs in enumerate(record.outs):  # what the run handed out may change before the build
        if outs is not None and any(isinstance(o, np.ndarray) and o.flags.writeable for o in outs):
            record.outs[i] = [_frozen(o) for o in outs]
    seen.append([key, make, record, {step.lid: inf for step, inf in zip(steps, inferences) if inf is not None}])
    if len(seen) > 3:
        del seen[0]
    if len(seen) < 2:
        return
    for i, entry in enumerate(seen):
        if not isinstance(entry[1], Program):
            program = entry[1]()
            if program is None:  # no program at this length: the three must be consecutive
                del seen[:i + 1]
                return
            program.slots, program.held_at = entry[2].slots, entry[2].held_at
            entry[1] = program
    if len(seen) == 3:
        found = fit([(k, p, i) for k, p, _, i in seen], steps)
        if found is not None:
            replay.patterns.append(found)
            replay.attempts[cls] = 0  # the runs that fit nothing (prefills) count anew
            seen.clear()


def _frozen(out: Any) -> Any:
    if isinstance(out, np.ndarray) and out.flags.writeable:
        out = out.copy()
        out.flags.writeable = False
    return out


def fit(seen: list[tuple[tuple, Program, dict[int, Inference]]], steps: list[Step]) -> Pattern | None:
    """The pattern three programs at three lengths follow, or None: the calls in run order, each
    keeping its plan where what its inference reads is the same at every length, every other
    layer (shape arithmetic among them) planned again on each run (see the module's note)."""
    (k1, p1, i1), (k2, p2, i2), (k3, p3, i3) = seen
    found = _feed_dims(k1, k2, k3)
    if found is None:
        return None
    entries, symbol, lengths = found
    if p1.warnings or p2.warnings or p3.warnings or not _same_layout(p1, p2) or not _same_layout(p1, p3):
        return None
    slot_of = p1.slots
    fed = {lid for lid, _ in p1.fed}
    # the tensors whose value is the same at every length: the preset ones (the same arrays in the
    # three runs) and shape arithmetic on them; and those whose shape is: these and the feeds none
    # of whose dims moves, and the outputs of layers that keep their plan
    values = {key for key, slot in slot_of.items() if key[0] not in fed and key[0] not in p1.held_at
              and p1.template[slot] is not None and p1.template[slot] is p2.template[slot] is p3.template[slot]}
    shapes = values | {(lid, 0) for lid, _, dims in entries if not any(slope for slope, _ in dims)}
    template = list(p1.template)
    by_lid = {call[LID]: [call, p2.calls[i], p3.calls[i]] for i, call in enumerate(p1.calls)}
    calls: list[Any] = []
    plain: list[Any] = []  # per call planned again, its kernel alone (None: a call that keeps its plan)
    used: list[list[int]] = []
    for step in steps:
        lid = step.lid
        if lid in fed:
            continue
        infs = [inferences.get(lid) for inferences in (i1, i2, i3)]
        if lid in p1.held_at:  # shape arithmetic: a ShapeOf (it reads a shape), or a layer of their values
            if all(src in (shapes if step.op.shape_only else values) for src in step.sources):
                values.update(key for key, _ in step.ports)
                shapes.update(key for key, _ in step.ports)
                if calls:  # what it was the last to read goes once the call before it has run
                    calls[-1] = freeing_also(calls[-1], tuple(slot_of[src] for src in step.frees))
                continue
            if any(inf is None or inf.data_sized or inf.charge is None for inf in infs):
                return None
            made = [p.template[slot_of[key]] for p in (p1, p2, p3) for key, _ in step.ports]
            same = None  # its values where the three lengths gave the same: later calls take them as fixed
            if all(isinstance(a, np.ndarray) for a in made):
                width = len(step.ports)
                if all(a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
                       for a, b in zip(made[:width] * 2, made[width:])):
                    same = tuple(made[:width])
                    values.update(key for key, _ in step.ports)
                    shapes.update(key for key, _ in step.ports)
            for key, _ in step.ports:
                template[slot_of[key]] = None  # made on every run
            charged = _charge(infs, lengths)
            if charged is None:
                return None
            again = partial(_replanned, step.op, step.layer, step.op.compute, layer_module.verifying(), None, same, True,
                            charged)
            plain.append(step.op.compute)
            calls.append((lid, step.layer, again, _AGAIN, tuple(slot_of[src] for src in step.sources),  # type: ignore[index]
                          tuple(slot_of[key] for key, _ in step.ports), tuple(slot_of[src] for src in step.frees), 0,
                          False, None))
            used.append([p.held_at[lid] + inf.charge for p, inf in zip((p1, p2, p3), infs)])  # type: ignore[union-attr,operator]
            continue
        # a kernel keeps its plan where what its inference reads is the same at every length
        unmoved = all(src in (values if step.op.input_spec(i).value else shapes) for i, src in enumerate(step.sources))
        three = by_lid.get(lid)
        if three is None:
            return None
        call = three[0][:FREES] + (tuple(slot_of[src] for src in step.frees),) + three[0][FREES + 1:]
        used.append([c[USED] for c in three])
        if unmoved and infs[0] is not None and infs[0] is infs[1] is infs[2]:
            shapes.update(key for key, _ in step.ports)
            calls.append(call)
            plain.append(None)
            continue
        compute: Any = call[COMPUTE]  # its inputs may move: planned again on every run, held to that plan in tests
        cut = isinstance(compute, partial) and compute.func is program_module.cut_first
        fixed = _shapes(infs[0])
        if fixed is None or fixed != _shapes(infs[1]) or fixed != _shapes(infs[2]):
            fixed = None
        else:  # its outputs' shapes did not move: later calls take them as fixed
            shapes.update(key for key, _ in step.ports)
        plain.append(call[COMPUTE])
        charged = _charge(infs, lengths)
        if charged is None:
            return None
        compute = partial(_replanned, step.op, step.layer, compute.args[0] if cut else compute, call[VERIFY] is not None,
                          fixed, None, False, charged)
        if cut:  # the head of a last-position run: planned on its cut input
            compute = partial(program_module.cut_first, compute)
        calls.append(call[:COMPUTE] + (compute, _AGAIN) + call[READS:VERIFY] + (None,))
    if len(used) != len(calls) or not calls:
        return None
    u1, u2, u3 = (np.array(column, np.int64) for column in zip(*used))
    line = _affine(u1, u2, u3, *lengths)
    if line is None:
        return None
    program = Program(template, p1.fed, calls, p1.peak, p1.ends, [])
    return Pattern(entries, symbol, program, line[0], line[1], plain)


def _replanned(op: Op, layer: Layer, compute: Callable[..., Sequence[np.ndarray]], verify: bool,
               shapes: tuple | None, values: tuple | None, keep: bool, charge: tuple[int, int], known: list[Any],
               *args: np.ndarray) -> Sequence[np.ndarray]:
    """A kernel call, at the first run at a length (``known``: [the length], where the call puts
    the inference it makes, then the values of shape arithmetic), on the plan its op infers for
    these inputs.  ``charge``: the bytes its outputs took at the three lengths, affine in n, which
    the pattern's memory bound rests on; ``shapes``, ``values``: what its outputs were at the
    three lengths, which later calls take as fixed.  One that moved: the run goes to the loop."""
    n = known[0]
    inference = op.plan_for(args)
    if inference.charge != charge[0] + charge[1] * n or shapes is not None and _shapes(inference) != shapes:
        raise program_module.Moved
    outs = compute(inference.plan, *args)
    if values is not None and not all(
            isinstance(o, np.ndarray) and o.dtype == v.dtype and o.shape == v.shape and np.array_equal(o, v)
            for o, v in zip(outs, values)):
        raise program_module.Moved
    if verify:
        layer_module.verify_outputs(layer, inference.outputs,
                                    [o if isinstance(o, np.ndarray) else np.asarray(o) for o in outs])
    known[0] = inference
    if keep:  # shape arithmetic: its values at this length, for later runs at it
        outs = [np.asarray(o) for o in outs]
        for o in outs:
            o.flags.writeable = False
        known.append(outs)
    return outs


def _charge(infs: Sequence[Inference | None], lengths: tuple[int, int, int]) -> tuple[int, int] | None:
    """(offset, slope) of the bytes a layer's outputs took at the three lengths, or None where not affine."""
    charges = [None if inf is None else inf.charge for inf in infs]
    if any(c is None for c in charges):
        return None
    c1, c2, c3 = (np.array([c], np.int64) for c in charges)
    line = _affine(c1, c2, c3, *lengths)
    return None if line is None else (int(line[0][0]), int(line[1][0]))


def _shapes(inference: Inference | None) -> tuple | None:
    """The output shapes of an inference, or None where one is not static."""
    if inference is None or not all(o.shape.is_static for o in inference.outputs):
        return None
    return tuple(o.shape.to_tuple() for o in inference.outputs)


def _feed_dims(k1: tuple, k2: tuple, k3: tuple) -> tuple[list[_Entry], tuple[int, int], tuple[int, int, int]] | None:
    """Each feed dim as (slope, offset) in the first dim that moved, the three lengths, or None."""
    symbol = next(((lid, axis) for (lid, s1, _), (_, s2, _) in zip(k1, k2)
                   for axis, (d1, d2) in enumerate(zip(s1, s2)) if d1 != d2), None)
    if symbol is None:
        return None
    index = [lid for lid, _, _ in k1].index(symbol[0])
    n1, n2, n3 = (k[index][1][symbol[1]] for k in (k1, k2, k3))
    if len({n1, n2, n3}) < 3:
        return None
    entries: list[_Entry] = []
    for (lid, s1, dtype), (_, s2, _), (_, s3, _) in zip(k1, k2, k3):
        dims = []
        for d1, d2, d3 in zip(s1, s2, s3):
            slope, rest = divmod(d2 - d1, n2 - n1)
            if rest or d1 + slope * (n3 - n1) != d3:
                return None
            dims.append((slope, d1 - slope * n1))
        entries.append((lid, dtype, tuple(dims)))
    return entries, symbol, (n1, n2, n3)


def _affine(v1: np.ndarray, v2: np.ndarray, v3: np.ndarray, n1: int, n2: int, n3: int,
            ) -> tuple[np.ndarray, np.ndarray] | None:
    """(offset, slope) integer arrays with v = offset + slope * n at the three lengths, or None."""
    slope, rest = np.divmod(v2 - v1, n2 - n1)
    if rest.any() or not np.array_equal(v1 + slope * (n3 - n1), v3):
        return None
    return v1 - slope * n1, slope


def _same_layout(a: Program, b: Program) -> bool:
    """Whether two programs call the same kernels on the same slots."""
    if len(a.template) != len(b.template) or a.fed != b.fed or a.ends != b.ends or len(a.calls) != len(b.calls):
        return False
    return all(x[LID] == y[LID] and x[READS:USED] == y[READS:USED] and x[IS_RESULT] == y[IS_RESULT]
               for x, y in zip(a.calls, b.calls))
