"""The search for the first kernel origin when the other side computes in a lower
precision than the reference (bf16 or f16 inference, the plugin's defaults on many
hosts).

Bisection asks of a layer "is it beyond its accuracy?", and an error reaches a layer
only through its inputs, so a layer within clears its ancestors.  Once a plugin runs
in bf16, almost every layer after the first one is beyond the reference's accuracy,
and a bisection on that question stops at the first bf16 layer: a precision origin,
not a fault.  Whether a layer's *own* computation departs beyond its precision is
known only from its inputs as the plugin gave them (emulate.py), and that question
does not clear ancestors.  So the search walks the candidates in topological order,
exposing a window of them with their producers per compilation, and stops at the
first kernel origin whose departure is carried on by a consumer; precision origins,
inherited layers and masked departures never stop it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import numpy as np

from ...ir.records import Layer
from .origins import is_kernel_origin
from .precision import lower_than
from .reference import ReferenceSide
from .report import LayerResult


class _Diff(Protocol):
    """What the search needs of a diff in progress (core.py's)."""

    ref: ReferenceSide
    other: Any
    kept: dict[int, list[np.ndarray]]
    candidate_ids: set[int]
    results: dict[tuple[str, int], LayerResult]
    no_counterpart: Mapping[str, str]  # layer name -> why the other side has none

    def _producers(self, layer: Layer) -> list[tuple[Layer, int]]: ...

    def expose(self, layers: Sequence[Layer], local: bool) -> Any: ...

    def record(self, r: LayerResult) -> None: ...

    def bisect(self, candidates: list[Layer], k: int, depth: int = 0) -> Layer | None: ...

WINDOW = 4  # a window is this many times ``--expose K`` layers


def lowered(diff: _Diff, candidates: Sequence[Layer]) -> bool:
    """Whether the other side computes any of ``candidates`` in a lower precision than the reference."""
    for layer in candidates:
        fusion = diff.other.fusion.get(layer.name)
        outs = diff.kept.get(layer.id)
        if fusion is None or not outs:
            continue
        dtype = np.asarray(outs[0]).dtype
        if lower_than(fusion.precision, dtype):
            return True
    return False


def first_kernel_origin(diff: _Diff, candidates: list[Layer], k: int) -> Layer | None:
    """The first of ``candidates`` (in topological order) whose own computation departs beyond
    what its runtime precision explains and whose departure a consumer carries on."""
    position = {layer.id: i for i, layer in enumerate(diff.ref.candidates)}
    ordered = sorted(candidates, key=lambda layer: position[layer.id])
    size = max(1, WINDOW * k)
    for start in range(0, len(ordered), size):
        window = ordered[start:start + size]
        around = [p for layer in window for p in _feeders(diff, layer)]
        chosen = {layer.id for layer in (*window, *around)}
        judged = {key: r for key, r in diff.results.items() if r.local is not None or r.figures.within}
        diff.expose([layer for layer in diff.ref.candidates if layer.id in chosen], local=True)
        inside = {layer.name for layer in window}
        for key, r in judged.items():  # a producer exposed only to feed a re-run keeps the verdict it had with its own inputs
            if key[0] not in inside:
                diff.record(r)
        for layer in window:
            if not _kernel(diff, layer):
                continue
            if not _masked(diff, layer, k):
                return layer
    return None


def find_origin(diff: _Diff, candidates: list[Layer], k: int) -> Layer | None:
    """The first origin whose departure reaches further than its consumers: the walk above
    where the other side computes in a lower precision, else bisection, started again
    without each masked departure it stops at."""
    if lowered(diff, candidates):
        return first_kernel_origin(diff, candidates, k)
    left = list(candidates)
    for _ in range(len(candidates)):
        first = diff.bisect(left, k)
        if first is None or not _kernel(diff, first) or not _masked(diff, first, k):
            return first
        left = [c for c in left if c is not first]
    return None


def _feeders(diff: _Diff, layer: Layer) -> list[Layer]:
    """The layer's producers among the candidates, and through a producer the other side has no
    counterpart for, that one's too: a re-run reaches through it to the tensors the other side gives."""
    hidden = diff.no_counterpart
    found: list[Layer] = []
    seen: set[int] = set()
    todo = [layer]
    while todo:
        for p, _ in diff._producers(todo.pop()):
            if p.id in diff.candidate_ids and p.id not in seen:
                seen.add(p.id)
                found.append(p)
                if p.name in hidden:
                    todo.append(p)
    return found


def _kernel(diff: _Diff, layer: Layer) -> bool:
    return any(is_kernel_origin(diff.results[(layer.name, i)]) for i in range(len(layer.outputs))
               if (layer.name, i) in diff.results)


def _masked(diff: _Diff, layer: Layer, k: int) -> bool:
    """Expose the layer with its consumers and a few layers after it: masked when every
    compared consumer is within its accuracy (the departure goes no further)."""
    after = diff.ref.descendants(layer)
    downstream = [c for c in diff.ref.candidates if c.id in after and c is not layer][:k]
    around = _feeders(diff, layer)
    feeding = [p for c in downstream for p in _feeders(diff, c)]
    chosen = {c.id for c in (*around, layer, *downstream, *feeding)}
    diff.expose([c for c in diff.ref.candidates if c.id in chosen], local=True)
    consumers = [r for r in diff.results.values() if layer.name in r.inputs]
    return bool(consumers) and all(r.figures.within for r in consumers)


__all__ = ["WINDOW", "find_origin", "first_kernel_origin", "lowered"]
