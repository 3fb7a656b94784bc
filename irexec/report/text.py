"""Compiler-style text: one ``file:line: severity[code] ...`` line per finding."""

from __future__ import annotations

from ..base.errors import ERROR, NOTE, WARNING, Diagnostic
from ..base.table_text import one_line
from .check_report import CheckReport

_COLOURS = {ERROR: "31", WARNING: "33", NOTE: "36"}  # red, yellow, cyan


def render_text(report: CheckReport, *, verbose: bool = False, quiet: int = 0, colour: bool = False) -> str:
    """Errors and warnings (notes too when verbose), then the summary line.
    Quiet (-q, as ruff): the findings and nothing else; -qq: nothing."""
    if quiet >= 2:
        return ""
    lines = [format_line(d, colour) for f in report.files for d in f.diagnostics if verbose or d.severity != NOTE]
    if quiet:
        return "".join(line + "\n" for line in lines)
    summary = report.summary_line()
    if verbose and report.notes:
        summary += f", {report.notes} note{'' if report.notes == 1 else 's'}"
    lines.append(_paint(summary, "1") if colour else summary)
    return "\n".join(lines) + "\n"


def format_line(d: Diagnostic, colour: bool = False) -> str:
    text = one_line(d.format())  # a name from the file never starts a line of its own
    if not colour:
        return text
    tag = f"{d.severity}[{d.code}]"
    return text.replace(tag, _paint(d.severity, _COLOURS.get(d.severity, "0")) + _paint(f"[{d.code}]", "1"), 1)


def _paint(text: str, sgr: str) -> str:
    return f"\x1b[{sgr}m{text}\x1b[0m"
