"""The keep-K curve of a data-set diff: the best of a portfolio of keep sets, measured, at each K.

The greedy forward path (``greedy_keep.py``) is myopic: a weight it keeps early stays kept, so at a
high K, or where two weights only help together, a set it never reaches can leave less error.  So
more keep sets are measured, each from a cheap and principled ordering of the measured weights:

- backward elimination: from every measured weight kept, compress at each step the weight whose
  compression (with those compressed before) raises the outputs' mean error least.  The candidates
  at each step are the ``candidates`` kept weights last in the single-weight ranking (the bound of the
  forward path, mirrored), so a step costs at most that many runs;
- the prefixes of the single-weight ranking (the mean over the samples of each weight's effect alone);
- the prefixes of each sample's own single-weight ranking: the weights by that sample's effect alone,
  the figure a one-sample diff's ablation ranks by (its advice), for the first ``SAMPLE_ORDERINGS``
  samples;
- refinement, up to ``REFINE_PASSES`` passes: around the best set of each K, the sets one weight away
  (the best of K - 1 plus one of ``candidates`` weights first in the single-weight ranking, the best of
  K + 1 less one of the ``candidates`` last), until no K improves.

Weights beyond the rounding of their format (damaged) come first in every ordering and are never
compressed by the backward one, as the forward path keeps them first.  A set is measured once (by its
members: many prefixes coincide, and the forward path's figures are reused).  At each K the curve
gives the measured set of K weights with the lowest mean error over the samples (``math.fsum``); of
equal means, the one measured first (forward path, backward, single-weight ranking, then each sample's
ranking in sample order), so the choice does not depend on who ran the sets.  The best sets need not
be nested: K + 1's set may drop a weight K's keeps.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .greedy_keep import CANDIDATES, mean_error

SAMPLE_ORDERINGS = 16  # samples whose own single-weight ranking is measured (the first, in sample order)
REFINE_PASSES = 2  # passes over the best sets, each trying their neighbours one weight away
Seen = dict[frozenset[str], list[float]]


@dataclass
class KeepSet:
    keep: int
    names: frozenset[str]
    errors: list[float]  # each sample's outputs' rel L2 with these weights kept as in A
    found_by: str  # the ordering that measured it first


def portfolio_runs(measured: int, damaged: int, samples: int, candidates: int = CANDIDATES) -> int:
    """At most this many runs of A per sample beyond the forward path: the backward steps, the prefixes
    of 1 + min(samples, SAMPLE_ORDERINGS) orderings and the refinement (fewer where sets coincide)."""
    backward = sum(min(candidates, k - damaged) for k in range(damaged + 1, measured + 1))
    refine = REFINE_PASSES * 2 * candidates * max(0, measured - 1)
    return backward + (1 + min(samples, SAMPLE_ORDERINGS)) * max(0, measured - 1) + refine


class _Measure:
    """Measures keep sets once each, in task order, remembering which ordering measured each first."""

    def __init__(self, order: list[str], runner: Any, task: Callable[[list[int]], tuple[Any, ...]], fn: Any,
                 seen: Seen, more: Callable[[int], None] | None, step: Callable[[str], None] | None):
        self.index = {name: i for i, name in enumerate(order)}
        self.runner, self.task, self.fn, self.seen, self.more, self.step = runner, task, fn, seen, more, step
        self.found_by = dict.fromkeys(seen, "forward")

    def __call__(self, sets: list[frozenset[str]], label: str) -> None:
        new = list(dict.fromkeys(s for s in sets if s not in self.seen))
        if self.more and new:
            self.more(len(new))
        every = set(self.index.values())
        tasks = [self.task(sorted(every - {self.index[n] for n in s})) for s in new]
        for names, errors in zip(new, self.runner.map(self.fn, tasks)):
            self.seen[names], self.found_by[names] = errors, label
            if self.step:
                self.step(f"{label}: keep {len(names)}")


def _backward(pool: list[str], damaged: set[str], measure: _Measure, candidates: int) -> None:
    kept = list(pool)
    while len(kept) > len(damaged):
        tried = [n for n in reversed(kept) if n not in damaged][:max(1, candidates)]
        sets = [frozenset(kept) - {n} for n in tried]
        measure(sets, "backward")
        best = min(range(len(tried)), key=lambda i: (mean_error(measure.seen[sets[i]]), i))
        kept.remove(tried[best])


def best_keep_sets(summary: Any, runner: Any, task: Callable[[list[int]], tuple[Any, ...]], fn: Any, seen: Seen,
                   candidates: int = CANDIDATES, more: Callable[[int], None] | None = None,
                   step: Callable[[str], None] | None = None) -> list[KeepSet]:
    """The best measured keep set of each K = 0 .. N over the measured weights of ``summary`` (in the order
    of ``summary.ranking``, the single-weight ranking, as ``task`` indexes them); ``seen``: the sets the
    forward path measured, which this extends.  ``more(n)``: n more runs are coming (a progress bar)."""
    order = list(summary.ranking)
    pool = [name for name in order if summary.weights[name].alone]
    damaged = {name for name in pool if summary.weights[name].beyond_rounding}
    measure = _Measure(order, runner, task, fn, seen, more, step)
    _backward(pool, damaged, measure, candidates)
    first = [name for name in pool if name in damaged]
    orderings = [("single-weight ranking", pool)]
    position = {name: i for i, name in enumerate(pool)}
    for j, sample in enumerate(summary.samples[:SAMPLE_ORDERINGS]):
        def effect(name: str, j: int = j) -> tuple[float, int]:
            value = summary.weights[name].alone[j]
            return -value if math.isfinite(value) else -math.inf, position[name]  # a NaN effect is the worst

        orderings.append((f"{os.path.basename(sample)}'s single-weight ranking",
                          first + sorted((n for n in pool if n not in damaged), key=effect)))
    for label, names in orderings:
        measure([frozenset(names[:k]) for k in range(1, len(names))], label)
    best = _best(seen)
    for _ in range(REFINE_PASSES):
        sets = []
        for k in range(1, len(pool)):  # one weight added to the best of K - 1, one dropped from the best of K + 1
            sets += [best[k - 1] | {n} for n in [n for n in pool if n not in best[k - 1]][:max(1, candidates)]]
            sets += [best[k + 1] - {n} for n in [n for n in reversed(pool) if n in best[k + 1] and n not in damaged]
                     [:max(1, candidates)]]
        measure([s for s in sets if damaged <= s or s <= damaged], "refined")
        found = _best(seen)
        if found == best:
            break
        best = found
    return [KeepSet(k, best[k], seen[best[k]], measure.found_by[best[k]]) for k in sorted(best)]


def _best(seen: Seen) -> dict[int, frozenset[str]]:
    best: dict[int, frozenset[str]] = {}
    for names, errors in seen.items():  # in the order measured: of equal means, the first stays
        k = len(names)
        if k not in best or mean_error(errors) < mean_error(seen[best[k]]):
            best[k] = names
    return best


def entry_order(sets: list[KeepSet], order: list[str]) -> list[str]:
    """The weights in the order they first enter the best sets (K = 1, 2, ...); those entering at the same
    K in the order of ``order`` (the single-weight ranking)."""
    position = {name: i for i, name in enumerate(order)}
    ranking: list[str] = []
    for s in sets:
        ranking += sorted((n for n in s.names if n not in ranking), key=lambda n: position.get(n, len(position)))
    return ranking


__all__ = ["SAMPLE_ORDERINGS", "KeepSet", "best_keep_sets", "entry_order", "portfolio_runs"]
