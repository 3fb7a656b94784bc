"""The ranking of a data-set diff that optimises the keep-K curve: greedy forward selection.

Measuring each weight alone (with only it compressed) misses how weights act together: two
weights whose errors cancel, or add up, on the outputs.  So the ranking keeps weights one at
a time, each chosen by re-running: K = 1 keeps the weight whose restoration (with every other
weight as in B) lowers the outputs' mean rel L2 over the data set most; K = k + 1 adds, to the
k kept, the weight that together with them lowers it most.  Its sets, measured as they are
chosen, are the first of the portfolio whose best set at each K is the keep-K curve
(``keep_portfolio.py``).

To bound the cost, the candidates at each step are the first ``candidates`` weights of the
single-weight ranking (``DatasetSummary.rank``) not yet kept: a step costs at most that many
runs of A per sample, and the whole curve ``1 + sum(min(candidates, N - k))`` for N measured
weights.  Weights beyond the rounding of their format (damaged) are kept first, in the order of
the single-weight ranking, one run each: they are broken, not traded for size.  The choice is on
the mean over the samples (``math.fsum``, so it does not depend on who ran them); a tie goes to
the weight first in the single-weight ranking.  Every figure comes back in task order from the
runner, so the path is the same serially, on N processes or on a Dask cluster.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

CANDIDATES = 8  # weights tried at each step of the greedy path (the first of the single-weight ranking)


def mean_error(errors: list[float]) -> float:
    value = math.fsum(errors) / len(errors) if errors else 0.0
    return value if math.isfinite(value) else math.inf  # a NaN or inf figure is the worst


def greedy_runs(measured: int, damaged: int, candidates: int) -> int:
    """Runs of A per sample the path costs: K = 0, then per step the candidates tried."""
    return 1 + sum(1 if k < damaged else min(candidates, measured - k) for k in range(measured))


Step = tuple[str | None, list[float], int]  # the weight kept (None at K = 0), each sample's error, candidates tried


def greedy_path(summary: Any, runner: Any, task: Callable[[list[int]], tuple[Any, ...]], fn: Any,
                candidates: int = CANDIDATES, step: Callable[[str], None] | None = None,
                seen: dict[frozenset[str], list[float]] | None = None) -> list[Step]:
    """The greedy path over the measured weights of ``summary`` (those with figures ``alone``, in the
    order of ``summary.ranking``, the single-weight ranking), from K = 0.  ``task(replaced)``: the
    arguments of ``fn`` that give each sample's outputs' rel L2 with the weights at those indices of
    ``summary.ranking`` taken from B and the others kept as in A.  ``seen`` gets every kept set measured
    (the candidates not chosen too), in the order measured, with its figures."""
    order = list(summary.ranking)
    index = {name: i for i, name in enumerate(order)}
    pool = [name for name in order if summary.weights[name].alone]
    every = set(range(len(order)))
    (errors,) = list(runner.map(fn, [task(sorted(every))]))
    path: list[Step] = [(None, errors, 1)]
    if seen is not None:
        seen.setdefault(frozenset(), errors)
    if step:
        step("keep 0")
    kept: list[str] = []
    while len(kept) < len(pool):
        left = [name for name in pool if name not in kept]
        tried = left[:1] if summary.weights[left[0]].beyond_rounding else left[:max(1, candidates)]
        keep_ids = {index[name] for name in kept}
        tasks = [task(sorted(every - keep_ids - {index[name]})) for name in tried]
        best: tuple[float, int, list[float]] | None = None
        for i, found in enumerate(runner.map(fn, tasks)):
            if step:
                step(f"keep {len(kept) + 1}: {tried[i]}")
            if seen is not None:
                seen.setdefault(frozenset([*kept, tried[i]]), found)
            if best is None or mean_error(found) < best[0]:
                best = (mean_error(found), i, found)
        assert best is not None
        kept.append(tried[best[1]])
        path.append((kept[-1], best[2], len(tried)))
    return path


__all__ = ["CANDIDATES", "Step", "greedy_path", "greedy_runs", "mean_error"]
