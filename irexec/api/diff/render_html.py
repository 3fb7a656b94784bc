"""The diff report as one self-contained HTML page: an interactive plotly plot of the
error along graph depth (plotly.js inlined, so it opens offline) and a sortable table.
plotly is an optional extra: ``pip install -e '.[html]'`` in the irexec clone."""

from __future__ import annotations

import html
import json
import math

from ...base.errors import IRExecError
from ...base.extras import install_hint
from .report import ORIGIN, DiffReport, LayerResult
from .sides import SOURCE

_STYLE = """body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;font-size:13px}th,td{border:1px solid #ccc;padding:3px 6px;text-align:left}
th{background:#eee;cursor:pointer;user-select:none}th:after{content:" \\2195";color:#999}
tr.origin{background:#fdd}tr.inherited{background:#fff4e0}td.num{text-align:right;font-variant-numeric:tabular-nums}
code{background:#f4f4f4;padding:1px 3px}"""

# Sorts the table on a header click: numbers as numbers (inf, nan included), the rest as text.
_SORT = """document.querySelectorAll('table.sortable th').forEach(function(th, col){
 th.addEventListener('click', function(){
  var table = th.closest('table'), body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var asc = th.getAttribute('data-dir') !== 'asc';
  table.querySelectorAll('th').forEach(function(h){ h.removeAttribute('data-dir'); });
  th.setAttribute('data-dir', asc ? 'asc' : 'desc');
  function key(row){ var t = row.cells[col].getAttribute('data-v') || row.cells[col].textContent;
   var n = t === 'inf' ? Infinity : t === '-inf' ? -Infinity : parseFloat(t);
   return isNaN(n) ? t : n; }
  rows.sort(function(a, b){ var x = key(a), y = key(b);
   if (typeof x === typeof y) return (x < y ? -1 : x > y ? 1 : 0) * (asc ? 1 : -1);
   return (typeof x === 'number' ? -1 : 1) * (asc ? 1 : -1); });
  rows.forEach(function(r){ body.appendChild(r); });
 });
});"""


