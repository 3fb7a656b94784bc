"""``irexec diff --device ... --suggest``: which of the plugin's settings that change
numbers bring the outputs within their accuracy, and what each costs in latency.

The properties tried are the known ones (``NUMERIC_PROPERTIES``) and any other
read-write property the device lists whose name says it sets a precision, a
quantization group or the execution mode, each at its most exact value.  Each is
first tried alone: one whose value read back from the compiled model does not change is
dropped; one whose outputs are bit-identical to the diff's own has no effect alone and
is combined only with properties that have one (an f32 KV cache changes nothing while
the inference runs in bf16, whose values f16 holds exactly, and is needed once it runs
in f32).  The sets grow in size, skipping any superset of a set that already brings
every output of every step within its budget (the same test as the diff's own), so
every clean set found is inclusion-minimal: none of its proper subsets is clean.  Each
set is compiled once and its run timed (the best of a few runs of all the steps, after
one untimed); at most ``MAX_COMPILATIONS`` sets are compiled."""

from __future__ import annotations

import itertools
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .accuracy import stated_accuracy
from .core import _declared_n
from .device import DeviceSide
from .figures import tensor_figures
from .reference import ReferenceSide

# the properties that change a plugin's numbers, and the value that makes it most exact
NUMERIC_PROPERTIES = {
    "INFERENCE_PRECISION_HINT": "f32",
    "KV_CACHE_PRECISION": "f32",
    "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0",
    "EXECUTION_MODE_HINT": "ACCURACY",
}
TIMED_RUNS = 5
MAX_COMPILATIONS = 48  # sets compiled at most, the diff's own settings included
NO_EFFECT = "no effect alone"  # outputs bit-identical to the diff's own
UNCHANGED = "read back unchanged"  # the compiled model reads the property back as before


@dataclass
class Trial:
    settings: dict[str, str]
    within: bool
    worst_rel_l2: float  # the largest relative L2 error of an output over the steps
    seconds: float  # the best time of one run of all the steps
    error: str = ""  # the plugin refused this set
    read_back: dict[str, str] = field(default_factory=dict)  # the properties tried, as the compiled model reads them
    dropped: str = ""  # why a property tried alone is left out of the combinations
    why: str = ""  # a minimal set: what each of its properties does for it
    outputs: list[dict[tuple[str, int], np.ndarray]] = field(default_factory=list, repr=False)

    def as_dict(self) -> dict[str, Any]:
        return {"settings": self.settings, "within": self.within, "worst_rel_l2": _finite(self.worst_rel_l2),
                "seconds": _finite(self.seconds), "error": self.error or None, "read_back": self.read_back,
                "dropped": self.dropped or None, "why": self.why or None}


@dataclass
class Suggestion:
    baseline: Trial
    trials: list[Trial] = field(default_factory=list)
    best: Trial | None = None  # the fastest inclusion-minimal set that brings the outputs within
    tried: list[str] = field(default_factory=list)  # the properties the device supports, tried
    minimal: list[Trial] = field(default_factory=list)  # every inclusion-minimal clean set found, fastest first
    compilations: int = 0
    capped: bool = False  # MAX_COMPILATIONS was reached before every set was tried

    @property
    def alternatives(self) -> list[Trial]:
        return [t for t in self.minimal if t is not self.best]

    def as_dict(self) -> dict[str, Any]:
        return {"baseline": self.baseline.as_dict(), "trials": [t.as_dict() for t in self.trials],
                "best": None if self.best is None else self.best.as_dict(), "tried": self.tried,
                "minimal": [t.as_dict() for t in self.minimal], "compilations": self.compilations,
                "capped": self.capped}


def _finite(x: float) -> float | str:
    return x if np.isfinite(x) else str(x)


