"""What ``irexec generate`` measured, as GenAI's and benchmark_app's reports
put it: time to first token (the prefill), decode and overall throughput in
tokens per second, and the process's peak resident memory; and the JSON of
``--report`` (``schemas/generate-report.schema.json``)."""

from __future__ import annotations

import json
import math
import statistics
import sys
from dataclasses import dataclass
from typing import Any

from ... import __version__
from .greedy import GenerateResult

REPORT_VERSION = 1


def peak_memory_bytes() -> int | None:
    """The process's peak resident set size (None where the platform does not say)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak) if sys.platform == "darwin" else int(peak) * 1024  # bytes on macOS, KiB on Linux


@dataclass(frozen=True)
class Metrics:
    batch: int
    new_tokens: int  # per row
    ttft_seconds: float  # the prefill: prompt in, first token out
    decode_seconds: list[float]
    peak_bytes: int | None
    ttft_covers: str = "the prefill"  # what the time to first token is the time of

    @property
    def generate_seconds(self) -> float:
        return self.ttft_seconds + sum(self.decode_seconds)

    @property
    def decode_tokens_per_second(self) -> float | None:
        total = sum(self.decode_seconds)
        return self.batch * len(self.decode_seconds) / total if total > 0 else None

    @property
    def overall_tokens_per_second(self) -> float | None:
        total = self.generate_seconds
        return self.batch * self.new_tokens / total if total > 0 else None

    def summary(self) -> str:
        """benchmark_app-style lines."""
        tpot = statistics.mean(self.decode_seconds) * 1000 if self.decode_seconds else None
        lines = [f"Time to first token: {self.ttft_seconds * 1000:.2f} ms ({self.ttft_covers})"]
        if tpot is not None:
            lines.append(f"Decode:              {_tps(self.decode_tokens_per_second)} tokens/s "
                         f"({tpot:.2f} ms per token, {len(self.decode_seconds)} steps)")
        lines.append(f"Overall:             {_tps(self.overall_tokens_per_second)} tokens/s "
                     f"({self.batch * self.new_tokens} tokens in {self.generate_seconds * 1000:.2f} ms)")
        if self.peak_bytes is not None:
            lines.append(f"Peak memory:         {self.peak_bytes / 2**20:.1f} MiB (resident)")
        return "\n".join(lines)


def _tps(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def metrics(result: GenerateResult) -> Metrics:
    return Metrics(int(result.tokens.shape[0]), int(result.new_tokens.shape[1]), result.latencies[0],
                   list(result.latencies[1:]), peak_memory_bytes())


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
