"""The text report of ``irexec diff A.xml B.xml --inputs-dir DIR``: per-layer figures over the samples."""

from __future__ import annotations

from typing import Any


def _f(x: float | str) -> str:
    return x if isinstance(x, str) else f"{x:.3g}"  # a non-finite figure comes as "inf" or "nan"


def render_dataset(summary: Any, top: int) -> str:
    from ...base.table_text import safe_text, table_lines

    d = summary.as_dict()
    lines = [f"{len(d['samples'])} sample(s), run by {d['runner']}"]
    for name, s in d["outputs"].items():
        lines.append(f"output {name}: rel L2 mean {_f(s['mean_rel_l2'])}, p95 {_f(s['p95_rel_l2'])}, "
                     f"max {_f(s['max_rel_l2'])}")
    layers = sorted(d["layers"].items(), key=lambda kv: (-kv[1]["origin_count"], -float(kv[1]["p95_rel_l2"])))
    shown = layers[:top] if top else layers
    lines.append(f"layers ({len(layers)}), by how often each is an origin, then p95 rel L2:")
    lines.extend(table_lines(["layer", "origin in", "mean rel L2", "p95 rel L2", "max rel L2", "max abs err"],
                              [[k, f"{s['origin_count']}/{s['samples']}", f"{_f(s['mean_rel_l2'])}",
                                f"{_f(s['p95_rel_l2'])}", f"{_f(s['max_rel_l2'])}", f"{_f(s['max_abs_error'])}"]
                               for k, s in shown]))
    weights = list(d["weights"].items())
    if weights:
        lines.append("compressed weights by the layer's own mean rel L2 over the samples:")
        lines.extend(table_lines(["#", "layer", "mean", "p95", "max"],
                                  [[str(i + 1), k, f"{_f(s['mean_rel_l2'])}", f"{_f(s['p95_rel_l2'])}",
                                    f"{_f(s['max_rel_l2'])}"] for i, (k, s) in enumerate(weights[:top or None])]))
        from .weights import scope_text

        lines.extend(scope_text([k for k, _ in weights[:5]]).split("\n"))
    return safe_text(lines)


__all__ = ["render_dataset"]
