"""The Python API behind ``irexec run``: load a model once, then run, compare
and check it with the same options as the command line.

    import irexec
    with irexec.Session("model.xml") as s:
        result = s.run({"x": x}, dump="layers/", profile=True)
        report = s.compare(result, "expected.npz", atol=1e-6)
        print(report.ok, result.profile.render())
"""

from __future__ import annotations

import difflib
import os
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from .checker import CheckResult, check_model
from .comparison import CompareReport, Tolerance, compare_outputs
from .dump import LayerDumper
from .errors import Diagnostic, UsageError
from .execute import LayerHook, live_layers, output_names, reads_values, run_model
from .ir.reader import Layer
from .model import Model, load
from .progress import ProgressBar
from .random_inputs import random_inputs
from .report.profile import Profiler, ProfileReport
from .shapes import PartialShape
from .tensorfile import load_npz

ToleranceLike = Tolerance | float | Mapping[str, float] | None


@dataclass
class RunReport:
    """What one ``Session.run`` produced."""

    outputs: dict[str, np.ndarray]
    inputs: dict[str, np.ndarray]  # the feeds used (generated ones included)
    generated_inputs: bool = False
    stopped_at: Layer | None = None
    profile: ProfileReport | None = None
    dump_dir: str | None = None
    # output shapes that disagree with the file's <dim>s (the run does not depend on them)
    warnings: list[Diagnostic] = field(default_factory=list)
    # wall time of each timed run, in seconds (warm-up runs excluded)
    latencies: list[float] = field(default_factory=list)

    def __getitem__(self, name: str) -> np.ndarray:
        return self.outputs[name]


