"""A program for feeds whose shapes grow with one length: a causal LM's decode steps.

A decode step feeds a KV cache of L positions and an attention mask of L + 1, so its
signature never recurs within one generation and a program per signature (program.py)
never serves it.  A pattern takes the place of the signature: every feed dim is
``slope * n + offset`` in one length n (the first dim that moved).  It is learnt from
the programs of three plain runs of one shape class (the feeds' ranks and types) at
three lengths: the first two fit each dim, each value of shape arithmetic (the fixed
tensors) and the bytes in use at each kernel call as affine in n, the third must agree
exactly, or there is no pattern and every run goes through the layer loop as before.
A layer whose inference was the same at the three lengths keeps its plan; one whose
inputs moved is planned again on each run by its op (``Op.plan_for``, cached per input
signature as in the loop), so its kernel runs on the plan the loop would give it.

The memory limit is held as a program holds it: the most bytes in use at any call, a
maximum of affine functions of n, is taken before the run, and a run that could pass the
limit goes through the layer loop, which refuses exactly where it would have."""

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
    """A program whose feed dims, shape arithmetic and memory in use are affine in one length."""

    __slots__ = ("entries", "symbol", "program", "affine", "used_base", "used_slope", "again", "known")

    def __init__(self, entries: list[_Entry], symbol: tuple[int, int], program: Program,
                 affine: list[tuple[int, np.ndarray, np.ndarray, np.dtype]], used_base: np.ndarray,
                 used_slope: np.ndarray) -> None:
        self.entries = entries
        self.symbol = symbol  # (layer id, axis) of the feed dim that is n
        self.program = program  # the calls, and the template with the affine slots empty
        self.affine = affine  # (slot, offset, slope, dtype) of each fixed tensor that moves with n
        self.used_base = used_base
        self.used_slope = used_slope
        self.again = [i for i, call in enumerate(program.calls) if call[3] is _AGAIN]  # the calls planned again
        # per length seen: each call's plan, those planned again as inferred at that length (their
        # inputs' shapes and read values follow from the feeds' shapes, as a replay's do)
        self.known: dict[int, list[Any]] = {}

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
        used = self.used_base + self.used_slope * n
        if start + int(used.max(initial=0)) > limit:
            return None
        template = self.program.template.copy()
        for slot, offset, slope, dtype in self.affine:
            value = np.asarray(offset + slope * n).astype(dtype)
            value.flags.writeable = False
            template[slot] = value
        _served += 1
        plans = self.known.get(n)
        if plans is not None:
            return self.program.run(model, bound, limit, start, template, used.tolist(), plans)
        plans = list(self.program.plans)
        for i in self.again:
            plans[i] = []  # filled by the call with its inference
        ran = self.program.run(model, bound, limit, start, template, used.tolist(), plans)
        if len(self.known) >= KNOWN:
            self.known.clear()
        self.known[n] = plans
        return ran


def match(replay: Replay, bound: Mapping[int, np.ndarray]) -> tuple[Pattern, int] | None:
    """The replay's pattern the feeds follow, and their length, or None."""
    for pattern in replay.patterns:
        n = pattern.length(bound)
        if n is not None:
            return pattern, n
    return None


def shape_class(key: tuple) -> tuple:
    return tuple([(lid, len(shape), dtype) for lid, shape, dtype in key])


def learning(replay: Replay, key: tuple) -> bool:
    """Whether a plain run on a new signature should be recorded to learn a pattern from."""
    return len(replay.patterns) < PATTERNS and replay.attempts.get(shape_class(key), 0) < ATTEMPTS


def learn(replay: Replay, key: tuple, program: Program | None, steps: list[Step],
          inferences: Sequence[Inference | None]) -> None:
    """Take a plain run's program at a new signature; with the two before it in its shape
    class, make a pattern where they fit one."""
    cls = shape_class(key)
    replay.attempts[cls] = replay.attempts.get(cls, 0) + 1
    seen = replay.learnt.setdefault(cls, [])
    if program is None:
        seen.clear()  # no program at this length: the three must be consecutive
        return
    seen.append((key, program, {step.lid: inf for step, inf in zip(steps, inferences) if inf is not None}))
    if len(seen) > 3:
        del seen[0]
    if len(seen) == 3:
        found = fit(seen, steps)
        if found is not None:
            replay.patterns.append(found)
            seen.clear()


