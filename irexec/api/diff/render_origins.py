"""The origins part of the text report: the finding (the first kernel origin), the
kernel origins ranked by how far beyond their runtime precision they are, the
precision origins grouped by op and precision, and the masked departures."""

from __future__ import annotations

import html
from typing import Any

from ...base.table_text import table_lines
from ..comparison import format_number
from .report import MASKED, ORIGIN, DiffReport, LayerResult
from .suggest import NO_EFFECT, UNCHANGED


def _short(x: float) -> str:
    return str(x) if x != x or abs(x) == float("inf") else f"{x:.3g}"


def _describe(r: LayerResult) -> str:
    where = "" if r.fusion is None else f", runtime {r.fusion.node_type} in {r.fusion.precision}"
    ports = f", port {r.port}" if r.port else ""
    text = (f"{r.name} ({r.op}{where}{ports}): {r.figures.beyond} of {r.figures.size} elements beyond "
            f"{r.stated.describe()}; max abs err {format_number(r.figures.max_abs_error)}, rel L2 {_short(r.figures.rel_l2)}")
    if r.emulated is not None:
        text += f"; re-run in {r.precision}: {_short(r.excess)} times what that precision explains"
    return text


def origin_lines(report: DiffReport, top: int) -> list[str]:
    lines: list[str] = []
    first = report.finding
    kernel = report.grouped(ORIGIN)
    by_port = {(r.name, r.port): r for r in report.layers}
    device = any(x.get("kind") == "device" for x in report.sides)  # only a plugin has a runtime precision
    if first is not None:
        lines.append(f"FINDING: {_describe(first)}")
        lines.append(f"ORIGIN{'S' if len(kernel) > 1 else ''} ({len(kernel)}): departures beyond the stated accuracy "
                     + ("and beyond what their runtime precision explains, " if device else "")
                     + "while the inputs are within theirs; the furthest beyond first")
        for row in kernel[:top] if top else kernel:
            r = by_port[(row["name"], row["ports"][0])]
            ports = "" if row["ports"] == [0] else f" [ports {', '.join(map(str, row['ports']))}]"
            lines.append(f"  {_describe(r)}{ports}")
            if r.replayed_with:
                lines.append(f"    re-run with {', '.join(r.replayed_with)} (no counterpart on the other side): "
                             "the origin is in this group")
        if top and len(kernel) > top:
            lines.append(f"  ... and {len(kernel) - top} more")
    elif report.layers:
        lines.append(f"no {'kernel ' if device else ''}origin found among the compared layers")
    groups = report.precision_groups()
    if groups:
        count = sum(len(g["layers"]) for g in groups)
        lines.append(f"PRECISION ORIGINS ({count}): departures within what the precision the plugin computed or stored them "
                     "in explains (re-run at that precision they agree, or they cannot be re-run: a KV cache state)")
        for g in groups[:top] if top else groups:
            names = g["layers"]
            shown = ", ".join(names[:3]) + (f", ... ({len(names) - 3} more)" if len(names) > 3 else "")
            lines.append(f"  {g['op']} in {g['precision']}: {len(names)} layer(s): {shown}")
    masked = report.grouped(MASKED)
    if masked:
        lines.append(f"MASKED ({len(masked)}): departures beyond the stated accuracy that no compared consumer carries on")
        for row in masked[:top] if top else masked:
            lines.append(f"  {_describe(by_port[(row['name'], row['ports'][0])])}")
    return lines


