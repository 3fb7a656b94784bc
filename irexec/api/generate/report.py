"""The JSON of ``irexec generate --report`` (``schemas/generate-report.schema.json``): the
tokens and what was measured (``metrics``)."""

from __future__ import annotations

import json
import math
from typing import Any

from ... import __version__
from .greedy import GenerateResult
from .metrics import Metrics

REPORT_VERSION = 1


def _number(x: float | None) -> float | None:
    return x if x is not None and math.isfinite(x) else None


def generate_report(*, model: str, prompt_path: str, result: GenerateResult, m: Metrics, load_seconds: float,
                    total_seconds: float, reference: str | None, mismatch: str | None) -> dict[str, Any]:
    return {
        "version": REPORT_VERSION,
        "tool": {"name": "irexec", "version": __version__},
        "model": model,
        "prompt": prompt_path,
        "batch": m.batch,
        "prompt_length": result.prompt_length,
        "new_tokens": m.new_tokens,
        "stopped_by_eos": result.stopped_by_eos,
        "tokens": result.tokens.tolist(),
        "metrics": {
            "ttft_seconds": _number(m.ttft_seconds),
            "decode_seconds": [_number(t) for t in m.decode_seconds],
            "decode_tokens_per_second": _number(m.decode_tokens_per_second),
            "overall_tokens_per_second": _number(m.overall_tokens_per_second),
            "peak_memory_bytes": m.peak_bytes,
            "load_seconds": _number(load_seconds),
            "total_seconds": _number(total_seconds),
        },
        "comparison": None if reference is None else {"reference": reference, "passed": mismatch is None,
                                                      "detail": mismatch},
        "ok": mismatch is None,
    }


def render_generate_report(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2, allow_nan=False) + "\n"
