"""``irexec diff A.xml B.xml --inputs-dir DIR``: per-layer figures over a data set.

Each sample (one .npz) is diffed on its own and reduced at once to a few numbers per
layer (rel L2, max abs error, units, whether it is an origin) and per compressed weight
(the layer's own error); no tensor outlives its sample, and only these numbers travel
back from a process or a Dask worker.  Samples are reduced in their sorted order, so
the figures do not depend on how many processes ran them nor in which order they ended.
Each process or worker loads the two models once per content: models are cached by a
hash of their files (XML and weights), never by path, so a model changed between two
diffs is loaded again, and a worker that finds other content at the path than the
client hashed refuses the sample (``scheduler-error``) rather than compare the wrong
model.  A Dask scheduler and its workers are trusted code: results travel as pickles.
Every failure of a cluster ends in a coded error within a timeout (``SCHEDULER_TIMEOUT`` seconds by default).

After the samples, the compressed weights are measured by the outputs' error with only that
weight compressed and ranked by it; then keep sets are measured (``keep_curve.py`` runs one): the
greedy forward path (``greedy_keep.py``: each weight kept is the one that, with those kept before,
lowers the outputs' mean error most) and a portfolio of other orderings (``keep_portfolio.py``).
The keep-K curve is the best measured set of each K, and the ranking the order in which weights
first enter those sets: tasks of their own, each over every sample, run and reduced in order the
same way.  With decode steps, a sample is its prefill and that many greedy decode steps of A (the
single-sample ``steps`` of ``steps.py``), and its outputs' error counts every step.
"""

from __future__ import annotations

import asyncio
import functools
import math
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ...base.errors import IRExecError, UsageError
from ...base.extras import install_hint
from .greedy_keep import CANDIDATES, greedy_path, greedy_runs
from .keep_portfolio import best_keep_sets, entry_order
from .report import ORIGIN
from .sample_models import Key, content_hash, sample_steps, sessions

Figures = dict[str, Any]  # what one sample sends back

# seconds to reach a scheduler, for a worker to join, and with no worker left before a run gives up (default)
SCHEDULER_TIMEOUT = 10.0


def sample_paths(directory: str) -> list[str]:
    try:
        names = sorted(n for n in os.listdir(directory) if n.endswith(".npz"))
    except OSError as e:
        raise UsageError(f"`inputs_dir={directory}`: {e.strerror}", code="bad-inputs-dir", file=directory) from None
    if not names:
        raise UsageError(f"`inputs_dir={directory}` holds no .npz sample", code="bad-inputs-dir", file=directory)
    return [os.path.join(directory, n) for n in names]


def sample_figures(key: Key, path: str, max_memory: int | None = None, steps: int = 0) -> Figures:
    """Diff one sample (its prefill and ``steps`` greedy decode steps of A) and keep a few numbers per
    layer and per weight, under ``max_memory``."""
    from .ir_side import run_ir_diff

    a, b = sessions(key)
    all_feeds, logits, history = sample_steps(a, path, max_memory, steps)
    report = run_ir_diff(a, b, all_feeds, model=key[0], other_model=key[2], inputs=path, logits=logits, ablate=0,
                         max_memory=max_memory)

    def four(r: Any) -> tuple[float, float, float, bool]:
        return r.figures.rel_l2, r.figures.max_abs_error, r.figures.max_units, r.status == ORIGIN

    outputs = {r.name: four(r) for r in report.outputs}
    if history is not None:
        outputs = _over_steps(a, report, history, outputs)
    return {"layers": {f"{r.name}:{r.port}" if r.port else r.name: four(r) for r in report.layers},
            "outputs": outputs,
            "weights": {w.layer: (w.layer_rel_l2, w.port, w.b_layer, w.within_rounding, w.max_steps)
                        for w in report.weights}}


