"""``--format sarif``: SARIF 2.1.0, for GitHub code scanning and other SARIF
consumers.  One run; every diagnostic code is a rule (id, short description,
help); every finding is a result at its XML line.  The shape is the one
schemas/sarif-2.1.0.schema.json (the parts of the OASIS schema irexec uses)
validates in the tests."""

from __future__ import annotations

import json
import os
from typing import Any
from urllib.parse import quote

from .. import __version__
from ..base.errors import ERROR, NOTE, WARNING, Diagnostic
from .check_report import CheckReport
from .encoding import path_bytes
from .rules import RULES, rule

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {ERROR: "error", WARNING: "warning", NOTE: "note"}


def artifact_uri(path: str) -> str:
    """A relative path stays relative (resolved against the checkout); an absolute one is a file: URI."""
    posix = path_bytes(path.replace("\\", "/"))  # quoted as the bytes on disk, UTF-8 or not
    if os.path.isabs(path):
        return "file://" + quote(posix if posix.startswith(b"/") else b"/" + posix)
    return quote(posix)


def _result(d: Diagnostic, path: str, index: dict[str, int]) -> dict[str, Any]:
    subject = d.subject
    location: dict[str, Any] = {"artifactLocation": {"uri": artifact_uri(path)}}
    if d.line:
        location["region"] = {"startLine": d.line}
    result: dict[str, Any] = {
        "ruleId": d.code,
        "level": _LEVEL.get(d.severity, "note"),
        "message": {"text": f"{subject}: {d.message}" if subject else d.message},
        "locations": [{"physicalLocation": location}],
    }
    if d.code in index:
        result["ruleIndex"] = index[d.code]
    if d.layer_id is not None:
        result["properties"] = {"layer_id": d.layer_id, "layer_name": d.layer_name, "op": d.op, "port": d.port}
    return result


def sarif_dict(report: CheckReport) -> dict[str, Any]:
    codes = list(RULES) + sorted({d.code for f in report.files for d in f.diagnostics} - set(RULES))
    index = {code: i for i, code in enumerate(codes)}
    rules = []
    for code in codes:
        r = rule(code)
        rules.append({
            "id": code,
            "name": "".join(part.capitalize() for part in code.split("-")),
            "shortDescription": {"text": r.short},
            "fullDescription": {"text": r.help},
            "help": {"text": r.help},
        })
    results = [_result(d, d.file or f.path, index) for f in report.files for d in f.diagnostics]
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "irexec", "version": __version__, "rules": rules}},
            "results": results,
        }],
    }


def render_sarif(report: CheckReport) -> str:
    return json.dumps(sarif_dict(report), indent=2, ensure_ascii=False) + "\n"
