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
from dataclasses import dataclass, field

import numpy as np

from . import dtypes, limits
from .checker import CheckResult, check_model
from .comparison import CompareReport, Tolerance, compare_outputs
from .dump import LayerDumper
from .errors import ERROR, Diagnostic, InputError, IRExecError, UsageError
from .execute import LayerHook, reads_values, run_model
from .executor.schedule import live_layers
from .finite import FiniteCheck
from .ir.records import Layer
from .model import Model, load
from .naming import close_names, output_names
from .ops.state import Variable
from .progress import ProgressBar
from .random_inputs import random_inputs
from .report.profile import Profiler, ProfileReport
from .shapes import PartialShape
from .tensorfile import as_dtype, load_npz, save_npz

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

    def __repr__(self) -> str:
        """One line per output (dtype, shape, range), not the arrays."""
        from .shapes import format_shape

        def brief(a: np.ndarray) -> str:
            text = f"{a.dtype}{format_shape(a.shape)}"
            if a.size and a.dtype.kind in "iufb":
                text += f" in [{a.min()}, {a.max()}]"
            return text

        lines = [f"RunReport: {len(self.outputs)} output(s)" + (" from generated inputs" if self.generated_inputs else "")
                 + (f", stopped at {self.stopped_at.name!r}" if self.stopped_at is not None else "")
                 + (f", {len(self.latencies)} timed run(s)" if len(self.latencies) > 1 else "")]
        lines += [f"  [{name!r}] {brief(np.asarray(a))}" for name, a in self.outputs.items()]
        return "\n".join(lines)