def _over_steps(a: Any, report: Any, history: list[dict[str, Any]], outputs: dict[str, tuple[float, float, float, bool]]
                ) -> dict[str, tuple[float, float, float, bool]]:
    """Each output's figures over every step of the sample: the rel L2 of all steps' values together (as the
    weights' effects and the keep-K curve count them), the largest abs error and units of any step; an origin
    where the sample's own diff says so (at the step it analyses, the first whose outputs depart)."""
    import numpy as np

    from .reference import ReferenceSide

    keys = {(layer.name, port): key for layer, port, key in ReferenceSide(a).output_ports()}
    found = dict(outputs)
    for r in report.outputs:
        key = keys.get((r.name, r.port))
        figs = [s.outputs[key] for s in report.steps if key in s.outputs]
        if key is None or len(figs) != len(history):
            continue
        power = [float(np.sum(np.square(np.asarray(step[key], np.float64)))) for step in history]
        rel = math.sqrt(math.fsum(f.rel_l2 ** 2 * p for f, p in zip(figs, power)) / math.fsum(power)) \
            if all(math.isfinite(f.rel_l2) for f in figs) and math.fsum(power) > 0 else \
            functools.reduce(_max, (f.rel_l2 for f in figs))
        found[r.name] = (rel, functools.reduce(_max, (f.max_abs_error for f in figs)),
                         functools.reduce(_max, (f.max_units for f in figs)), outputs[r.name][3])
    return found


@dataclass
class _Stat:
    values: list[float] = field(default_factory=list)  # one scalar per sample, in sample order
    max_abs: float = 0.0
    max_units: float = 0.0
    origins: int = 0

    def add(self, rel: float, max_abs: float = 0.0, units: float = 0.0, origin: bool = False) -> None:
        self.values.append(rel)
        self.max_abs, self.max_units = _max(self.max_abs, max_abs), _max(self.max_units, units)
        self.origins += bool(origin)

    def summary(self) -> dict[str, Any]:
        return {**spread(self.values), "max_abs_error": _num(self.max_abs), "max_units": _num(self.max_units),
                "origin_count": self.origins}


def _max(x: float, y: float) -> float:
    return y if math.isnan(y) or y > x else x  # a NaN figure is the worst and stays


def spread(values: list[float]) -> dict[str, Any]:
    """Mean (exactly rounded: math.fsum), p95 (nearest rank) and max of per-sample figures."""
    vals = sorted(values)
    p95 = vals[min(len(vals) - 1, math.ceil(0.95 * len(vals)) - 1)] if vals else 0.0
    return {"samples": len(vals), "mean_rel_l2": _num(math.fsum(vals) / len(vals)) if vals else 0.0,
            "p95_rel_l2": _num(p95), "max_rel_l2": _num(vals[-1]) if vals else 0.0}


def _num(x: float) -> float | str:
    return x if math.isfinite(x) else str(x)


@dataclass
class _Weight:
    own: _Stat = field(default_factory=_Stat)  # the layer's own rel L2
    port: int = 0
    b_layer: str = ""
    beyond_rounding: int = 0  # samples in which it is beyond the rounding of its format
    max_steps: float | None = None
    alone: list[float] = field(default_factory=list)  # the outputs' rel L2 with only it compressed, per sample


