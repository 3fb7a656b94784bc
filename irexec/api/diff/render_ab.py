"""The parts of the text report that only a second IR has: what matched and the
ranked compressed weights, with an NNCF ignored scope to paste."""

from __future__ import annotations

from ...base.errors import spelled
from ...base.table_text import safe_text, table_lines
from .report import DiffReport
from .weights import ignored_scope


def _s(x: float | None) -> str:
    return "-" if x is None else f"{x:.3g}"


def render_ab(report: DiffReport, top: int = 10) -> str:
    lines: list[str] = []
    m = report.matching or {}
    unmatched_a, unmatched_b = m.get("unmatched_a", {}), m.get("unmatched_b", {})
    counts = m.get("counts", {})
    lines.append("matched: " + ", ".join(f"{n} by {how}" for how, n in counts.items()) if counts else "matched: none")
    for title, items in (("unmatched in A", unmatched_a),
                         ("unmatched in B", {k: v for k, v in unmatched_b.items() if "weight of" not in v})):
        if items:
            lines.append(f"{title} ({len(items)}):")
            shown = list(items.items())[:top] if top else list(items.items())
            lines.extend(f"  {name}: {why}" for name, why in shown)
            if top and len(items) > top:
                lines.append(f"  ... and {len(items) - top} more " + spelled("(`json` lists all)"))
    weights = report.weights
    if not weights:
        lines.append("no compressed weight of B has an original in A")
        return safe_text(lines)
    shown = weights[:top] if top else weights
    alone = sum(1 for w in weights if w.output_rel_l2 is not None)
    lines.append(f"compressed weights ({len(weights)}): those beyond the rounding of their format first, then "
                 + ("by the outputs' error with only that weight compressed" if alone == len(weights) else
                    f"the first {alone} by the outputs' error with only that weight compressed, the rest by the "
                    "layer's own output error on the inputs" if alone else "by the layer's own output error on the inputs")
                 + ":")
    rows = [[str(i + 1), w.layer, w.element_type, "-" if w.group_size is None else str(w.group_size), w.zero_point,
             _s(w.sqnr_db), _s(w.max_abs_error), _s(w.mean_abs_error), _s(w.max_steps), _s(w.layer_rel_l2),
             _s(w.output_rel_l2), "-" if w.max_steps is None else "yes" if w.within_rounding else "NO"]
            for i, w in enumerate(shown)]
    lines.extend(table_lines(["#", "layer", "type", "group", "zero point", "SQNR dB", "max abs err", "mean abs err",
                               "max steps", "layer rel L2", "outputs rel L2 alone", "within rounding"], rows))
    notes = sorted({n for w in shown for n in w.notes})
    lines.extend(f"note: {n}" for n in notes)
    damaged = [w.layer for w in weights if not w.within_rounding and w.max_steps is not None]
    if damaged:
        lines.append(f"beyond the rounding of their format ({len(damaged)}): " + ", ".join(damaged[:top or None]))
    lines.append("to keep the top layers uncompressed (NNCF):")
    lines.extend(ignored_scope(weights, min(top or 5, 5)).split("\n"))
    return safe_text(lines)


__all__ = ["render_ab"]


def html_weights(report: DiffReport) -> str:
    """The HTML section on matching and the ranked weights; empty unless the other side is a second IR."""
    import html

    if report.matching is None:
        return ""
    counts = report.matching.get("counts", {})
    out = ["<h2>Matching</h2>", "<p>" + html.escape(", ".join(f"{n} by {how}" for how, n in counts.items()) or "none")
           + "</p>"]
    source = any(side.get("kind") == "source" for side in report.sides)
    titles = (("IR layers without counterpart in the source", "unmatched_a"),
              ("Source tensors without counterpart in the IR", "unmatched_b")) if source else \
        (("Unmatched in A", "unmatched_a"), ("Unmatched in B", "unmatched_b"))
    for title, key in titles:
        items = {k: v for k, v in report.matching.get(key, {}).items() if "weight of" not in v}
        if items:
            out.append(f"<h3>{title}</h3><ul>" + "".join(f"<li><code>{html.escape(k)}</code>: {html.escape(v)}</li>"
                                                         for k, v in items.items()) + "</ul>")
    if report.weights:
        head = ["#", "layer", "type", "group", "zero point", "SQNR dB", "max abs err", "mean abs err", "max steps",
                "layer rel L2", "outputs rel L2 alone", "within rounding"]
        rows = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in (
            str(i + 1), w.layer, w.element_type, "-" if w.group_size is None else str(w.group_size), w.zero_point,
            _s(w.sqnr_db), _s(w.max_abs_error), _s(w.mean_abs_error), _s(w.max_steps), _s(w.layer_rel_l2),
            _s(w.output_rel_l2), "-" if w.max_steps is None else "yes" if w.within_rounding else "NO")) + "</tr>"
            for i, w in enumerate(report.weights))
        out.append("<h2>Compressed weights</h2><p>Those beyond the rounding of their format first; then by the outputs' "
                   "error with only that weight compressed where measured, then by the layer's own output error "
                   "on the inputs.</p><table><tr>"
                   + "".join(f"<th>{h}</th>" for h in head) + f"</tr>{rows}</table>")
        out.append(f"<pre>{html.escape(ignored_scope(report.weights))}</pre>")
    return "\n".join(out)