class Session:
    """A loaded model, ready to run many times."""

    def __init__(self, model: Model | str | os.PathLike[str], weights: str | None = None, max_memory: int | None = None,
                 *, follow_symlinks: bool | None = None):
        """``max_memory``: bytes of tensors a run may hold (default: $IREXEC_MAX_MEMORY or half the RAM);
        ``follow_symlinks``: read files through links that leave their folder (default: $IREXEC_FOLLOW_SYMLINKS)."""
        self.max_memory = max_memory
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

    # ---- the state of a stateful model
    @property
    def variables(self) -> dict[str, Variable]:
        """The model's variables by variable_id: declared partial shape and element type."""
        return dict(self.model.variables)

    @property
    def state(self) -> dict[str, np.ndarray]:
        """The value of every variable, by variable_id (read-only arrays; copy one to change it
        and give it back with ``set_state``).  A variable whose initial value comes from its
        ReadValue's initialising input is absent until a run or ``set_state`` gives it a value."""
        out = {}
        for vid in self.model.variables:
            value = self.get_state(vid)
            if value is not None:
                out[vid] = value
        return out

    def get_state(self, variable_id: str) -> np.ndarray | None:
        """One variable's value (read-only).  On a reset state: zeros (dynamic dims 0) for a
        variable without an initialising input, else None (its ReadValue computes it in a run)."""
        var = self._variable(variable_id)
        value = self._state.get(variable_id)
        return value if value is not None else var.initial_zeros(limits.resolve(self.max_memory))

    def set_state(self, values: Mapping[str, np.ndarray] | str, value: np.ndarray | None = None) -> None:
        """Set variables: ``set_state(id, array)`` or ``set_state({id: array, ...})``.  Each
        array must have the variable's element type and fit its shape (error ``state-mismatch``);
        it is copied.  Variables not named keep their values."""
        items = {values: value} if isinstance(values, str) else dict(values)
        checked: dict[str, np.ndarray] = {}
        for vid, arr in items.items():
            var = self._variable(vid)
            if arr is None:
                raise UsageError(f"no value given for variable {vid!r}", code="state-mismatch", file=self.model.path)
            checked[vid] = _state_value(self.model, var, np.asarray(arr), copy=True)
        self._state.update(checked)

    def reset_state(self, variable_id: str | None = None) -> None:
        """Back to the initial value: every variable, or the one named."""
        if variable_id is None:
            self._state.clear()
        else:
            self._variable(variable_id)
            self._state.pop(variable_id, None)

    def load_state(self, path: str | os.PathLike[str], *, follow_symlinks: bool | None = None) -> None:
        """Set the whole state from an npz keyed by variable_id: it must hold exactly the
        model's variables, each of its type and shape (error ``state-mismatch`` naming it)."""
        name = os.fspath(path)
        arrays = load_npz(name, self.max_memory, follow_symlinks=follow_symlinks)
        variables = self.model.variables
        problems = [f"{name} has no array for variable {vid!r} ({var.etype.name}{var.shape})"
                    for vid, var in variables.items() if vid not in arrays]
        problems += [f"{name} holds {key!r}, which is not a variable of the model (variables: "
                     f"{_listing(list(variables))})" for key in arrays if key not in variables]
        if problems:
            raise InputError([Diagnostic("state-mismatch", p, ERROR, file=self.model.path) for p in problems])
        checked = {vid: _state_value(self.model, variables[vid], arr, copy=False, source=name) for vid, arr in arrays.items()}
        self._state = checked

    def save_state(self, path: str | os.PathLike[str]) -> None:
        """Write every variable's value to an npz keyed by variable_id (atomically)."""
        state = self.state
        missing = [vid for vid in self.model.variables if vid not in state]
        if missing:
            raise UsageError(f"variable{'s' if len(missing) > 1 else ''} {_listing(missing)} "
                             "hold no value yet (their initial value comes from the initialising input of their "
                             "ReadValue, computed in a run)", code="state-not-set", file=self.model.path)
        save_npz(os.fspath(path), state)

    def _variable(self, variable_id: str) -> Variable:
        var = self.model.variables.get(variable_id)
        if var is None:
            known = _listing(list(self.model.variables)) or "none: the model is not stateful"
            raise UsageError(f"{variable_id!r} is not a variable of the model (variables: {known})",
                             code="unknown-variable", file=self.model.path)
        return var

    def random_inputs(self, seed: int = 0, input_shapes: Mapping[str, Sequence[int]] | None = None,
                      val_ranges: Mapping[str | None, tuple[float, float]] | None = None) -> dict[str, np.ndarray]:
        """Inputs from the declared shapes and types (see ``irexec.random_inputs``);
        ``val_ranges``: {Parameter name, or None for all: (low, high)}."""
        shapes = {k: tuple(int(n) for n in v) for k, v in (input_shapes or {}).items()}
        return random_inputs(self.model, seed, shapes, self.max_memory, val_ranges)

    def find_layer(self, key: str | int) -> Layer:
        """A layer by id or full name, else by a name suffix or substring that
        only one layer has (converted names are long: ``.../aten::linear/MatMul``)."""
        layer = self.model.find_layer(str(key))
        if layer is not None:
            return layer
        text = str(key)
        layers = sorted(self.model.layers.values(), key=lambda l: l.index)
        partial = not text.isdigit()  # digits mean a layer id: "99" is not a part of "Add_1990"
        for how, found in (("end with", [l for l in layers if partial and text and l.name.endswith(text)]),
                           ("contain", [l for l in layers if partial and text and text in l.name])):
            if len(found) == 1:
                return found[0]
            if found:
                shown = ", ".join(f'{l.id} "{l.name}"' for l in found[:5]) + (", ..." if len(found) > 5 else "")
                raise UsageError(f"`stop_at` {text!r} is ambiguous: {len(found)} layer names {how} it ({shown}); "
                                 f"give more of the name or the layer id", code="unknown-name", file=self.model.path)
        close = close_names(text, [l.name for l in layers], parts=True)
        hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else " (give a layer id, name, or a unique part of a name)"
        raise UsageError(f"`stop_at` {text!r} names no layer{hint}", code="unknown-name", file=self.model.path)

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
        early executes no Assign)."""
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
                                       max_memory=self.max_memory, state=self._state)
                except IRExecError as e:
                    from .weights_check import fold_errors

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
                self._state = {**self._state, **{k: _frozen(v) for k, v in result.state.items()}}
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
    ) -> CompareReport:
        """``irexec.compare``, with exact defaults for the outputs this model only moves."""
        from .exactness import exact_outputs

        return compare(outputs, reference, atol, rtol, exact=exact_outputs(self.model))

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
) -> CompareReport:
    """Compare outputs with a reference (an .npz path or a dict of arrays).
    Tolerances: a number, ``{"output": value, "*": global}`` or a Tolerance;
    the outputs named in ``exact`` default to exact."""
    actual = outputs.outputs if isinstance(outputs, RunReport) else outputs
    name = None
    if isinstance(reference, (str, os.PathLike)):
        name = os.fspath(reference)
        reference = load_npz(name)
    return compare_outputs(actual, reference, atol, rtol, reference_name=name, exact=exact)


def _frozen(a: np.ndarray) -> np.ndarray:
    """A variable's new value: an array of its own that nothing can change (an output
    handed to the caller may be the same tensor)."""
    out = np.array(a, copy=True)
    out.flags.writeable = False
    return out


def _state_value(model: Model, var: Variable, arr: np.ndarray, *, copy: bool, source: str | None = None) -> np.ndarray:
    """``arr`` as a value of ``var``, or a coded error naming the variable."""
    held = as_dtype(arr, var.etype.dtype) if var.etype.supported else None
    if held is not None and held.dtype != arr.dtype:
        arr = held  # npz files keep the ml_dtypes types as raw bytes
    etype = dtypes.from_dtype(arr.dtype)
    where = f" in {source}" if source else ""
    if etype is None:
        raise InputError(f"the value of variable {var.id!r}{where} has dtype {arr.dtype}, which no IR element type is",
                         code="state-mismatch", file=model.path, line=var.line)
    why = var.fits(PartialShape.static(arr.shape), etype)
    if why:
        raise InputError(f"the value of variable {var.id!r}{where} does not fit: {why}", code="state-mismatch", file=model.path,
                         line=var.line)
    return _frozen(arr) if copy or arr.flags.writeable else arr


def _listing(names: list[str], shown: int = 8) -> str:
    text = ", ".join(repr(n) for n in names[:shown])
    return text + (f", and {len(names) - shown} more" if len(names) > shown else "")


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