@dataclass
class DatasetSummary:
    samples: list[str] = field(default_factory=list)
    layers: dict[str, _Stat] = field(default_factory=dict)
    outputs: dict[str, _Stat] = field(default_factory=dict)
    weights: dict[str, _Weight] = field(default_factory=dict)
    per_sample: list[dict[str, Any]] = field(default_factory=list)  # each sample's output figures
    ranking: list[str] = field(default_factory=list)  # weights by measured effect on the outputs
    curve: list[dict[str, Any]] = field(default_factory=list)  # the best keep set at each K (keep_portfolio.py)
    scope: list[str] | None = None  # the ignored scope printed: the best set of K = 5 (None: the top five)
    keep_sets: int = 0  # keep sets measured for the curve
    runner: str = "serial"
    steps: int = 0  # decode steps after each sample's prefill

    def add(self, path: str, figs: Figures) -> None:
        self.samples.append(os.path.basename(path))
        for name, four in figs["layers"].items():
            self.layers.setdefault(name, _Stat()).add(*four)
        for name, four in figs["outputs"].items():
            self.outputs.setdefault(name, _Stat()).add(*four)
        self.per_sample.append({"sample": os.path.basename(path), "outputs": {
            name: {"rel_l2": _num(rel), "max_abs_error": _num(max_abs), "max_units": _num(units), "origin": bool(o)}
            for name, (rel, max_abs, units, o) in figs["outputs"].items()}})
        for name, (rel, port, b_layer, within, steps) in figs["weights"].items():
            w = self.weights.setdefault(name, _Weight(port=port, b_layer=b_layer))
            w.own.add(rel)
            w.beyond_rounding += not within
            if steps is not None:
                w.max_steps = steps if w.max_steps is None else _max(w.max_steps, steps)

    def rank(self) -> None:
        """Weights beyond the rounding of their format first (damaged), then by the outputs' mean
        error with only that weight compressed, then (unmeasured) by their layer's own error."""
        def order(name: str) -> tuple[bool, bool, float, str]:
            w = self.weights[name]
            measured = bool(w.alone)
            value = math.fsum(w.alone) / len(w.alone) if measured else math.fsum(w.own.values) / max(1, len(w.own.values))
            return w.beyond_rounding == 0, not measured, -value if math.isfinite(value) else -math.inf, name

        self.ranking = sorted(self.weights, key=order)

    def as_dict(self) -> dict[str, Any]:
        if not self.ranking:
            self.rank()
        weights = {}
        for i, name in enumerate(self.ranking):
            w = self.weights[name]
            alone = spread(w.alone) if w.alone else None
            weights[name] = {**w.own.summary(), "rank": i + 1, "port": w.port, "b_layer": w.b_layer,
                             "beyond_rounding_in": w.beyond_rounding,
                             "max_steps": None if w.max_steps is None else _num(w.max_steps),
                             "outputs_alone": alone}
        return {"runner": self.runner, "samples": self.samples, "decode_steps": self.steps,
                "outputs": {k: v.summary() for k, v in self.outputs.items()},
                "layers": {k: v.summary() for k, v in self.layers.items()},
                "weights": weights, "ignored_scope": self.ranking[:5] if self.scope is None else self.scope,
                "keep_curve": self.curve, "keep_sets_measured": self.keep_sets,
                "per_sample": self.per_sample}


def _call(args: tuple[Any, tuple[Any, ...]]) -> Any:
    return args[0](*args[1])


class _Runner:
    """Runs tasks serially, on a pool of spawned processes or on a Dask cluster, and gives
    their results in the order of the tasks (what makes the reduction the same everywhere)."""

    def __init__(self, jobs: int, scheduler: str | None, timeout: float):
        self.jobs, self.scheduler, self.timeout = jobs, scheduler, timeout
        self.pool: Any = None
        self.client: Any = None

    def __enter__(self) -> _Runner:
        if self.scheduler:
            self.client = _dask_client(self.scheduler, self.timeout)
        elif self.jobs > 1:
            import multiprocessing

            self.pool = multiprocessing.get_context("spawn").Pool(self.jobs)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.client is not None:
            self.client.close()
        if self.pool is not None:
            self.pool.terminate()
            self.pool.join()

    def map(self, fn: Any, tasks: list[tuple[Any, ...]]) -> Iterator[Any]:
        if self.client is not None:
            assert self.scheduler is not None
            futures = self.client.map(fn, *zip(*tasks), pure=False) if tasks else []
            for future in futures:
                yield _result(self.client, future, self.scheduler, self.timeout)
                future.release()
        elif self.pool is not None:
            yield from self.pool.imap(_call, [(fn, t) for t in tasks])
        else:
            for t in tasks:
                yield fn(*t)


