"""``irexec diff A.xml B.xml --inputs-dir DIR``: per-layer figures over a data set.

Each sample (one .npz) is diffed on its own and reduced at once to a few numbers per
layer (rel L2, max abs error, units, whether it is an origin) and per compressed weight
(the layer's own error); no tensor outlives its sample, and only these numbers travel
back from a process or a Dask worker.  Samples are reduced in their sorted order, so
the figures do not depend on how many processes ran them nor in which order they ended.
Each process or worker loads the two models once.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ...base.errors import UsageError
from ...base.extras import install_hint
from .report import ORIGIN

Figures = dict[str, Any]  # what one sample sends back

# a model pair as each process loads it: A, A's weights, B, B's weights, the memory limit
Key = tuple[str, str | None, str, str | None, int | None]
_models: dict[Key, Any] = {}  # per process: the loaded models


def sample_paths(directory: str) -> list[str]:
    try:
        names = sorted(n for n in os.listdir(directory) if n.endswith(".npz"))
    except OSError as e:
        raise UsageError(f"`inputs_dir={directory}`: {e.strerror}", code="bad-inputs-dir", file=directory) from None
    if not names:
        raise UsageError(f"`inputs_dir={directory}` holds no .npz sample", code="bad-inputs-dir", file=directory)
    return [os.path.join(directory, n) for n in names]


def _sessions(key: Key) -> Any:
    if key not in _models:
        from ..session import Session

        _models[key] = (Session(key[0], key[1], max_memory=key[4]), Session(key[2], key[3], max_memory=key[4]))
    return _models[key]


def sample_figures(key: Key, path: str) -> Figures:
    """Diff one sample and keep a few numbers per layer and per weight."""
    from ...system.tensorfile import load_npz
    from .ir_side import run_ir_diff

    a, b = _sessions(key)
    feeds = dict(load_npz(path))
    names = {p.name for p in a.model.parameters}
    feeds = {k: v for k, v in feeds.items() if k in names} or feeds
    report = run_ir_diff(a, b, [feeds], model=key[0], other_model=key[2], inputs=path, ablate=0)
    return {"layers": {f"{r.name}:{r.port}" if r.port else r.name: (r.figures.rel_l2, r.figures.max_abs_error,
                                                                   r.figures.max_units, r.status == ORIGIN)
                       for r in report.layers},
            "outputs": {r.name: r.figures.rel_l2 for r in report.outputs},
            "weights": {w.layer: w.layer_rel_l2 for w in report.weights}}


@dataclass
class _Stat:
    values: list[float] = field(default_factory=list)  # one scalar per sample, for the percentile
    max_abs: float = 0.0
    max_units: float = 0.0
    origins: int = 0

    def summary(self) -> dict[str, Any]:
        vals = sorted(self.values)
        p95 = vals[min(len(vals) - 1, math.ceil(0.95 * len(vals)) - 1)] if vals else 0.0
        return {"samples": len(vals), "mean_rel_l2": _num(math.fsum(vals) / len(vals)) if vals else 0.0,
                "p95_rel_l2": _num(p95), "max_rel_l2": _num(vals[-1]) if vals else 0.0,
                "max_abs_error": _num(self.max_abs), "max_units": _num(self.max_units), "origin_count": self.origins}


def _num(x: float) -> float | str:
    return x if math.isfinite(x) else str(x)


@dataclass
class DatasetSummary:
    samples: list[str] = field(default_factory=list)
    layers: dict[str, _Stat] = field(default_factory=dict)
    outputs: dict[str, _Stat] = field(default_factory=dict)
    weights: dict[str, _Stat] = field(default_factory=dict)
    runner: str = "serial"

    def add(self, path: str, figs: Figures) -> None:
        self.samples.append(os.path.basename(path))
        for name, (rel, max_abs, units, origin) in figs["layers"].items():
            s = self.layers.setdefault(name, _Stat())
            s.values.append(rel)
            s.max_abs, s.max_units = max(s.max_abs, max_abs), max(s.max_units, units)
            s.origins += bool(origin)
        for name, rel in figs["outputs"].items():
            self.outputs.setdefault(name, _Stat()).values.append(rel)
        for name, rel in figs["weights"].items():
            self.weights.setdefault(name, _Stat()).values.append(rel)

    def as_dict(self) -> dict[str, Any]:
        return {"runner": self.runner, "samples": self.samples,
                "outputs": {k: v.summary() for k, v in self.outputs.items()},
                "layers": {k: v.summary() for k, v in self.layers.items()},
                "weights": dict(sorted(((k, v.summary()) for k, v in self.weights.items()),
                                       key=lambda kv: -float(kv[1]["mean_rel_l2"])))}


def _pool_figures(args: tuple[Key, str]) -> Figures:
    return sample_figures(*args)


def _figures(key: Key, paths: list[str], jobs: int, scheduler: str | None
             ) -> Iterator[Figures]:
    """Each sample's figures, in the order of ``paths``, as they are ready."""
    if scheduler:
        try:
            from dask.distributed import Client
        except ImportError as e:
            raise UsageError(f"`scheduler` needs Dask distributed ({e}); {install_hint('dask')}",
                             code="missing-extra") from None
        with Client(scheduler, timeout="30s") as client:
            futures = client.map(sample_figures, [key] * len(paths), paths, pure=False)
            for future in futures:
                yield future.result()
                future.release()
        return
    if jobs <= 1:
        for path in paths:
            yield sample_figures(key, path)
        return
    import multiprocessing

    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        yield from pool.imap(_pool_figures, [(key, p) for p in paths])


def run_dataset(a: str, a_weights: str | None, b: str, b_weights: str | None, directory: str, *, jobs: int = 1,
                scheduler: str | None = None, max_memory: int | None = None) -> DatasetSummary:
    paths = sample_paths(directory)
    key = (os.path.abspath(a), a_weights and os.path.abspath(a_weights), os.path.abspath(b),
           b_weights and os.path.abspath(b_weights), max_memory)
    summary = DatasetSummary(runner=f"dask {scheduler}" if scheduler else f"{jobs} process(es)" if jobs > 1 else "serial")
    for path, figs in zip(paths, _figures(key, paths, jobs, scheduler)):
        summary.add(path, figs)
    return summary


__all__ = ["DatasetSummary", "run_dataset", "sample_figures", "sample_paths"]
