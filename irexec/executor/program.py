"""A plain run on feeds of shapes already seen, as a flat loop of kernel calls.

Once a run's inferences are replayed for some feed signature (plan.Replay), every
layer's input shapes, its kernel plan, the bytes it allocates and the value of every
ShapeOf and of the shape arithmetic after it (ShapeOf -> Gather -> Concat -> Reshape
target) are the same on every run with that signature.  A program records them from
one such run: the shape layers become fixed tensors, each tensor gets a slot in a
list, and a later run only calls the kernels, in order, dropping each tensor after its
last reader.  The memory limit is held as the layer loop holds it: the program knows
the most the run's tensors can reach, and a run where that could pass the limit goes
through the layer loop, which refuses exactly where it would have.

Only plain runs take it (no hook, nothing kept, no stop, not a sub-graph's body), and
only when every computed layer is an ordinary kernel: outputs of static shapes and
no strings, no body, no compressed weight made on the way."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

import numpy as np

from ..base import limits
from ..base.errors import Diagnostic
from ..kernels.compressed_linear import StandIn
from ..model.binding import Model
from ..ops.framework.base import Inference
from ..ops.io import Result1
from ..system import blas
from . import layer as layer_module
from .fusions import fuse
from .last_position import last_position as last_position_of
from .plan import Step
from .program_calls import PLAN, USED, Call, freeing_also
from .rewrites import GIVES_STAND_IN

# At most this many bytes of shape tensors a program keeps copies of (the shape arithmetic
# kept per signature in the run cache is shared, not copied); a bigger one: no program.
FIXED_BYTES = 4 << 20

class Moved(Exception):
    """A pattern's run (program_pattern.py) met a shape or a value it took to be the same at
    every length and found it was not: the run is dropped and made by the layer loop."""


class Program:
    """The computed steps of a run on one feed signature, with every other tensor fixed."""

    __slots__ = ("template", "fed", "calls", "peak", "ends", "warnings", "uses", "plans", "slots", "held_at")

    def __init__(self, template: list[Any], fed: list[tuple[int, int]], calls: list[Call], peak: int,
                 ends: list[tuple[tuple[int, int], int]], warnings: list[Diagnostic]) -> None:
        self.template = template  # a slot per tensor: the fixed ones filled in
        self.fed = fed  # (layer id, slot) of each fed layer
        self.calls = calls
        self.peak = peak  # the most bytes a run holds beyond its start, a kernel's outputs included
        self.ends = ends  # (tensor, slot) of the tensors no layer frees (an Assign's value)
        self.warnings = warnings
        self.uses = [call[USED] for call in calls]
        self.plans = [call[PLAN] for call in calls]
        self.slots: dict[tuple[int, int], int] = {}  # the slot of each tensor
        self.held_at: dict[int, int] = {}  # per fixed layer: the bytes the loop held beyond the start when it ran

    def fits(self, start: int, limit: int) -> bool:
        return start + self.peak <= limit

    def run(self, model: Model, bound: Mapping[int, np.ndarray], limit: int, start: int,
            template: list[Any] | None = None, uses: Sequence[int] | None = None, plans: Sequence[Any] | None = None,
            ) -> tuple[dict[tuple[int, int], np.ndarray], dict[int, np.ndarray], dict[int, float], list[Diagnostic]]:
        """The run; ``template``, ``uses`` (the bytes in use at each call) and ``plans``: a pattern's at its length."""
        slots = self.template.copy() if template is None else template
        for lid, slot in self.fed:
            slots[slot] = bound[lid]
        results: dict[int, np.ndarray] = {}
        times: dict[int, float] = {}
        clock, in_use, ndarray, read = time.perf_counter, limits.IN_USE, np.ndarray, slots.__getitem__
        # Each kernel runs under the in-use bytes the loop would give it, set before each call
        # and put back once, at the end of the run (a reset per call cost a tenth of the loop).
        # One clock reading a call: a layer's time runs from the end of the one before.
        with blas.limited(), limits.charged(limit, start):
            last = clock()
            for (lid, layer, compute, _, reads, writes, frees, _, is_result, verify), used, plan in zip(
                    self.calls, self.uses if uses is None else uses, self.plans if plans is None else plans):
                in_use.set((limit, start + used))
                try:
                    outs = compute(plan, *map(read, reads))
                except Moved:
                    raise
                except Exception as e:  # noqa: BLE001 - told as the layer loop tells it
                    raise layer_module.layer_failure(model, layer, e) from layer_module.failure_cause(e)
                if len(writes) == 1:
                    out = outs[0]
                    if type(out) is not ndarray and not isinstance(out, StandIn):
                        out = np.asarray(out)  # NumPy hands back scalars for many operations on 0-d arrays
                    slots[writes[0]] = out
                    if is_result:
                        results[lid] = out
                else:
                    outs = [o if type(o) is ndarray or isinstance(o, StandIn) else np.asarray(o) for o in outs]
                    for slot, out in zip(writes, outs):
                        slots[slot] = out
                    if is_result:  # a Result has no output port
                        results[lid] = outs[0]
                if verify is not None:
                    layer_module.verify_outputs(layer, verify, [slots[s] for s in writes])
                for slot in frees:
                    slots[slot] = None
                now = clock()
                times[lid] = now - last
                last = now
        return {key: slots[slot] for key, slot in self.ends}, results, times, list(self.warnings)


