"""The Python API behind ``irexec run``: load a model once, then run, compare
and check it with the same options as the command line.

    import irexec
    with irexec.Session("model.xml") as s:
        result = s.run({"x": x}, dump="layers/", profile=True)
        report = s.compare(result, "expected.npz", atol=1e-6)
        print(report.ok, result.profile.render())

A stateful model (ReadValue / Assign) keeps its variables in the session, as
OpenVINO's InferRequest does: each ``run()`` starts from the state the last
one left, ``reset_state()`` goes back to the initial values, and
``state`` / ``get_state`` / ``set_state`` / ``load_state`` / ``save_state``
read and write it per ``variable_id`` (see docs/stateful.md).
"""

from __future__ import annotations

import os
import time
from collections.abc import Collection, Iterable, Mapping, Sequence

import numpy as np

from ..base.errors import IRExecError, UsageError
from ..base.shapes import PartialShape
from ..checker.model_checker import CheckResult, check_model
from ..executor.engine import LayerHook, reads_values, run_model
from ..executor.schedule import live_layers
from ..ir.records import Layer
from ..model.naming import output_names
from ..system.tensorfile import load_npz
from .comparison import CompareReport, Tolerance, compare_outputs
from .dump import LayerDumper
from .finite import FiniteCheck
from .inputs import InputPlan, plan_inputs, random_inputs
from .layer_lookup import find_layer
from .load import Model, load
from .profile import Profiler
from .progress import ProgressBar
from .run_result import RunReport
from .state import SessionState, kept_state

ToleranceLike = Tolerance | float | Mapping[str, float] | None


