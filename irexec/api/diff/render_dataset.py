"""The text report of ``irexec diff A.xml B.xml --inputs-dir DIR``: per-layer figures over the samples."""

from __future__ import annotations

from typing import Any


def _f(x: float | str) -> str:
    return x if isinstance(x, str) else f"{x:.3g}"  # a non-finite figure comes as "inf" or "nan"


def render_dataset(summary: Any, top: int) -> str:
    from ...base.table_text import safe_text, table_lines

    d = summary.as_dict()
    each = f", each a prefill and {d['decode_steps']} decode step(s)" if d["decode_steps"] else ""
    lines = [f"{len(d['samples'])} sample(s){each}, run by {d['runner']}"]
    for name, s in d["outputs"].items():
        lines.append(f"output {name}: rel L2 mean {_f(s['mean_rel_l2'])}, p95 {_f(s['p95_rel_l2'])}, "
                     f"max {_f(s['max_rel_l2'])}; max abs err {_f(s['max_abs_error'])}, "
                     f"{_f(s['max_units'])} units; origin in {s['origin_count']}/{s['samples']}")
    layers = sorted(d["layers"].items(), key=lambda kv: (-kv[1]["origin_count"], -float(kv[1]["p95_rel_l2"])))
    shown = layers[:top] if top else layers
    lines.append(f"layers ({len(layers)}), by how often each is an origin, then p95 rel L2:")
    lines.extend(table_lines(["layer", "origin in", "mean rel L2", "p95 rel L2", "max rel L2", "max abs err"],
                              [[k, f"{s['origin_count']}/{s['samples']}", f"{_f(s['mean_rel_l2'])}",
                                f"{_f(s['p95_rel_l2'])}", f"{_f(s['max_rel_l2'])}", f"{_f(s['max_abs_error'])}"]
                               for k, s in shown]))
    weights = list(d["weights"].items())
    if weights:
        greedy = "in the order they enter the keep-K curve's best sets, then" if d["keep_curve"] else "by"
        lines.append(f"compressed weights, {greedy} the outputs' error with only that weight compressed (mean over the "
                     "samples; damaged weights, beyond the rounding of their format, first):")
        lines.extend(table_lines(["#", "layer", "outputs alone mean", "p95", "layer's own mean", "beyond rounding in"],
                                  [[str(s["rank"]), k,
                                    _f(s["outputs_alone"]["mean_rel_l2"]) if s["outputs_alone"] else "-",
                                    _f(s["outputs_alone"]["p95_rel_l2"]) if s["outputs_alone"] else "-",
                                    _f(s["mean_rel_l2"]), f"{s['beyond_rounding_in']}/{s['samples']}"]
                                   for k, s in weights[:top or None]]))
        from .weights import scope_text

        if d["keep_curve"]:
            lines.append(f"the best set of {len(d['ignored_scope'])} weights to keep (the keep-K curve has every K):")
        lines.extend(scope_text(d["ignored_scope"]).split("\n"))
    if d["keep_curve"]:
        lines.append("keep-K curve: the outputs' rel L2 over the samples with the best measured set of K weights kept "
                     f"as in A, of {d.get('keep_sets_measured', 0)} sets measured (a set need not hold K - 1's: "
                     "'set' is its change from it; the JSON's ignored_scope gives it whole):")
        curve, rows = d["keep_curve"], []
        for k, c in enumerate(curve):
            now, before = c.get("ignored_scope", []), curve[k - 1].get("ignored_scope", []) if k else []
            change = [f"+{n}" for n in now if n not in before] + [f"-{n}" for n in before if n not in now]
            rows.append([str(c["keep"]), " ".join(change) or "-", _f(c["mean_rel_l2"]), _f(c["p95_rel_l2"]),
                         _f(c["max_rel_l2"]), _f(c.get("forward_mean_rel_l2", c["mean_rel_l2"])), c.get("found_by", "")])
        lines.extend(table_lines(["K", "set", "mean", "p95", "max", "forward path's mean", "found by"], rows))
    return safe_text(lines)


__all__ = ["render_dataset"]