def script_json(value: object) -> str:
    """JSON to embed in a ``<script>`` element, which the browser never HTML-decodes: valid
    JSON in which no name can close the element or open a comment: ``<``, ``>``, ``&`` and
    everything beyond ASCII written as JSON's own escapes, which read back as the same text."""
    text = json.dumps(value, ensure_ascii=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _plotly():
    try:
        import plotly.graph_objects as go
    except ImportError as e:
        raise IRExecError(f"the HTML report needs plotly, which is not installed ({e}); {install_hint('html')}",
                          code="missing-extra") from None
    return go


def _y(r: LayerResult) -> float:
    """The plotted error: relative L2 on a log axis (0 shown at the floor)."""
    v = r.figures.rel_l2
    return 1e-12 if v == 0 else (1e3 if not math.isfinite(v) else max(v, 1e-12))


def _fmt(x: float | None) -> str:
    if x is None:
        return "-"
    if math.isnan(x) or math.isinf(x):
        return str(x)
    return f"{x:.4g}"


def source_side(report: DiffReport) -> dict[str, str] | None:
    """The source model's side, when the report compares an IR with the model it was converted from."""
    return next((side for side in report.sides if side.get("kind") == SOURCE), None)


def _has_runtime(report: DiffReport) -> bool:
    """Whether the other side says what computed each layer (a plugin's runtime node; not a source model)."""
    return any(r.fusion is not None for r in report.layers)


def _figure(report: DiffReport) -> str:
    go = _plotly()
    runtime = "<br>runtime %{customdata[7]}" if _has_runtime(report) else ""
    fig = go.Figure()
    import plotly.colors

    palette = plotly.colors.qualitative.Dark24 + plotly.colors.qualitative.Light24  # one colour per op type
    by_op: dict[str, list[LayerResult]] = {}
    for r in report.layers:
        by_op.setdefault(r.op_type, []).append(r)
    for n, (op, rows) in enumerate(sorted(by_op.items())):
        fig.add_trace(go.Scatter(
            x=[r.depth for r in rows], y=[_y(r) for r in rows], mode="markers", name=op,
            marker={"size": [14 if r.status == ORIGIN else 9 for r in rows], "color": palette[n % len(palette)],
                    "symbol": ["star" if r.status == ORIGIN else "circle" for r in rows],
                    "line": {"width": [2 if r.status == ORIGIN else 0 for r in rows], "color": "black"}},
            customdata=[[r.name, r.op, r.status, _fmt(r.figures.max_abs_error), _fmt(r.figures.max_units),
                         _fmt(r.stated.units), _fmt(r.figures.cosine), "-" if r.fusion is None else r.fusion.precision]
                        for r in rows],
            hovertemplate=("<b>%{customdata[0]}</b><br>%{customdata[1]}: %{customdata[2]}<br>rel L2 %{y:.3g}"
                           "<br>max abs err %{customdata[3]}<br>units %{customdata[4]} (stated %{customdata[5]})"
                           "<br>cosine %{customdata[6]}" + runtime + "<extra></extra>")))
    if report.origins:  # the first one named; every origin is a star
        first = report.origins[0]
        more = f" (+{len(report.origins) - 1} more, starred)" if len(report.origins) > 1 else ""
        kind = "" if source_side(report) is not None else "kernel "  # a source diff's origins are all of one kind
        fig.add_annotation(x=first.depth, y=math.log10(_y(first)), text=f"first {kind}origin: {first.op}{more}",
                           showarrow=True, arrowhead=2, ay=-40)
    reference = "the source model is the reference" if source_side(report) is not None else "irexec is the reference"
    fig.update_layout(title=f"Relative L2 error along graph depth ({reference})",
                      xaxis_title="graph depth (longest path from an input)", yaxis_title="relative L2 error (0 drawn at 1e-12)",
                      yaxis_type="log", height=520, legend_title="op type", template="plotly_white")
    return fig.to_html(full_html=False, include_plotlyjs=True, div_id="error-plot")


def _cell(value: float | str | None, numeric: bool = False) -> str:
    text = value if isinstance(value, str) else _fmt(value)
    if numeric and not isinstance(value, str):
        raw = "-inf" if value is None else str(value) if value is not None and not math.isfinite(value) else repr(value)
        return f'<td class="num" data-v="{html.escape(raw)}">{html.escape(text)}</td>'
    return f"<td>{html.escape(text)}</td>"


def _table(report: DiffReport) -> str:
    head = ["#", "layer", "op", "status", "depth", "max abs err", "units", "stated", "local units", "rel L2", "SNR dB",
            "cosine", "NaN diff", "Inf diff", "runtime"]
    shown = len(head) if _has_runtime(report) else len(head) - 1  # a source model has no runtime nodes
    head = head[:shown]
    rows = []
    for r in report.layers:
        f = r.figures
        runtime = "-" if r.fusion is None else f"{r.fusion.node_type} {r.fusion.precision}" + \
            (f" (fused with {len(r.fusion.with_layers)})" if r.fusion.fused else "")
        cells = [_cell(float(r.index), True), _cell(r.name if r.port == 0 else f"{r.name}:{r.port}"), _cell(r.op),
                 _cell(r.status), _cell(float(r.depth), True), _cell(f.max_abs_error, True), _cell(f.max_units, True),
                 _cell(r.stated.units, True), _cell(None if r.local is None else r.local.max_units, True),
                 _cell(f.rel_l2, True), _cell(f.snr_db, True), _cell(f.cosine, True), _cell(float(f.nan_diff), True),
                 _cell(float(f.inf_diff), True), _cell(runtime)][:shown]
        rows.append(f'<tr class="{html.escape(r.status)}">' + "".join(cells) + "</tr>")
    header = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    return f'<table class="sortable" id="layers"><thead><tr>{header}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def _steps(report: DiffReport) -> str:
    """A stateful model's steps: outputs within or not, their figures, both greedy tokens."""
    if not report.steps:
        return ""
    rows = []
    for step in report.steps:
        figures = "; ".join(f"{html.escape(k)}: rel L2 {_fmt(f.rel_l2)}, max {_fmt(f.max_units)} units"
                            for k, f in step.outputs.items())
        differ = step.reference_token != step.other_token
        rows.append(f'<tr class="{"origin" if differ else "match"}"><td>{step.step}</td>'
                    f'<td>{"within" if step.within else "beyond"}</td><td>{figures}</td>'
                    f"<td>{html.escape(str(step.reference_token))}</td><td>{html.escape(str(step.other_token))}</td></tr>")
    first = report.first_token_step
    verdict = "Greedy tokens agree on every step." if first is None else f"First step whose greedy token differs: {first}."
    return (f"<h2>Steps</h2><p>{verdict} Layers are compared at step {report.analysed_step}.</p>"
            '<table id="steps"><thead><tr><th>step</th><th>outputs</th><th>figures</th><th>irexec token</th>'
            f"<th>other token</th></tr></thead><tbody>{''.join(rows)}</tbody></table>")


def _roles(report: DiffReport) -> str:
    """Which side is the reference: irexec, or the other side (a source model)."""
    other_is_reference = any(x.get("role") == "reference" and x.get("name") != "irexec" for x in report.sides)
    return "irexec against the reference," if other_is_reference else "irexec (reference) against"


def _graph(report: DiffReport) -> str:
    """What the other side's own graph did, in its words (a plugin's deployed graph); nothing for a side without one."""
    words = report.words or {"graph": "deployed graph", "removed": "removed", "runs": "compilation(s)"}
    if not words.get("graph"):
        where = "IR layer(s) with no counterpart in the source model" if source_side(report) is not None \
            else "layer(s) with no counterpart on the other side"
        return f"{len(report.no_counterpart)} {where}."
    return (f"{words['graph'].capitalize()}: {len(report.fused)} layers fused with others, {len(report.removed)} "
            f"{words['removed']}. {report.compiles} {words['runs']}.")


def _intro(report: DiffReport) -> str:
    """Who is compared with whom, on what, and with which settings, in the words of the other side."""
    source = source_side(report)
    if source is not None:  # the IR against the model it was converted from: the source is the reference
        settings = ", ".join(f"{html.escape(k)}={html.escape(v)}" for k, v in report.properties.items())
        tolerance = f"<p>Tolerance: {html.escape(report.tolerance)}</p>" if report.tolerance else ""
        return (f"<p>The IR <code>{html.escape(report.model)}</code>, run by irexec against the reference: its source "
                f"model, {html.escape(report.other)}; inputs {html.escape(report.inputs)}.</p>\n"
                f"<p>Source settings: {settings or '-'}. {_graph(report)}</p>{tolerance}")
    props = ", ".join(f"{html.escape(k)}={html.escape(v)}" for k, v in report.properties.items()
                      if k in ("INFERENCE_PRECISION_HINT", "EXECUTION_MODE_HINT", "KV_CACHE_PRECISION"))
    return (f"<p><code>{html.escape(report.model)}</code>: {_roles(report)} {html.escape(report.other)},\n"
            f"mode {html.escape(report.mode)}, inputs {html.escape(report.inputs)}.</p>\n"
            f"<p>Properties used: {props or '-'}. {_graph(report)}</p>")


def render_html(report: DiffReport) -> str:
    from .render_ab import html_weights
    from .render_origins import origins_html

    summary = origins_html(report)
    notes = "".join(f"<li>{html.escape(n)}</li>" for n in report.notes)
    meta = script_json({"model": report.model, "other": report.other, "mode": report.mode})
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>irexec diff: {html.escape(report.model)}{
    " against its source model" if source_side(report) is not None else ""}</title>
<style>{_STYLE}</style></head><body>
<h1>irexec diff</h1>
{_intro(report)}
{summary}<ul>{notes}</ul>
{_steps(report)}
{_figure(report)}
{html_weights(report)}
<h2>Compared layers</h2>
<p>Click a column header to sort.</p>
{_table(report)}
<script type="application/json" id="diff-meta">{meta}</script>
<script>{_SORT}</script>
</body></html>
"""


def _log_y(v: float | str) -> float:
    x = float(v)
    return 1e-12 if x == 0 else (1e3 if not math.isfinite(x) else max(x, 1e-12))


def render_dataset_html(summary: object, model: str, other: str) -> str:
    """The page of ``--inputs-dir``: each layer's mean and p95 rel L2 over the samples along the
    graph, the weights in the order they enter the keep-K curve's best sets, and the keep-K curve."""
    go = _plotly()
    d = summary.as_dict()  # type: ignore[attr-defined]
    names = list(d["layers"])
    layers = go.Figure()
    for stat, symbol in (("mean_rel_l2", "circle"), ("p95_rel_l2", "triangle-up")):
        layers.add_trace(go.Scatter(
            x=list(range(len(names))), y=[_log_y(d["layers"][n][stat]) for n in names], mode="markers",
            name=stat.split("_")[0], marker={"symbol": symbol, "size": 8},
            customdata=[[n, d["layers"][n]["origin_count"]] for n in names],
            hovertemplate="<b>%{customdata[0]}</b><br>rel L2 %{y:.3g}<br>origin in %{customdata[1]} sample(s)"
                          "<extra></extra>"))
    layers.update_layout(title=f"Per-layer relative L2 error over {len(d['samples'])} sample(s)",
                         xaxis_title="layer (topological order)", yaxis_title="relative L2 error", yaxis_type="log",
                         height=460, template="plotly_white")
    curve = go.Figure()
    if d["keep_curve"]:
        ks = [c["keep"] for c in d["keep_curve"]]
        for stat in ("mean_rel_l2", "p95_rel_l2"):
            curve.add_trace(go.Scatter(x=ks, y=[_log_y(c[stat]) for c in d["keep_curve"]], mode="lines+markers",
                                       name=stat.split("_")[0],
                                       customdata=[[html.escape(", ".join(c.get("ignored_scope", [])) or "-"),
                                                    c.get("found_by", "")] for c in d["keep_curve"]],
                                       hovertemplate="K=%{x}, kept %{customdata[0]} (%{customdata[1]})<br>rel L2 "
                                                     "%{y:.3g}<extra></extra>"))
    curve.update_layout(title="Keep-K curve: the outputs' error with the best measured set of K weights kept as in A",
                        xaxis_title="K (weights kept uncompressed)", yaxis_title="outputs' relative L2 error",
                        yaxis_type="log", height=420, template="plotly_white")
    rows = []
    for name, w in d["weights"].items():
        alone = w["outputs_alone"] or {}
        cells = [_cell(float(w["rank"]), True), _cell(name), _cell(alone.get("mean_rel_l2"), True),
                 _cell(alone.get("p95_rel_l2"), True), _cell(w["mean_rel_l2"], True),
                 _cell(None if w["max_steps"] is None else w["max_steps"], True),
                 _cell(float(w["beyond_rounding_in"]), True)]
        rows.append(f'<tr class="{"origin" if w["beyond_rounding_in"] else "match"}">' + "".join(cells) + "</tr>")
    whead = "".join(f"<th>{h}</th>" for h in ("rank", "weight's layer", "outputs alone mean", "outputs alone p95",
                                               "layer's own mean", "max steps", "beyond rounding in"))
    lrows = []
    for i, (name, s) in enumerate(d["layers"].items()):
        lrows.append("<tr>" + "".join([_cell(float(i), True), _cell(name), _cell(s["mean_rel_l2"], True),
                                       _cell(s["p95_rel_l2"], True), _cell(s["max_rel_l2"], True),
                                       _cell(s["max_abs_error"], True), _cell(float(s["origin_count"]), True)])
                     + "</tr>")
    lhead = "".join(f"<th>{h}</th>" for h in ("#", "layer", "mean rel L2", "p95 rel L2", "max rel L2", "max abs err",
                                               "origin in"))
    scope = html.escape(", ".join(repr(n) for n in d["ignored_scope"]))
    meta = script_json({"model": model, "other": other, "mode": "dataset", "samples": d["samples"]})
    plots = layers.to_html(full_html=False, include_plotlyjs=True, div_id="layer-plot") + \
        curve.to_html(full_html=False, include_plotlyjs=False, div_id="keep-curve")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>irexec diff over a data set: {html.escape(model)}</title>
<style>{_STYLE}</style></head><body>
<h1>irexec diff over a data set</h1>
<p><code>{html.escape(model)}</code> (reference) against <code>{html.escape(other)}</code> over
{len(d["samples"])} sample(s){f", each a prefill and {d['decode_steps']} decode step(s)" if d["decode_steps"] else ""},
run by {html.escape(d["runner"])}.</p>
<p>NNCF ignored scope (the best set of 5, or fewer): <code>nncf.IgnoredScope(names=[{scope}])</code>;
each K's set is in the keep-K curve's hover and the JSON.</p>
{plots}
<h2>Compressed weights in the order they enter the keep-K curve's best sets</h2>
<p>The best set of each K need not hold the best set of K - 1; "outputs alone" is a weight's effect with only
it compressed, where the search started.</p>
<table class="sortable" id="weights"><thead><tr>{whead}</tr></thead><tbody>{"".join(rows)}</tbody></table>
<h2>Layers</h2>
<p>Click a column header to sort.</p>
<table class="sortable" id="layers"><thead><tr>{lhead}</tr></thead><tbody>{"".join(lrows)}</tbody></table>
<script type="application/json" id="diff-meta">{meta}</script>
<script>{_SORT}</script>
</body></html>
"""


__all__ = ["render_dataset_html", "render_html", "script_json", "source_side"]
