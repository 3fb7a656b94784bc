"""``irexec run --report out.json``: what one run produced, for machines.

The contract is ``schemas/run-report.schema.json`` (version 1: fields may be
added, never removed or retyped).  Numbers that are not finite (a NaN max
error, an infinite mean) are written as null, so the file is strict JSON;
the counts (``nan``, ``posinf``, ``neginf``, ``unfixable``) say why."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from .. import __version__
from ..api.comparison import CompareReport, OutputComparison, format_number
from ..api.stats import distribution, tensor_stats
from ..base.errors import Diagnostic
from .encoding import encodable

REPORT_VERSION = 1


def _number(x: object) -> object:
    """A JSON number, or null for NaN and infinities."""
    if isinstance(x, bool) or x is None or isinstance(x, int):
        return x
    f = float(x)  # type: ignore[arg-type]
    return f if math.isfinite(f) else None


def _stats(name: str, arr: np.ndarray, spread: bool = False) -> dict[str, Any]:
    s = tensor_stats(arr).as_dict()
    out = {"name": name, **{k: (_number(v) if k in ("min", "max", "mean") else v) for k, v in s.items()}}
    if spread:
        out["distribution"] = {k: (_number(v) if not isinstance(v, list) else v) for k, v in distribution(arr).items()} or None
    return out


def _comparison(c: OutputComparison) -> dict[str, Any]:
    out: dict[str, Any] = {"name": c.name, "status": c.status, "passed": c.ok, "atol": c.atol, "rtol": c.rtol,
                           "tolerance_from": c.tolerance_from, "tolerance": c.tolerance_text()}
    if c.status in ("ok", "mismatch"):
        out.update({"size": c.size, "mismatches": c.mismatches, "unfixable": c.unfixable,
                    "max_abs_error": _number(c.max_abs_error), "max_rel_error": _number(c.max_rel_error),
                    "worst_index": list(c.worst_index) if c.worst_index is not None else None,
                    "worst_actual": format_number(c.worst_actual) if c.worst_index is not None else None,
                    "worst_reference": format_number(c.worst_reference) if c.worst_index is not None else None,
                    "suggested_atol": c.suggested_atol, "suggested_rtol": c.suggested_rtol})
    else:
        out["detail"] = c.detail
    return out


def _diagnostic(d: Diagnostic) -> dict[str, Any]:
    out = d.to_dict()
    out["text"] = d.format()
    return out


def run_report(*, model: str, weights: str | None, inputs: Mapping[str, np.ndarray], inputs_path: str | None,
               seed: int | None, outputs: Mapping[str, np.ndarray], comparison: CompareReport | None,
               stopped_at: Mapping[str, Any] | None, warnings: list[Diagnostic], timings: Mapping[str, Any]) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "version": REPORT_VERSION,
        "tool": {"name": "irexec", "version": __version__},
        "model": model,
        "weights": weights,
        "inputs": {"path": inputs_path, "seed": seed, "tensors": [_stats(k, v) for k, v in inputs.items()]},
        "outputs": [_stats(k, v, spread=True) for k, v in outputs.items()],
        "stopped_at": dict(stopped_at) if stopped_at is not None else None,
        "comparison": None,
        "warnings": [_diagnostic(d) for d in warnings],
        "timings": {k: (_number(v) if not isinstance(v, list) else [_number(x) for x in v]) for k, v in timings.items()},
    }
    if comparison is not None:
        doc["comparison"] = {"reference": comparison.reference, "passed": comparison.ok,
                             "paired_by_position": [list(p) for p in comparison.by_position],
                             "outputs": [_comparison(c) for c in comparison.comparisons]}
    doc["ok"] = comparison is None or comparison.ok
    return doc


def render_run_report(doc: dict[str, Any]) -> str:
    # a file name that is not UTF-8 stays its \udcXX escape, which json reads back to the same path
    return encodable(json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n", "json")
