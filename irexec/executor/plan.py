"""A run plan: the layers a run executes, in order, with what each reads and
frees, and the inferences kept per feed signature.  Plain data: how a plan is
made is in schedule.py."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from ..base.errors import Diagnostic
from ..ir.records import Layer
from ..ops.framework.base import Inference, Op
from ..ops.state import Variable


class Step(NamedTuple):
    """One layer of a run plan."""

    lid: int
    layer: Layer
    op: Op
    sources: tuple[tuple[int, int] | None, ...]  # the tensors it reads
    frees: tuple[tuple[int, int], ...]  # the tensors whose last reader it is
    is_result: bool
    unread: frozenset[int] | None  # the indexes of its outputs no layer reads, or None
    ports: tuple[tuple[tuple[int, int], tuple], ...]  # per output: its key and declared dims


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
    # per step list: the inferences of a run, by the shapes and types of its feeds (see Replay)
    replays: dict[int, Replay] = field(default_factory=dict)
    # a stateful model's ReadValue layers (layer id, variable, whether it has an initialising input)
    # and the Assign layers the run executes (layer id, variable_id)
    reads: tuple[tuple[int, Variable, bool], ...] = ()
    writes: tuple[tuple[int, str], ...] = ()
    # the steps of a run that keeps some layers' outputs to its end, by those layers' ids
    kept_steps: dict[frozenset[int], list[Step]] = field(default_factory=dict)
    # a run of the last position only (see last_position.py): the head MatMul whose first input
    # it cuts (-1: none), and the layers whose outputs then differ from their declared dims
    head: int = -1
    cut: frozenset[int] = frozenset()

    def keeping(self, keep: frozenset[int]) -> list[Step]:
        """The steps with no tensor of a layer in ``keep`` freed (the run holds them to its end)."""
        found = self.kept_steps.get(keep)
        if found is None:
            if len(self.kept_steps) >= 4:
                self.kept_steps.clear()
            found = self.kept_steps[keep] = [
                step._replace(frees=tuple(src for src in step.frees if src[0] not in keep)) for step in self.steps]
        return found

    def replay(self, steps: list[Step], settled: frozenset[int]) -> Replay:
        """The replay of ``steps``; ``settled``: the layers whose values follow from the feeds' shapes alone."""
        found = self.replays.get(id(steps))
        if found is None or found.steps is not steps:
            found = self.replays[id(steps)] = Replay(steps, settled)
        return found


class Replay:
    """The inference of every step of a run, kept per shapes and types of the
    feeds, so that a later run on feeds of the same shapes skips each layer's
    inference (its signature costs a few µs a layer, as much as a small
    kernel).  Only where that is sound: every input whose value an op's
    inference reads comes from a Const, a ShapeOf or shape arithmetic on them
    (never from the data), and every inferred output shape is static (no
    NonZero-like op), so each layer's input shapes, types and read values
    follow from the feeds' shapes and types alone."""

    LIMIT = 16  # feed signatures kept; a caller feeding ever new shapes starts over

    def __init__(self, steps: list[Step], settled: frozenset[int]) -> None:
        self.steps = steps
        self.sound = all(src is None or src[0] in settled
                         for _, _, op, sources, *_ in steps
                         for i, src in enumerate(sources) if op.input_spec(i).value)
        # by key: the inferences of a run, and its warnings (a replayed run computes the same
        # shapes, each inferred output being static, so it skips their check)
        self.runs: dict[tuple, tuple[list[Inference | None], list[Diagnostic]]] = {}
        # by key: the program of a plain run (program.Program: plan.py stays below program.py),
        # None where it cannot have one
        self.programs: dict[tuple, Any] = {}
        # programs for feeds whose dims grow with one length (program_pattern.Pattern), the
        # programs of the last plain runs per shape class they are learnt from, and the runs recorded
        self.patterns: list[Any] = []
        self.learnt: dict[tuple, list[Any]] = {}
        self.attempts: dict[tuple, int] = {}

    def key(self, bound: Mapping[int, np.ndarray]) -> tuple | None:
        return tuple([(lid, a.shape, a.dtype) for lid, a in bound.items()]) if self.sound else None

    def keep(self, key: tuple, inferences: list[Inference | None], warnings: list[Diagnostic]) -> None:
        if any(inf is not None and inf.output_nbytes is None for inf in inferences):
            return  # an output shape found only by computing it: later runs may differ
        if len(self.runs) >= self.LIMIT:
            self.runs.clear()
            self.programs.clear()
        self.runs[key] = (inferences, list(warnings))
