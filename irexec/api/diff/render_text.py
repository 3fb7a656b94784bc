"""The diff report as text for a terminal: origins first, then the top layers by error."""

from __future__ import annotations

from ...base.errors import spelled
from ...base.table_text import safe_text, table_lines
from ..comparison import format_number
from .render_origins import origin_lines, suggestion_lines
from .report import ORIGIN, DiffReport, LayerResult


def _g(x: float) -> str:
    return format_number(x) if x == x and abs(x) != float("inf") else str(x)


def _short(x: float) -> str:
    if x != x or abs(x) == float("inf"):
        return str(x)
    return f"{x:.3g}"


def _row(r: LayerResult) -> list[str]:
    f = r.figures
    local = "-" if r.local is None else _short(r.local.max_units)
    runtime = "-" if r.fusion is None else f"{r.fusion.node_type} {r.fusion.precision}" + (" fused" if r.fusion.fused else "")
    return [r.name if r.port == 0 else f"{r.name}:{r.port}", r.op, r.status, _g(f.max_abs_error), _short(f.max_units),
            _short(r.budget), _short(r.stated.units), local, _short(f.rel_l2), _short(f.cosine),
            f"{f.nan_diff:+d}/{f.inf_diff:+d}", runtime]


HEADER = ["layer", "op", "status", "max abs err", "units", "budget", "stated", "local units", "rel L2", "cosine",
          "NaN/Inf", "runtime"]


def render_text(report: DiffReport, top: int = 10) -> str:
    reference = next((s for s in report.sides if s.get("role") == "reference"), None)
    if reference is not None and reference.get("name") != "irexec":  # the other side is the reference
        lines = [f"diff {report.model}: irexec against {report.other} ({reference['kind']}, the reference), "
                 f"mode {report.mode}", f"inputs: {report.inputs}"]
    else:
        lines = [f"diff {report.model}: irexec (reference) against {report.other}, mode {report.mode}",
                 f"inputs: {report.inputs}"]
    if report.tolerance:
        lines.append(f"tolerance: {report.tolerance}")
    if report.config:
        lines.append("config: " + ", ".join(f"{k}={v}" for k, v in report.config.items()))
    used = {k: report.properties[k] for k in ("INFERENCE_PRECISION_HINT", "EXECUTION_MODE_HINT",
                                             "CPU_DENORMALS_OPTIMIZATION", "KV_CACHE_PRECISION") if k in report.properties}
    if used:
        lines.append("properties used: " + ", ".join(f"{k}={v}" for k, v in used.items()))
    if report.steps:
        rows = [[str(s.step), "within" if s.within else "beyond",
                 ", ".join(f"{k} rel L2 {_short(f.rel_l2)} max {_short(f.max_units)} units" for k, f in s.outputs.items()),
                 "-" if s.reference_token is None else str(s.reference_token), "-" if s.other_token is None else str(s.other_token)]
                for s in report.steps]
        lines.extend(table_lines(["step", "outputs", "figures", "irexec token", "other token"], rows))
        first = report.first_token_step
        lines.append("greedy tokens agree on every step" if first is None else f"first step whose greedy token differs: {first}")
        lines.append(f"layers compared at step {report.analysed_step}")
    lines.extend(table_lines(HEADER, [_row(r) for r in report.outputs]))
    lines.extend(origin_lines(report, top))
    amplifiers = report.amplifiers
    if amplifiers:
        lines.append("amplifying: " + ", ".join(f"{r.name} (x{_short(r.amplification or 0)})" for r in amplifiers[:top]))
    worst = sorted(report.layers, key=lambda r: (r.status != ORIGIN, -_key(r.figures.rel_l2), r.index))
    if worst:
        shown = worst[:top] if top else worst
        lines.append(f"compared {len(report.layers)} layer output(s); top {len(shown)}, origins first, then by "
                     "relative L2 error:")
        lines.extend(table_lines(HEADER, [_row(r) for r in shown]))
    if report.words.get("graph"):  # a side with a graph of its own (a plugin's); render_ab says what matched
        lines.append(f"{report.words['graph']}: {len(report.fused)} layer(s) fused with others, {len(report.removed)} "
                     f"{report.words['removed']}; {report.compiles} {report.words['runs']}")
    groups: dict[str, list[str]] = {}
    for name, fusion in report.fused.items():
        groups.setdefault(f"{fusion.node} ({fusion.node_type}, {fusion.precision})", []).append(name)
    for node, names in list(groups.items())[:top or None]:
        lines.append(f"  fused in {node}: {', '.join(names)}")
    if top and len(groups) > top:
        lines.append(f"  ... and {len(groups) - top} more fused nodes " + spelled("(`top=0` lists all; `json` has every layer)"))
    if report.no_counterpart and any(x.get("kind") != "ir" for x in report.sides):  # render_ab lists a second IR's
        shown_nc = list(report.no_counterpart.items())[:top or None]
        lines.append(f"{len(report.no_counterpart)} layer(s) with no counterpart on the other side (not compared):")
        lines.extend(f"  {name}: {why}" for name, why in shown_nc)
        if top and len(report.no_counterpart) > top:
            lines.append(f"  ... and {len(report.no_counterpart) - top} more")
    unmatched_source = (report.matching or {}).get("unmatched_b", {}) if any(
        x.get("kind") == "source" for x in report.sides) else {}
    if unmatched_source:
        lines.append(f"{len(unmatched_source)} source tensor(s) with no counterpart in the IR (not compared):")
        lines.extend(f"  {name}: {why}" for name, why in list(unmatched_source.items())[:top or None])
    lines.extend(suggestion_lines(report))
    lines.extend(f"note: {n}" for n in report.notes)
    verdict = "ORIGIN FOUND" if any(r.status == ORIGIN for r in report.layers) else \
        "outputs within stated accuracy" if report.outputs_within else \
        "outputs beyond stated accuracy, explained by the runtime precision" if report.precision_groups() else \
        "outputs beyond stated accuracy"
    lines.append(verdict)
    return safe_text(lines)


def _key(x: float) -> float:
    return 1e308 if x != x else x


__all__ = ["render_text"]
