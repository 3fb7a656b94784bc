"""``--format json``: the contract documented by schemas/check-report.schema.json."""

from __future__ import annotations

import json
from typing import Any

from .. import __version__
from ..base.errors import Diagnostic
from .check_report import CheckReport, occurrences

REPORT_VERSION = 1


def report_dict(report: CheckReport) -> dict[str, Any]:
    return {
        "version": REPORT_VERSION,
        "tool": {"name": "irexec", "version": __version__},
        "files": [
            {
                "path": f.path,
                "status": "fail" if f.failures(report.strict) else "ok",
                "layers": f.layers,
                "errors": f.errors,
                "warnings": f.warnings,
                "notes": f.notes,
                "diagnostics": [_diagnostic(d) for d in f.diagnostics],
            }
            for f in report.files
        ],
        "summary": {
            "files": len(report.files),
            "failed_files": sum(bool(f.failures(report.strict)) for f in report.files),
            "errors": report.errors,
            "warnings": report.warnings,
            "notes": report.notes,
            "strict": report.strict,
            "ok": not report.failed,
        },
    }


def _diagnostic(d: Diagnostic) -> dict[str, Any]:
    out = d.to_dict()
    out["text"] = d.format()
    layers = occurrences(d)
    if layers:  # a grouped warning keeps every layer it stands for
        out["count"] = len(layers)
        out["occurrences"] = layers
    if d.values.get("unreachable_layers"):  # the layers a broken edge cut off, told with its error
        out["unreachable_layers"] = list(d.values["unreachable_layers"])
    return out


def render_json(report: CheckReport) -> str:
    return json.dumps(report_dict(report), indent=2, ensure_ascii=False) + "\n"