def exact_value(name: str) -> str | None:
    """The most exact value of a property that changes numbers, judged by its name; None for others."""
    if name in NUMERIC_PROPERTIES:
        return NUMERIC_PROPERTIES[name]
    if name.endswith(("_PRECISION", "_PRECISION_HINT")):
        return "f32"
    if name.endswith(("QUANTIZATION_GROUP_SIZE", "CACHE_GROUP_SIZE")):
        return "0"
    return None


def candidate_properties(supported: Mapping[str, str]) -> dict[str, str]:
    """The read-write properties among ``supported`` (name -> RO/RW) that change numbers, with
    their most exact value: the known ones first, then the others in the device's order."""
    writable = [k for k, mode in supported.items() if "W" in str(mode).upper() or not mode]
    known = [k for k in NUMERIC_PROPERTIES if k in writable]
    others = [k for k in writable if k not in NUMERIC_PROPERTIES and exact_value(k) is not None]
    return {k: str(exact_value(k)) for k in (*known, *others)}


def suggest_settings(ref: ReferenceSide, other: DeviceSide, steps: Sequence[Mapping[str, np.ndarray]],
                     ref_history: Sequence[Mapping[str, np.ndarray]], budget: Mapping[int, float]) -> Suggestion:
    values = candidate_properties(_supported(other))
    names = list(values)
    baseline = _trial(ref, other, steps, ref_history, budget, {}, names)
    out = Suggestion(baseline, tried=names, compilations=1)
    effective = []
    for name in names:
        settings = {name: values[name]}
        if _as_ran(other, settings):
            continue
        if out.compilations >= MAX_COMPILATIONS:
            out.capped = True
            break
        t = _trial(ref, other, steps, ref_history, budget, settings, names, baseline)
        t.outputs = []  # only the baseline's are compared with
        out.compilations += 1
        out.trials.append(t)
        if not t.error and t.dropped != UNCHANGED:
            effective.append(name)
    inert = {next(iter(t.settings)) for t in out.trials if t.dropped == NO_EFFECT}
    clean = [frozenset(t.settings) for t in out.trials if t.within and not t.dropped]
    for size in range(2, 0 if out.capped else len(effective) + 1):
        for keys in itertools.combinations(effective, size):
            if any(c <= set(keys) for c in clean) or set(keys) <= inert:
                continue  # a clean set is inside (not minimal), or none of them changes anything alone
            settings = {k: values[k] for k in keys}
            if _as_ran(other, settings):
                continue
            if out.compilations >= MAX_COMPILATIONS:
                out.capped = True
                break
            t = _trial(ref, other, steps, ref_history, budget, settings, names)
            t.outputs = []
            out.compilations += 1
            out.trials.append(t)
            if t.within:
                clean.append(frozenset(keys))
        if out.capped:
            break
    out.minimal = sorted((t for t in out.trials if t.within and not t.dropped), key=lambda t: t.seconds)
    out.best = out.minimal[0] if out.minimal else None
    for t in out.minimal:
        t.why = _why(t, baseline, out.trials)
    baseline.outputs = []
    return out


def _as_ran(other: DeviceSide, settings: Mapping[str, str]) -> bool:
    return all(other.config.get(k, "").lower() == v.lower() for k, v in settings.items())


def _why(t: Trial, baseline: Trial, trials: Sequence[Trial]) -> str:
    """What each property of a minimal set does for it: alone, the properties it sets as read back;
    in a set, how far beyond the outputs stay without it."""
    if len(t.settings) == 1:
        changed = [f"{k}={v}" for k, v in t.read_back.items()
                   if v != baseline.read_back.get(k) and k not in t.settings]
        return f"it sets {', '.join(changed)} together (read back)" if changed else "enough alone"
    by_keys = {frozenset(x.settings): x for x in trials}
    parts = []
    for k in t.settings:
        rest = by_keys.get(frozenset(t.settings) - {k})
        parts.append(f"without {k}: {'not tried' if rest is None else _verdict(rest)}")
    return "; ".join(parts)


def _verdict(t: Trial) -> str:
    return f"refused ({t.error})" if t.error else f"{'within' if t.within else 'beyond'}, worst rel L2 {t.worst_rel_l2:.3g}"