def suggestion_lines(report: DiffReport) -> list[str]:
    """--suggest: each set of settings tried, its outputs' worst error and its latency against the diff's own;
    the fastest inclusion-minimal clean set as the suggestion, the other minimal sets as alternatives."""
    s = report.suggestion
    if s is None:
        return []
    base = s.baseline.seconds
    rows = []
    for t in [s.baseline, *s.trials]:
        cost = "-" if t.error or t.seconds != t.seconds or base != base or not base \
            else f"{t.seconds * 1e3:.1f} ms (x{t.seconds / base:.2f})"
        verdict = f"refused: {t.error}" if t.error else t.dropped or ("within" if t.within else "beyond")
        rows.append([_settings(t) or "as the diff ran", verdict, _short(t.worst_rel_l2), cost])
    lines = [f"settings that change numbers, tried ({', '.join(s.tried) or 'none the device supports'}):"]
    lines.extend(table_lines(["settings", "outputs", "worst rel L2", "latency"], rows))
    inert = [_settings(t) for t in s.trials if t.dropped == NO_EFFECT]
    if inert:
        lines.append(f"{NO_EFFECT}, so tried only with a property that has one: {', '.join(inert)}")
    dropped = [_settings(t) for t in s.trials if t.dropped and t.dropped != NO_EFFECT]
    if dropped:
        lines.append(f"left out of the combinations ({UNCHANGED}): {', '.join(dropped)}")
    if s.capped:
        lines.append(f"stopped after {s.compilations} compilations (the cap): not every set was tried, and a set "
                     "named below may have a clean subset among those not tried")
    if s.best is not None:
        lines.append(f"SUGGESTION: {_settings(s.best)} brings every output within its accuracy, at "
                     f"{s.best.seconds / base:.2f} times the latency" + (f"; {s.best.why}" if s.best.why else "")
                     if base else f"SUGGESTION: {_settings(s.best)}")
        others = s.alternatives
        if others:
            lines.append(f"ALTERNATIVES ({len(others)}): other sets that bring every output within, none of whose "
                         "proper subsets does")
            lines.extend(f"  {_settings(t)}: x{t.seconds / base:.2f} the latency; {t.why}" if base else f"  {_settings(t)}"
                         for t in others)
    elif not s.baseline.within:
        lines.append("no setting tried brings the outputs within their accuracy")
    return lines


def _settings(t: Any) -> str:
    return ", ".join(f"{k}={v}" for k, v in t.settings.items())


def origins_html(report: DiffReport) -> str:
    """The finding, the kernel origins ranked, the precision origins grouped and the masked departures, as HTML."""
    def code(name: str) -> str:
        return f"<code>{html.escape(name)}</code>"

    parts = []
    first = report.finding
    source = any(side.get("kind") == "source" for side in report.sides)  # the IR against its source model
    if first is not None:
        why = ("the first origin: where the IR departs from its source model beyond the stated accuracy and the "
               "source's tolerance, on the source's own inputs" if source else
               "the first kernel origin: beyond its stated accuracy and beyond what its runtime precision explains")
        parts.append(f'<p class="finding"><b>Finding: {code(first.name)}</b> ({html.escape(first.op)}'
                     f'{"" if first.fusion is None else ", runtime " + html.escape(first.fusion.precision)}), '
                     f"{why}.</p>")
        kernel = report.grouped(ORIGIN)
        ranked = "origin(s)</b>, the furthest beyond their stated accuracy" if source else \
            "kernel origin(s)</b>, the furthest beyond their precision"
        parts.append(f"<p><b>{len(kernel)} {ranked} first: " + ", ".join(
            f"{code(row['name'])} ({html.escape(row['op'])}, x{_short(float(row['beyond_precision']))})" for row in kernel)
            + "</p>")
    else:
        parts.append("<p>No origin found among the compared layers of the IR.</p>" if source
                     else "<p>No kernel origin found among the compared layers.</p>")
    groups = report.precision_groups()
    if groups:
        parts.append("<p><b>Precision origins</b> (within what their runtime precision explains): " + "; ".join(
            f"{html.escape(g['op'])} in {html.escape(g['precision'])}: {len(g['layers'])}" for g in groups) + "</p>")
    masked = report.grouped(MASKED)
    if masked:
        parts.append("<p><b>Masked</b> (no compared consumer carries them on): "
                     + ", ".join(code(row["name"]) for row in masked) + "</p>")
    return "".join(parts)


__all__ = ["origin_lines", "origins_html", "suggestion_lines"]