def fit(seen: list[tuple[tuple, Program, dict[int, Inference]]], steps: list[Step]) -> Pattern | None:
    """The pattern three programs at three lengths follow, or None."""
    (k1, p1, i1), (k2, p2, i2), (k3, p3, i3) = seen
    found = _feed_dims(k1, k2, k3)
    if found is None:
        return None
    entries, symbol, lengths = found
    if p1.warnings or p2.warnings or p3.warnings or not _same_layout(p1, p2) or not _same_layout(p1, p3):
        return None
    template = list(p1.template)
    affine: dict[int, tuple[int, np.ndarray, np.ndarray, np.dtype]] = {}
    moving: set[int] = set()  # slots of fixed tensors that are not affine in n: their layers run again
    for slot, (a1, a2, a3) in enumerate(zip(p1.template, p2.template, p3.template)):
        if a1 is a2 and a1 is a3:
            continue
        if not (isinstance(a1, np.ndarray) and isinstance(a2, np.ndarray) and isinstance(a3, np.ndarray)):
            return None
        if a1.dtype == a2.dtype == a3.dtype and a1.shape == a2.shape == a3.shape:
            if np.array_equal(a1, a2) and np.array_equal(a1, a3):
                continue
            if a1.dtype.kind in "iu" and a1.dtype != np.uint64:
                line = _affine(a1.astype(np.int64), a2.astype(np.int64), a3.astype(np.int64), *lengths)
                if line is not None:
                    affine[slot] = (slot, line[0], line[1], a1.dtype)
                    continue
        moving.add(slot)
    rerun = _rerun(moving, p1, steps, (i1, i2, i3))
    if rerun is None:
        return None
    calls: list[Any] = []
    used: list[np.ndarray] = []
    for step in rerun:  # first, before any kernel: they read fixed tensors and each other only
        infs = [inferences[step.lid] for inferences in (i1, i2, i3)]
        for key, _ in step.ports:
            template[p1.slots[key]] = None
            affine.pop(p1.slots[key], None)
        reads = tuple(p1.slots[src] for src in step.sources)  # type: ignore[index]
        writes = tuple(p1.slots[key] for key, _ in step.ports)
        again = partial(_replanned, step.op, step.layer, step.op.compute, layer_module.verifying())
        calls.append((step.lid, step.layer, again, _AGAIN, reads, writes, (), 0, False, None))
        used.append(np.array([p.held_at[step.lid] + inf.charge for p, inf in zip((p1, p2, p3), infs)],  # type: ignore[operator]
                             np.int64))
    ops = {step.lid: step.op for step in steps}
    for call in p1.calls:
        lid = call[0]
        inference = i1.get(lid)
        if inference is not None and inference is i2.get(lid) and inference is i3.get(lid):
            calls.append(call)
        else:  # its inputs moved: planned again on every run, its outputs held to that plan in tests
            compute: Any = call[2]
            cut = isinstance(compute, partial) and compute.func is program_module.cut_first
            compute = partial(_replanned, ops[lid], call[1], compute.args[0] if cut else compute, call[9] is not None)
            if cut:  # the head of a last-position run: planned on its cut input
                compute = partial(program_module.cut_first, compute)
            calls.append(call[:2] + (compute, _AGAIN) + call[4:9] + (None,))
    u1, u2, u3 = (np.array([call[7] for call in p.calls], np.int64) for p in (p1, p2, p3))
    if used:
        extra = np.stack(used)
        u1, u2, u3 = (np.concatenate([extra[:, i], u]) for i, u in enumerate((u1, u2, u3)))
    line = _affine(u1, u2, u3, *lengths)
    if line is None:
        return None
    program = Program(template, p1.fed, calls, p1.peak, p1.ends, [])
    return Pattern(entries, symbol, program, list(affine.values()), line[0], line[1])


def _rerun(moving: set[int], program: Program, steps: list[Step], seen: Sequence[dict[int, Inference]],
           ) -> list[Step] | None:
    """The fixed layers that make the ``moving`` slots, in run order, or None where one cannot
    run again at the start of a run (it reads a computed tensor, or is a ShapeOf)."""
    if not moving:
        return []
    made = {slot: key[0] for key, slot in program.slots.items()}
    lids = {made[slot] for slot in moving}
    computed = {call[0] for call in program.calls}
    found = []
    for step in steps:
        if step.lid in lids:
            infs = [inferences.get(step.lid) for inferences in seen]
            if (step.op.shape_only or any(inf is None or inf.data_sized or inf.charge is None for inf in infs)
                    or any(src is None or src[0] in computed for src in step.sources)):
                return None
            found.append(step)
    return found if len(found) == len(lids) else None


def _replanned(op: Op, layer: Layer, compute: Callable[..., Sequence[np.ndarray]], verify: bool, known: list[Inference],
               *args: np.ndarray) -> Sequence[np.ndarray]:
    """A kernel call on the plan its op infers for these inputs (``known``: that inference at
    this length, or an empty list it is put in)."""
    if known:
        inference = known[0]
    else:
        inference = op.plan_for(args)
        known.append(inference)
    outs = compute(inference.plan, *args)
    if verify:
        layer_module.verify_outputs(layer, inference.outputs,
                                    [o if isinstance(o, np.ndarray) else np.asarray(o) for o in outs])
    return outs


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
    return all(x[0] == y[0] and x[4:7] == y[4:7] and x[8] == y[8] for x, y in zip(a.calls, b.calls))