def _supported(other: DeviceSide) -> dict[str, str]:
    try:
        listed = other.core.get_property(other.device, "SUPPORTED_PROPERTIES")
    except RuntimeError:
        return {}
    return {str(k): str(v) for k, v in listed.items()} if isinstance(listed, Mapping) else {str(k): "" for k in listed}


def _shown(value: Any) -> str:
    """A property's value as read back, spelled as it is set: f32, ACCURACY, 0."""
    if hasattr(value, "to_string"):
        return str(value.to_string())
    text = str(value)
    return text.rsplit(".", 1)[-1] if type(value).__name__ != "str" and "." in text and not text[0].isdigit() else text


def _trial(ref: ReferenceSide, other: DeviceSide, steps: Sequence[Mapping[str, np.ndarray]],
           ref_history: Sequence[Mapping[str, np.ndarray]], budget: Mapping[int, float], settings: dict[str, str],
           names: Sequence[str], baseline: Trial | None = None) -> Trial:
    """Compile with ``settings`` over the diff's own, read the properties back, run and time all the
    steps and judge the outputs.  Given the ``baseline``, a single property is checked for effect."""
    from .device import _array, _first_line, _tensor

    config = {**other.config, **settings}
    try:
        model = other._read()
        keys = [(r.input_value(0).get_node().get_friendly_name(), r.input_value(0).get_index()) for r in model.get_results()]
        compiled = other.core.compile_model(model, other.device, config)
    except RuntimeError as e:
        return Trial(settings, False, float("inf"), float("nan"), _first_line(e))
    read_back = {}
    for name in names:
        try:
            read_back[name] = _shown(compiled.get_property(name))
        except RuntimeError:
            continue
    if baseline is not None and all(k in read_back and read_back[k] == baseline.read_back.get(k) for k in settings):
        return Trial(settings, False, float("nan"), float("nan"), read_back=read_back, dropped=UNCHANGED)
    names_in = [p.get_node().get_friendly_name() for p in compiled.inputs]
    feeds = [{i: _tensor(other.ov, step[name]) for i, name in enumerate(names_in)} for step in steps]
    best = float("inf")
    outputs: list[dict[tuple[str, int], np.ndarray]] = []
    for f in feeds:  # one run untimed: the first inference of a compiled model sets it up
        compiled.create_infer_request().infer(f)
        break
    for _ in range(TIMED_RUNS):
        request = compiled.create_infer_request()
        outputs = []
        started = time.perf_counter()
        for f in feeds:
            request.infer(f)
            outputs.append({keys[i]: _array(request.get_output_tensor(i)) for i in range(len(keys))})
        best = min(best, time.perf_counter() - started)
    within, worst = True, 0.0
    ports = ref.output_ports()
    for mine, theirs in zip(ref_history, outputs):
        for layer, port, key in ports:
            stated = stated_accuracy(layer.type, mine[key].dtype, _declared_n(ref, layer, mine[key].shape), other.slack_units)
            fig = tensor_figures(theirs[(layer.name, port)], mine[key], stated, budget.get(layer.id, 0.0))
            within = within and fig.within
            worst = max(worst, fig.rel_l2)
    trial = Trial(settings, within, worst, best, read_back=read_back, outputs=outputs)
    if baseline is not None and _identical(outputs, baseline.outputs):
        trial.dropped = NO_EFFECT
    return trial


def _identical(a: Sequence[Mapping[tuple[str, int], np.ndarray]], b: Sequence[Mapping[tuple[str, int], np.ndarray]]) -> bool:
    return len(a) == len(b) and all(x.keys() == y.keys() and all(np.array_equal(x[k], y[k], equal_nan=True) for k in x)
                                    for x, y in zip(a, b))


__all__ = ["MAX_COMPILATIONS", "NUMERIC_PROPERTIES", "Suggestion", "Trial", "candidate_properties", "exact_value",
           "suggest_settings"]
