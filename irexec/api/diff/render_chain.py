"""The chain of links (chain.py) as text: one line per link, each link's own report, then the
end-to-end figures and the verdict naming the link to blame."""

from __future__ import annotations

from ...base.table_text import safe_text, table_lines
from ..comparison import format_number
from .chain import ChainLink, ChainReport, describe_origin
from .render_text import render_text

_TITLES = {"converter": "link 1, the converter", "plugin": "link 2, the plugin", "end-to-end": "end to end"}


def _short(x: float) -> str:
    return str(x) if x != x or abs(x) == float("inf") else f"{x:.3g}"


def _summary(link: ChainLink) -> str:
    reference, compared = link.sides[0], link.sides[1]
    first = link.first_origin
    status = f"origin, first {describe_origin(first)}" if first is not None else link.status
    return f"{_TITLES[link.name]}: {compared['description']} against {reference['description']}: {status}"


def render_chain(report: ChainReport, top: int = 10) -> str:
    lines = [f"diff chain: {report.source} -> {report.model} -> {report.device}"
             + (" (config: " + ", ".join(f"{k}={v}" for k, v in report.config.items()) + ")" if report.config else
                " at its defaults"), f"inputs: {report.inputs}"]
    lines.extend(_summary(link) for link in report.links)
    for link in report.links:
        if link.report is None:
            continue
        lines.append("")
        lines.append(f"== {_TITLES[link.name]} ==")
        lines.extend(render_text(link.report, top).splitlines())
    end = report.links[-1]
    lines.append("")
    lines.append(f"== {_TITLES[end.name]}: {end.sides[1]['description']} against {end.sides[0]['description']} ==")
    rows = [[o.name if o.port == 0 else f"{o.name}:{o.port}", "within" if o.figures.within else "beyond",
             format_number(o.figures.max_abs_error), _short(o.figures.max_units), _short(o.budget),
             _short(o.figures.rel_l2), _short(o.figures.cosine)] for o in end.outputs]
    lines.extend(table_lines(["output", "status", "max abs err", "units", "budget", "rel L2", "cosine"], rows))
    lines.append(f"verdict: {report.verdict}")
    return safe_text(lines)


__all__ = ["render_chain"]