class Recorder:
    """What a replayed run through the layer loop saw: per step, the bytes held when it
    began, whether it was fed, and the outputs of the shape layers (only theirs: the run
    must not hold its other tensors longer than the loop does)."""

    __slots__ = ("start", "dropped", "held", "fed", "outs", "slots", "held_at")

    def __init__(self, start: int, dropped: bool) -> None:
        self.start = start
        self.dropped = dropped  # whether the fold cache had given way when the run began
        self.held: list[int] = []
        self.fed: list[bool] = []
        self.outs: list[list[np.ndarray] | None] = []
        # set by build: the slot of each tensor, and per fixed layer the bytes held beyond the start
        self.slots: dict[tuple[int, int], int] = {}
        self.held_at: dict[int, int] = {}

    def step(self, held: int, fed: bool, outs: list[np.ndarray] | None) -> None:
        self.held.append(held)
        self.fed.append(fed)
        self.outs.append(outs)


def build(steps: list[Step], preset: Mapping[tuple[int, int], np.ndarray], inferences: Sequence[Inference | None],
          record: Recorder, fixed: set[int], head: int, warnings: list[Diagnostic]) -> Program | None:
    """The program of a run the layer loop made on a replayed signature, or None where
    some layer is not an ordinary kernel.  ``preset``: the kept tensors the run starts
    from; ``fixed``: the layers whose outputs follow from the feeds' shapes alone
    (ShapeOf and the shape arithmetic after it)."""
    if len(record.held) != len(steps):
        return None  # a step skipped (a packed weight nothing reads any more): not a plain run
    slot_of: dict[tuple[int, int], int] = {}
    template: list[Any] = []

    def slot(key: tuple[int, int]) -> int:
        found = slot_of.get(key)
        if found is None:
            found = slot_of[key] = len(template)
            template.append(None)
        return found

    for key, value in preset.items():
        template[slot(key)] = value
    fed: list[tuple[int, int]] = []
    calls: list[Call] = []
    freed: set[tuple[int, int]] = set()
    held_at: dict[int, int] = {}
    record.slots, record.held_at = slot_of, held_at  # what a pattern learnt from this run reads (program_pattern.py)
    peak = 0
    copied = 0
    for index, step in enumerate(steps):
        outs = record.outs[index]
        if record.fed[index] or step.lid in fixed:
            if record.fed[index]:
                fed.append((step.lid, slot((step.lid, 0))))
            else:
                if outs is None:
                    return None
                held_at[step.lid] = record.held[index] - record.start
                for (key, _), out in zip(step.ports, outs):
                    if isinstance(out, StandIn):
                        return None
                    if out.flags.writeable:  # a copy of its own: the run may have handed this array out
                        copied += out.nbytes
                        out = out.copy()
                        out.flags.writeable = False
                    template[slot(key)] = out
                if copied > FIXED_BYTES:
                    return None
            # what it was the last to read goes once the kernel before it has run (it reads nothing now)
            if step.frees and calls:
                last = calls[-1]
                calls[-1] = freeing_also(last, tuple(slot_of[src] for src in step.frees))
            freed.update(step.frees)
            continue
        inference = inferences[index]
        op = step.op
        if (inference is None or inference.data_sized or inference.charge is None or op.family == "control"
                or isinstance(op, GIVES_STAND_IN) or any(src is None for src in step.sources)):
            return None
        used = record.held[index] - record.start + inference.charge
        peak = max(peak, used)
        compute: Callable[..., Sequence[np.ndarray]] = (partial(op.compute_unread, step.unread) if step.unread
                                                        else op.compute)
        if step.lid == head:
            compute = partial(cut_first, compute)
        reads = tuple(slot_of[src] for src in step.sources)  # type: ignore[index]
        writes = tuple(slot(key) for key, _ in step.ports)
        verify = inference.outputs if layer_module.verifying() and not isinstance(op, Result1) else None
        calls.append((step.lid, step.layer, compute, inference.plan, reads, writes,
                      tuple(slot_of[src] for src in step.frees), used, step.is_result, verify))
        freed.update(step.frees)
    ends = [(key, s) for key, s in slot_of.items() if key not in freed]
    calls = fuse(calls, steps, inferences, template, {s for _, s in ends})  # Convolution -> ReLU -> Concat
    peak = max([peak] + [call[USED] for call in calls])
    return Program(template, fed, calls, peak, ends, warnings)


def cut_first(compute: Callable[..., Sequence[np.ndarray]], plan: Any, first: np.ndarray,
               *rest: np.ndarray) -> Sequence[np.ndarray]:
    """The head product of a last-position run: its first input cut to the last position."""
    return compute(plan, last_position_of(first), *rest)
