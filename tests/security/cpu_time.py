"""Linear-time checks on CPU time: a run at one size against a run at ``scale`` times it."""

from __future__ import annotations

import time
from collections.abc import Callable


def cpu_seconds(fn: Callable[[], object]) -> float:
    start = time.process_time()  # this process's CPU time, all its threads: not the wall clock
    fn()
    return time.process_time() - start


def assert_linear(make: Callable[[int], Callable[[], object]], small: int, *, scale: int, max_ratio: float,
                  floor: float, what: str) -> None:
    """``make(small * scale)`` costs under ``max_ratio`` times ``make(small)`` (that one taken as at
    least ``floor`` seconds); ``what`` names what grew.  Both warmed up; runs alternate, the cheapest kept."""
    run_small, run_large = make(small), make(small * scale)
    run_small()  # warm up imports, caches, compiled patterns
    run_large()
    t_small = t_large = float("inf")
    for _ in range(3):
        t_small = min(t_small, cpu_seconds(run_small), cpu_seconds(run_small))
        t_large = min(t_large, cpu_seconds(run_large))
    t_small = max(t_small, floor)
    assert t_large < max_ratio * t_small, (f"{scale}x the {what} took {t_large / t_small:.0f}x the CPU time "
                                           f"({t_small:.3f} s -> {t_large:.3f} s)")
