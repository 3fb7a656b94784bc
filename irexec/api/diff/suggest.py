"""``irexec diff --device ... --suggest``: which of the plugin's settings that change
numbers bring the outputs within their accuracy, and what each costs in latency.

The properties tried are those among ``NUMERIC_PROPERTIES`` the device reports
supporting: alone, then in pairs, and so on, stopping at the first size where some
set brings every output of every step within its budget (the same test as the
diff's own).  Each set is compiled once and its run timed (the best of a few runs of
all the steps), so the table says what the accuracy costs against the settings the
diff ran with."""

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
TIMED_RUNS = 3


@dataclass
class Trial:
    settings: dict[str, str]
    within: bool
    worst_rel_l2: float  # the largest relative L2 error of an output over the steps
    seconds: float  # the best time of one run of all the steps
    error: str = ""  # the plugin refused this set

    def as_dict(self) -> dict[str, Any]:
        return {"settings": self.settings, "within": self.within, "worst_rel_l2": _finite(self.worst_rel_l2),
                "seconds": _finite(self.seconds), "error": self.error or None}


@dataclass
class Suggestion:
    baseline: Trial
    trials: list[Trial] = field(default_factory=list)
    best: Trial | None = None  # the smallest set that brings the outputs within (the fastest of its size)
    tried: list[str] = field(default_factory=list)  # the properties the device supports, tried

    def as_dict(self) -> dict[str, Any]:
        return {"baseline": self.baseline.as_dict(), "trials": [t.as_dict() for t in self.trials],
                "best": None if self.best is None else self.best.as_dict(), "tried": self.tried}


def _finite(x: float) -> float | str:
    return x if np.isfinite(x) else str(x)


def suggest_settings(ref: ReferenceSide, other: DeviceSide, steps: Sequence[Mapping[str, np.ndarray]],
                     ref_history: Sequence[Mapping[str, np.ndarray]], budget: Mapping[int, float]) -> Suggestion:
    supported = _supported(other)
    tried = [k for k in NUMERIC_PROPERTIES if k in supported]
    baseline = _trial(ref, other, steps, ref_history, budget, {})
    out = Suggestion(baseline, tried=tried)
    for size in range(1, len(tried) + 1):
        level = []
        for keys in itertools.combinations(tried, size):
            settings = {k: NUMERIC_PROPERTIES[k] for k in keys}
            if all(other.config.get(k, "").lower() == v.lower() for k, v in settings.items()):
                continue  # already how the diff ran
            level.append(_trial(ref, other, steps, ref_history, budget, settings))
        out.trials.extend(level)
        good = [t for t in level if t.within]
        if good:
            out.best = min(good, key=lambda t: t.seconds)
            break
    return out


def _supported(other: DeviceSide) -> set[str]:
    try:
        return set(other.core.get_property(other.device, "SUPPORTED_PROPERTIES"))
    except RuntimeError:
        return set()


def _trial(ref: ReferenceSide, other: DeviceSide, steps: Sequence[Mapping[str, np.ndarray]],
           ref_history: Sequence[Mapping[str, np.ndarray]], budget: Mapping[int, float], settings: dict[str, str]) -> Trial:
    from .device import _array, _first_line, _tensor

    config = {**other.config, **settings}
    try:
        model = other._read()
        keys = [(r.input_value(0).get_node().get_friendly_name(), r.input_value(0).get_index()) for r in model.get_results()]
        compiled = other.core.compile_model(model, other.device, config)
    except RuntimeError as e:
        return Trial(settings, False, float("inf"), float("nan"), _first_line(e))
    names = [p.get_node().get_friendly_name() for p in compiled.inputs]
    feeds = [{i: _tensor(other.ov, step[name]) for i, name in enumerate(names)} for step in steps]
    best = float("inf")
    outputs: list[dict[tuple[str, int], np.ndarray]] = []
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
    return Trial(settings, within, worst, best)


__all__ = ["NUMERIC_PROPERTIES", "Suggestion", "Trial", "suggest_settings"]
