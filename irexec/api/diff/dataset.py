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
"""

from __future__ import annotations

import asyncio
import math
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ...base.errors import IRExecError, UsageError
from ...base.extras import install_hint
from .report import ORIGIN

Figures = dict[str, Any]  # what one sample sends back

Key = tuple[str, str | None, str, str | None, str]  # A, A's weights, B, B's weights, a hash of the four files
_models: dict[str, Any] = {}  # per process: the loaded models, by the hash of their files (the last few)
_KEEP_MODELS = 2
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


def _weights_path(xml: str, weights: str | None) -> str:
    return weights if weights else os.path.splitext(xml)[0] + ".bin"


def content_hash(a: str, a_weights: str | None, b: str, b_weights: str | None) -> str:
    """A hash of both models' files (XML and weights), read in blocks; an absent weights file counts as empty."""
    import hashlib

    digest = hashlib.blake2b(digest_size=20)
    for path in (a, _weights_path(a, a_weights), b, _weights_path(b, b_weights)):
        digest.update(b"\0" + os.fsencode(os.path.basename(path)) + b"\0")
        try:
            with open(path, "rb") as f:
                while block := f.read(1 << 20):
                    digest.update(block)
        except FileNotFoundError:
            continue
    return digest.hexdigest()


def _sessions(key: Key) -> Any:
    found = _models.get(key[4])
    if found is None:
        from ...base.errors import IRExecError
        from ..session import Session

        found = (Session(key[0], key[1]), Session(key[2], key[3]))
        if content_hash(*key[:4]) != key[4]:  # the files changed since the client hashed them
            raise IRExecError(f"{key[0]} or {key[2]} holds other content here than where the diff started (changed "
                              "since, or another file at the same path on this worker)", code="scheduler-error",
                              file=key[2])
        while len(_models) >= _KEEP_MODELS:
            _models.pop(next(iter(_models)))
        _models[key[4]] = found
    return found


def sample_figures(key: Key, path: str, max_memory: int | None = None) -> Figures:
    """Diff one sample and keep a few numbers per layer and per weight, under ``max_memory``."""
    from ...system.tensorfile import load_npz
    from .ir_side import run_ir_diff

    a, b = _sessions(key)
    feeds = dict(load_npz(path, max_memory))
    names = {p.name for p in a.model.parameters}
    feeds = {k: v for k, v in feeds.items() if k in names} or feeds
    report = run_ir_diff(a, b, [feeds], model=key[0], other_model=key[2], inputs=path, ablate=0, max_memory=max_memory)
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


def _pool_figures(args: tuple[Key, str, int | None]) -> Figures:
    return sample_figures(*args)


def _figures(key: Key, paths: list[str], jobs: int, scheduler: str | None, timeout: float = SCHEDULER_TIMEOUT,
             max_memory: int | None = None) -> Iterator[Figures]:
    """Each sample's figures, in the order of ``paths``, as they are ready."""
    if scheduler:
        yield from _dask_figures(key, paths, scheduler, timeout, max_memory)
        return
    if jobs <= 1:
        for path in paths:
            yield sample_figures(key, path, max_memory)
        return
    import multiprocessing

    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        yield from pool.imap(_pool_figures, [(key, p, max_memory) for p in paths])


def _dask_figures(key: Key, paths: list[str], scheduler: str, timeout: float, max_memory: int | None
                  ) -> Iterator[Figures]:
    """The samples on a Dask cluster; a cluster that cannot be reached, has no worker or loses
    every worker is a coded error within ``timeout`` seconds, never a wait without end."""
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
    with client:
        _wait_for_workers(client, scheduler, timeout)
        futures = client.map(sample_figures, [key] * len(paths), paths, [max_memory] * len(paths), pure=False)
        for future in futures:
            yield _result(client, future, scheduler, timeout)
            future.release()


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
                max_memory: int | None = None) -> DatasetSummary:
    paths = sample_paths(directory)
    paths4 = (os.path.abspath(a), a_weights and os.path.abspath(a_weights), os.path.abspath(b),
              b_weights and os.path.abspath(b_weights))
    key: Key = (*paths4, content_hash(*paths4))
    summary = DatasetSummary(runner=f"dask {scheduler}" if scheduler else f"{jobs} process(es)" if jobs > 1 else "serial")
    for path, figs in zip(paths, _figures(key, paths, jobs, scheduler, scheduler_timeout, max_memory)):
        summary.add(path, figs)
    return summary


__all__ = ["DatasetSummary", "run_dataset", "sample_figures", "sample_paths"]
