"""The diff report as JSON (schemas/diff-report.schema.json)."""

from __future__ import annotations

import json

from .report import DiffReport


def render_json(report: DiffReport) -> str:
    return json.dumps(report.as_dict(), indent=1, allow_nan=False) + "\n"


__all__ = ["render_json"]