class _Progress:
    """Tasks done of the total on one line of stderr, only when stderr is a terminal."""

    def __init__(self, total: int):
        import sys

        self.total, self.done, self.stream = total, 0, sys.stderr
        self.enabled = bool(getattr(self.stream, "isatty", None) and self.stream.isatty())
        self.started = time.monotonic()

    def more(self, runs: int) -> None:
        self.total += runs

    def step(self, what: str) -> None:
        self.done += 1
        if self.enabled:
            filled = int(20 * self.done / max(1, self.total))
            self.stream.write(f"\rdiff [{'#' * filled}{'-' * (20 - filled)}] {self.done}/{self.total} "
                              f"{time.monotonic() - self.started:6.1f}s {what[:40]:40}")
            self.stream.flush()

    def close(self) -> None:
        if self.enabled and self.done:
            self.stream.write("\n")
            self.stream.flush()


def _dask_client(scheduler: str, timeout: float) -> Any:
    """A client of the cluster with at least one worker, or a coded error within ``timeout``."""
    try:
        from dask.distributed import Client
        from distributed.comm import parse_address
    except ImportError as e:
        raise UsageError(f"`scheduler` needs Dask distributed ({e}); {install_hint('dask')}",
                         code="missing-extra") from None
    try:
        protocol, location = parse_address(scheduler)
        if protocol in ("tcp", "tls") and not location.rsplit(":", 1)[-1].isdigit():
            raise ValueError(f"missing port number in address {scheduler!r}")
    except (ValueError, TypeError) as e:
        raise UsageError(f"`scheduler={scheduler}` is not a Dask scheduler address such as tcp://HOST:PORT ({e})",
                         code="bad-scheduler") from None
    try:
        client = Client(scheduler, timeout=f"{timeout}s", set_as_default=False)
    except (OSError, TimeoutError) as e:
        raise IRExecError(f"no Dask scheduler answers at {scheduler} within {timeout:g} s ({e})",
                          code="scheduler-unreachable") from None
    try:
        _wait_for_workers(client, scheduler, timeout)
    except BaseException:
        client.close()
        raise
    return client


def _wait_for_workers(client: Any, scheduler: str, timeout: float) -> None:
    try:
        client.wait_for_workers(1, timeout=timeout)
    except (TimeoutError, OSError) as e:
        raise IRExecError(f"the Dask scheduler at {scheduler} has no worker: none joined within {timeout:g} s "
                          f"({type(e).__name__})", code="scheduler-error") from None


def _result(client: Any, future: Any, scheduler: str, timeout: float) -> Figures:
    """A sample's figures; waiting ends when the cluster has been without a worker for
    ``timeout`` seconds, or loses the sample's workers again and again."""
    from distributed import KilledWorker

    idle_since: float | None = None
    while True:
        try:
            return future.result(timeout=min(1.0, timeout))
        except TimeoutError:
            pass
        except KilledWorker as e:
            raise IRExecError(f"the Dask workers at {scheduler} died running a sample ({e})",
                              code="scheduler-error") from None
        except (OSError, asyncio.CancelledError) as e:
            raise IRExecError(f"the Dask cluster at {scheduler} failed: {type(e).__name__}: {e}",
                              code="scheduler-error") from None
        try:
            workers = len(client.scheduler_info(n_workers=-1).get("workers", {}))
        except (OSError, TimeoutError) as e:
            raise IRExecError(f"the Dask scheduler at {scheduler} stopped answering ({type(e).__name__})",
                              code="scheduler-error") from None
        now = time.monotonic()
        idle_since = None if workers else idle_since if idle_since is not None else now
        if idle_since is not None and now - idle_since > timeout:
            raise IRExecError(f"the Dask cluster at {scheduler} has had no worker for {timeout:g} s: its "
                              "workers died or left", code="scheduler-error")


