"""``--format github``: workflow commands that GitHub Actions turns into
annotations on the XML line of each finding.

    ::error file=models/a.xml,line=57,title=irexec shape-mismatch::layer 8 ...

Escaping follows @actions/core: ``%``, CR and LF in the message; also ``:``
and ``,`` in property values.  An annotation does not fail the job; the exit
code does.
"""

from __future__ import annotations

from ..base.errors import ERROR, NOTE, WARNING, Diagnostic
from .check_report import CheckReport

_COMMAND = {ERROR: "error", WARNING: "warning", NOTE: "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(d: Diagnostic, path: str) -> str:
    props = [f"file={escape_property(path)}"]
    if d.line:
        props.append(f"line={d.line}")
    props.append(f"title={escape_property('irexec ' + d.code)}")
    subject = d.subject
    message = f"{subject}: {d.message}" if subject else d.message
    return f"::{_COMMAND.get(d.severity, 'notice')} {','.join(props)}::{escape_data(message)}"


def render_github(report: CheckReport, *, quiet: int = 0) -> str:
    """Every finding as an annotation (notes as notices), then the summary.
    Quiet (-q): the annotations of errors and warnings only; -qq: nothing."""
    if quiet >= 2:
        return ""
    lines = [annotation(d, (d.file or f.path).replace("\\", "/"))
             for f in report.files for d in f.diagnostics if not (quiet and d.severity == NOTE)]
    if not quiet:
        lines.append(report.summary_line())
    return "".join(line + "\n" for line in lines)