class Session(SessionState):
    """A loaded model, ready to run many times."""

    def __init__(self, model: Model | str | os.PathLike[str], weights: str | None = None, max_memory: int | None = None,
                 *, follow_symlinks: bool | None = None):
        """``max_memory``: bytes of tensors a run may hold (default: $IREXEC_MAX_MEMORY or half the RAM);
        ``follow_symlinks``: read files through links that leave their folder (default: $IREXEC_FOLLOW_SYMLINKS)."""
        self.max_memory = max_memory
        self.follow_symlinks = follow_symlinks  # also for the JSON beside the model (generate reads config.json)
        self.model = model if isinstance(model, Model) else load(os.fspath(model), weights, max_memory=max_memory,
                                                                 follow_symlinks=follow_symlinks)
        # a stateful model's variables that hold a value, by variable_id (read-only arrays)
        self._state: dict[str, np.ndarray] = {}

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

    def input_plans(self, input_shapes: Mapping[str, Sequence[int]] | None = None,
                    val_ranges: Mapping[str | None, tuple[float, float]] | None = None) -> list[InputPlan]:
        """How each input would be made up: its shape and value range, and why."""
        shapes = {k: tuple(int(n) for n in v) for k, v in (input_shapes or {}).items()}
        return plan_inputs(self.model, shapes, val_ranges)

    def random_inputs(self, seed: int = 0, input_shapes: Mapping[str, Sequence[int]] | None = None,
                      val_ranges: Mapping[str | None, tuple[float, float]] | None = None,
                      plans: list[InputPlan] | None = None) -> dict[str, np.ndarray]:
        """Inputs from the declared shapes and types (see ``irexec.api.inputs``);
        ``val_ranges``: {Parameter name, or None for all: (low, high)}; ``plans``: as
        ``input_plans`` made them."""
        if plans is None:
            plans = self.input_plans(input_shapes, val_ranges)
        return random_inputs(self.model, seed, max_memory=self.max_memory, plans=plans)

    def find_layer(self, key: str | int) -> Layer:
        """A layer by id or full name, else by a name suffix or substring that
        only one layer has (converted names are long: ``.../aten::linear/MatMul``)."""
        return find_layer(self.model, key)

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
        check_finite: bool = False,
        last_position: str | None = None,
    ) -> RunReport:
        """Run the model.  Without ``feeds``, inputs are generated from ``seed``
        (and ``input_shapes`` for dims that are not static).  ``stop_at`` (a
        layer id or name) returns that layer's outputs, keyed by the port's
        first tensor name or ``layer_name:port_id``.  ``dump`` writes every
        layer's outputs to a directory (first run only); ``profile`` times every
        layer, over ``repeat`` runs after a first run profiled apart (its one-time
        work); ``progress`` draws a bar on a terminal.
        ``warmup`` runs go first and are neither timed nor profiled;
        ``RunReport.latencies`` holds the wall time of each of the ``repeat`` runs.
        ``check_finite`` raises ``NonFiniteError`` (code ``non-finite``) at the
        first layer whose output holds NaN or infinity, naming its inputs' ranges.
        A stateful model's runs (warm-up and repeats alike) each start from the session's
        state, and the state the last one leaves is kept (none with ``stop_at``: a run stopped
        early executes no Assign).
        ``last_position`` names an output of logits [batch, positions, vocabulary] of which only
        the last position is wanted (a greedy loop's): where the graph allows, the head product
        computes that position alone and the output holds it alone."""
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
        # the first run of a session does one-time work (weight decompression, folding, caches):
        # profiled apart, so the rows show what every run costs
        first = Profiler() if profile else None
        if profile and warmup == 0:
            warmup = 1
        first_wall = 0.0
        bar = ProgressBar(len(live_layers(self.model, targets)) * (repeat + warmup)) if progress else None
        finite = FiniteCheck(self.model) if check_finite else None
        latencies: list[float] = []
        failed = True
        try:
            for i in range(warmup + repeat):
                timed = i >= warmup
                hooks: list[LayerHook] = [h for h in (dumper if i == 0 else None, finite if i == 0 else None,
                                                      profiler if timed else None, first if i == 0 else None, bar,
                                                      on_layer) if h is not None]
                if profiler is not None and i > warmup:
                    profiler.next_run()
                start = time.perf_counter()
                try:
                    result = run_model(self.model, feeds, stop_at=stop_key, on_layer=_chain(hooks),
                                       max_memory=self.max_memory, state=self._state, last_position=last_position)
                except IRExecError as e:
                    from ..model.weights_check import fold_errors

                    folded = fold_errors(self.model, e.diagnostics)
                    if folded is not e.diagnostics:
                        e.diagnostics = folded
                    raise
                if timed:
                    latencies.append(time.perf_counter() - start)
                elif i == 0:
                    first_wall = time.perf_counter() - start
            failed = False
            if result.state:
                # a hook of the caller's may keep the tensors it saw: then the state is copied
                shared = None if on_layer is not None else (*result.outputs.values(), *feeds.values())
                self._state = {**self._state, **kept_state(result.state, self._state, shared)}
        finally:
            if bar is not None:
                bar.close()
            if dumper is not None:
                dumper.close(raise_errors=not failed)
        return RunReport(result.outputs, dict(feeds), generated, result.stopped_at,
                         profiler.report(first, first_wall, latencies) if profiler is not None else None,
                         os.fspath(dump) if dump is not None else None, result.warnings, latencies)

    def compare(
        self,
        outputs: RunReport | Mapping[str, np.ndarray],
        reference: str | os.PathLike[str] | Mapping[str, np.ndarray],
        atol: ToleranceLike = None,
        rtol: ToleranceLike = None,
        *,
        reference_name: str | None = None,
    ) -> CompareReport:
        """``irexec.compare``, with exact defaults for the outputs this model only moves;
        ``reference_name`` names a reference given as arrays in the report."""
        from .dynamic_quantization import has_compressed_weights, note_dynamic_quantization
        from .exactness import exact_outputs

        report = compare(outputs, reference, atol, rtol, exact=exact_outputs(self.model), reference_name=reference_name)
        if not report.ok and has_compressed_weights(self.model):
            note_dynamic_quantization(report)
        return report

    def check(self, input_shapes: Mapping[str, Sequence[int] | PartialShape] | None = None) -> CheckResult:
        """Shape-check the loaded model; the result lists every diagnostic."""
        pins = {k: v if isinstance(v, PartialShape) else PartialShape.static(v) for k, v in (input_shapes or {}).items()}
        return check_model(self.model, pins)


def compare(
    outputs: RunReport | Mapping[str, np.ndarray],
    reference: str | os.PathLike[str] | Mapping[str, np.ndarray],
    atol: ToleranceLike = None,
    rtol: ToleranceLike = None,
    *,
    exact: Collection[str] = (),
    reference_name: str | None = None,
) -> CompareReport:
    """Compare outputs with a reference (an .npz path or a dict of arrays).
    Tolerances: a number, ``{"output": value, "*": global}`` or a Tolerance;
    the outputs named in ``exact`` default to exact."""
    actual = outputs.outputs if isinstance(outputs, RunReport) else outputs
    name = reference_name
    if isinstance(reference, (str, os.PathLike)):
        name = os.fspath(reference)
        reference = load_npz(name)
    return compare_outputs(actual, reference, atol, rtol, reference_name=name, exact=exact)


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
    keeps = [k for h in hooks for k in getattr(h, "keeps", ())]
    if keeps:
        call_all.keeps = frozenset(keeps)  # type: ignore[attr-defined]
    return call_all


__all__ = ["RunReport", "Session", "compare"]
