"""The origins part of the text report: the finding (the first kernel origin), the
kernel origins ranked by how far beyond their runtime precision they are, the
precision origins grouped by op and precision, and the masked departures."""

from __future__ import annotations

from ..comparison import format_number
from .report import MASKED, ORIGIN, DiffReport, LayerResult


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
    if first is not None:
        lines.append(f"FINDING: {_describe(first)}")
        lines.append(f"ORIGIN{'S' if len(kernel) > 1 else ''} ({len(kernel)}): departures beyond the stated accuracy "
                     "and beyond what their runtime precision explains, while the inputs are within theirs; "
                     "the furthest beyond first")
        for row in kernel[:top] if top else kernel:
            r = by_port[(row["name"], row["ports"][0])]
            ports = "" if row["ports"] == [0] else f" [ports {', '.join(map(str, row['ports']))}]"
            lines.append(f"  {_describe(r)}{ports}")
        if top and len(kernel) > top:
            lines.append(f"  ... and {len(kernel) - top} more")
    elif report.layers:
        lines.append("no kernel origin found among the compared layers")
    groups = report.precision_groups()
    if groups:
        count = sum(len(g["layers"]) for g in groups)
        lines.append(f"PRECISION ORIGINS ({count}): departures within what the precision the plugin computed in explains "
                     "(re-run at that precision, they agree)")
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


__all__ = ["origin_lines"]
