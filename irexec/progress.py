"""A progress bar for long runs: a ``run_model`` hook drawing click's bar on
stderr, only when stderr is a terminal, and only for runs of many layers or
once a run has taken longer than about a second."""

from __future__ import annotations

import sys
import time
from typing import IO, Any

import click
import numpy as np

from .ir.reader import Layer

MANY_LAYERS = 500
SLOW_SECONDS = 1.0


class ProgressBar:
    def __init__(self, total: int, stream: IO[str] | None = None, label: str = "running"):
        self.total = max(total, 1)
        self.stream = stream if stream is not None else sys.stderr
        self.label = label
        self.done = 0
        self.started = time.perf_counter()
        self.bar: Any = None
        isatty = getattr(self.stream, "isatty", None)
        self.enabled = bool(isatty and isatty())

    def __call__(self, layer: Layer, outputs: list[np.ndarray], seconds: float) -> None:
        self.done += 1
        if not self.enabled:
            return
        if self.bar is None:
            if self.total < MANY_LAYERS and time.perf_counter() - self.started < SLOW_SECONDS:
                return
            self.bar = click.progressbar(length=self.total, label=self.label, file=self.stream, show_pos=True)
            self.bar.__enter__()
            self.bar.update(self.done - 1)
        self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None