def run_dataset(a: str, a_weights: str | None, b: str, b_weights: str | None, directory: str, *, jobs: int = 1,
                scheduler: str | None = None, scheduler_timeout: float = SCHEDULER_TIMEOUT,
                max_memory: int | None = None, ablate: int = 32, steps: int = 0,
                candidates: int = CANDIDATES) -> DatasetSummary:
    """Per-sample figures (each sample a prefill and ``steps`` greedy decode steps of a stateful LM), then
    the top ``ablate`` weights (by their layer's own mean error) measured by the outputs' error with only
    that weight compressed, and the keep-K curve over them: the best of the greedy forward path (greedy_keep.py,
    ``candidates`` a step) and a portfolio of keep sets (keep_portfolio.py) at each K."""
    from .keep_curve import replaced_errors

    paths = sample_paths(directory)
    paths4 = (os.path.abspath(a), a_weights and os.path.abspath(a_weights), os.path.abspath(b),
              b_weights and os.path.abspath(b_weights))
    key: Key = (*paths4, content_hash(*paths4))
    if steps:
        _need_state(key)
    summary = DatasetSummary(runner=f"dask {scheduler}" if scheduler else f"{jobs} process(es)" if jobs > 1 else "serial",
                             steps=steps)
    progress = _Progress(len(paths))
    try:
        with _Runner(jobs, scheduler, scheduler_timeout) as runner:
            for path, figs in zip(paths, runner.map(sample_figures, [(key, p, max_memory, steps) for p in paths])):
                summary.add(path, figs)
                progress.step(os.path.basename(path))
            summary.rank()  # by the layer's own error: which weights to measure
            every = [(name, summary.weights[name].port, summary.weights[name].b_layer) for name in summary.ranking]
            measured = every[:ablate]
            progress.total += len(measured)
            if measured:
                tasks = [(key, every, [i], paths, max_memory, steps) for i in range(len(measured))]
                for (name, _, _), errors in zip(measured, runner.map(replaced_errors, tasks)):
                    summary.weights[name].alone = errors
                    progress.step(name)
                summary.rank()
                ranked = [(name, summary.weights[name].port, summary.weights[name].b_layer)
                          for name in summary.ranking]
                damaged = sum(1 for name, _, _ in measured if summary.weights[name].beyond_rounding)
                progress.total += greedy_runs(len(measured), damaged, candidates)

                def task(replaced: list[int]) -> tuple[Any, ...]:
                    return key, ranked, replaced, paths, max_memory, steps

                seen: dict[frozenset[str], list[float]] = {}
                chosen = greedy_path(summary, runner, task, replaced_errors, candidates, progress.step, seen)
                best = best_keep_sets(summary, runner, task, replaced_errors, seen, candidates, progress.more,
                                      progress.step)
                kept = entry_order(best, summary.ranking)
                summary.curve = [{"keep": s.keep, "kept": kept[s.keep - 1] if s.keep else None, **spread(s.errors),
                                  "per_sample": [_num(e) for e in s.errors], "candidates": tried,
                                  "ignored_scope": [n for n in kept if n in s.names], "found_by": s.found_by,
                                  "forward_mean_rel_l2": spread(errors)["mean_rel_l2"]}
                                 for s, (_, errors, tried) in zip(best, chosen)]
                summary.ranking = kept + [name for name in summary.ranking if name not in kept]
                summary.scope, summary.keep_sets = summary.curve[min(5, len(kept))]["ignored_scope"], len(seen)
    finally:
        progress.close()
    return summary


def _need_state(key: Key) -> None:
    """Decode steps need both models stateful (ReadValue/Assign variables)."""
    for path, session in zip((key[0], key[2]), sessions(key)):
        if not session.variables:
            raise UsageError(f"`steps` needs stateful models; {path} has no ReadValue/Assign variables",
                             code="not-stateful", file=path)


__all__ = ["DatasetSummary", "run_dataset", "sample_figures", "sample_paths", "spread"]
