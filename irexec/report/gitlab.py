"""``--format gitlab``: a GitLab Code Quality report (a JSON array of issues),
as ruff writes it.  Severities: error -> major, warning -> minor, note -> info.
The fingerprint is stable across runs for the same finding at the same place."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ..base.errors import ERROR, NOTE, WARNING
from .check_report import CheckReport
from .encoding import path_bytes

_SEVERITY = {ERROR: "major", WARNING: "minor", NOTE: "info"}


def gitlab_list(report: CheckReport) -> list[dict[str, Any]]:
    issues = []
    seen: set[str] = set()
    for f in report.files:
        for d in f.diagnostics:
            path = (d.file or f.path).replace("\\", "/")
            subject = d.subject
            description = f"{subject}: {d.message}" if subject else d.message
            key = "\0".join([path, d.code, description, str(d.line or 0)])
            fingerprint = hashlib.sha256(path_bytes(key)).hexdigest()  # a non-UTF-8 file name too
            n = 1
            while fingerprint in seen:  # the same finding twice at one place still needs two ids
                fingerprint = hashlib.sha256(path_bytes(f"{key}\0{n}")).hexdigest()
                n += 1
            seen.add(fingerprint)
            issues.append({
                "type": "issue",
                "check_name": d.code,
                "description": description,
                "categories": ["Bug Risk"],
                "severity": _SEVERITY.get(d.severity, "info"),
                "fingerprint": fingerprint,
                "location": {"path": path, "lines": {"begin": d.line or 1}},
            })
    return issues


def render_gitlab(report: CheckReport) -> str:
    return json.dumps(gitlab_list(report), indent=2, ensure_ascii=False) + "\n"
