"""What ``irexec generate`` measured, as GenAI's and benchmark_app's reports
put it: time to first token (the prefill), decode and overall throughput in
tokens per second, and the process's peak resident memory."""

from __future__ import annotations

import statistics
import sys
from dataclasses import dataclass

from .greedy import GenerateResult


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