class Session:
    """A loaded model, ready to run many times."""

    def __init__(self, model: Model | str | os.PathLike[str], weights: str | None = None, max_memory: int | None = None,
                 *, follow_symlinks: bool | None = None):
        """``max_memory``: bytes of tensors a run may hold (default: $IREXEC_MAX_MEMORY or half the RAM);
        ``follow_symlinks``: read files through links that leave their folder (default: $IREXEC_FOLLOW_SYMLINKS)."""
        self.max_memory = max_memory
        self.model = model if isinstance(model, Model) else load(os.fspath(model), weights, max_memory=max_memory,
                                                                 follow_symlinks=follow_symlinks)

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.model.close()

    @property
    def input_names(self) -> list[str]:
        return [p.name for p in self.model.parameters]

    @property
    def output_names(self) -> list[str]:
        return list(output_names(self.model).values())

    def random_inputs(self, seed: int = 0, input_shapes: Mapping[str, Sequence[int]] | None = None,
                      val_ranges: Mapping[str | None, tuple[float, float]] | None = None) -> dict[str, np.ndarray]:
        """Inputs from the declared shapes and types (see ``irexec.random_inputs``);
        ``val_ranges``: {Parameter name, or None for all: (low, high)}."""
        shapes = {k: tuple(int(n) for n in v) for k, v in (input_shapes or {}).items()}
        return random_inputs(self.model, seed, shapes, self.max_memory, val_ranges)

    def find_layer(self, key: str | int) -> Layer:
        layer = self.model.find_layer(str(key))
        if layer is None:
            close = difflib.get_close_matches(str(key), [l.name for l in self.model.layers.values()], n=3)
            hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else " (give a layer id or name)"
            raise UsageError(f"--stop-at {str(key)!r} names no layer{hint}", code="unknown-name", file=self.model.path)
        return layer

    def run(
        self,
        feeds: Mapping[str, np.ndarray] | None = None,
        *,
        seed: int = 0,
        input_shapes: Mapping[str, Sequence[int]] | None = None,
        val_ranges: Mapping[str | None, tuple[float, float]] | None = None,
        stop_at: str | int | None = None,
        dump: str | os.PathLike[str] | None = None,
        profile: bool = False,
        repeat: int = 1,
        progress: bool = False,
        on_layer: LayerHook | None = None,
        warmup: int = 0,
    ) -> RunReport:
        """Run the model.  Without ``feeds``, inputs are generated from ``seed``
        (and ``input_shapes`` for dims that are not static).  ``stop_at`` (a
        layer id or name) returns that layer's outputs, keyed by the port's
        first tensor name or ``layer_name:port_id``.  ``dump`` writes every
        layer's outputs to a directory (first run only); ``profile`` times every
        layer, over ``repeat`` runs; ``progress`` draws a bar on a terminal.
        ``warmup`` runs go first and are neither timed nor profiled;
        ``RunReport.latencies`` holds the wall time of each of the ``repeat`` runs."""
        if repeat < 1:
            raise UsageError(f"repeat={repeat} must be at least 1", code="bad-repeat")
        generated = feeds is None
        if feeds is None:
            feeds = self.random_inputs(seed, input_shapes, val_ranges)
        elif input_shapes or val_ranges:
            raise UsageError("input shapes apply to generated inputs; they cannot be combined with given inputs",
                             code="input-shape-with-inputs")
        stop_key = None
        targets = [r.id for r in self.model.results]
        if stop_at is not None:
            stop_layer = self.find_layer(stop_at)
            stop_key, targets = str(stop_layer.id), [stop_layer.id]

        dumper = LayerDumper(self.model, os.fspath(dump)) if dump is not None else None
        profiler = Profiler() if profile else None
        bar = ProgressBar(len(live_layers(self.model, targets)) * (repeat + warmup)) if progress else None
        latencies: list[float] = []
        failed = True
        try:
            for i in range(warmup + repeat):
                timed = i >= warmup
                hooks: list[LayerHook] = [h for h in (dumper if i == 0 else None, profiler if timed else None, bar, on_layer)
                                          if h is not None]
                if profiler is not None and i > warmup:
                    profiler.next_run()
                start = time.perf_counter()
                result = run_model(self.model, feeds, stop_at=stop_key, on_layer=_chain(hooks), max_memory=self.max_memory)
                if timed:
                    latencies.append(time.perf_counter() - start)
            failed = False
        finally:
            if bar is not None:
                bar.close()
            if dumper is not None:
                dumper.close(raise_errors=not failed)
        return RunReport(result.outputs, dict(feeds), generated, result.stopped_at,
                         profiler.report() if profiler is not None else None,
                         os.fspath(dump) if dump is not None else None, result.warnings, latencies)

    def compare(
        self,
        outputs: RunReport | Mapping[str, np.ndarray],
        reference: str | os.PathLike[str] | Mapping[str, np.ndarray],
        atol: ToleranceLike = None,
        rtol: ToleranceLike = None,
    ) -> CompareReport:
        return compare(outputs, reference, atol, rtol)

    def check(self, input_shapes: Mapping[str, Sequence[int] | PartialShape] | None = None) -> CheckResult:
        """Shape-check the loaded model; the result lists every diagnostic."""
        pins = {k: v if isinstance(v, PartialShape) else PartialShape.static(v) for k, v in (input_shapes or {}).items()}
        return check_model(self.model, pins)


def compare(
    outputs: RunReport | Mapping[str, np.ndarray],
    reference: str | os.PathLike[str] | Mapping[str, np.ndarray],
    atol: ToleranceLike = None,
    rtol: ToleranceLike = None,
) -> CompareReport:
    """Compare outputs with a reference (an .npz path or a dict of arrays).
    Tolerances: a number, ``{"output": value, "*": global}`` or a Tolerance."""
    actual = outputs.outputs if isinstance(outputs, RunReport) else outputs
    name = None
    if isinstance(reference, (str, os.PathLike)):
        name = os.fspath(reference)
        reference = load_npz(name)
    return compare_outputs(actual, reference, atol, rtol, reference_name=name)


def _chain(hooks: Iterable[LayerHook]) -> LayerHook | None:
    hooks = list(hooks)
    if not hooks:
        return None
    if len(hooks) == 1:
        return hooks[0]

    def call_all(layer: Layer, outs: list[np.ndarray], seconds: float) -> None:
        for h in hooks:
            h(layer, outs, seconds)

    call_all.reads_values = any(reads_values(h) for h in hooks)  # type: ignore[attr-defined]
    return call_all


__all__ = ["RunReport", "Session", "compare"]
