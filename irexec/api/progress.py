"""Progress of long runs on a terminal: a ``run_model`` hook that redraws one
status line on stderr (layers done of the total, elapsed seconds, the layer
just run), only when stderr is a terminal, and only for runs of many layers
or once a run has taken longer than about a second.  ``irexec run -q`` and
a stderr that is not a terminal draw nothing."""

from __future__ import annotations

import shutil
import sys
import time
from typing import IO

import numpy as np

from ..ir.records import Layer

MANY_LAYERS = 500
SLOW_SECONDS = 1.0
# At most this many redraws a second: drawing must not slow the run.
REDRAW_SECONDS = 0.1


class ProgressBar:
    reads_values = False  # counts layers only

    def __init__(self, total: int, stream: IO[str] | None = None, label: str = "running"):
        self.total = max(total, 1)
        self.stream = stream if stream is not None else sys.stderr
        self.label = label
        self.done = 0
        self.started = time.perf_counter()
        self.drawn = False
        self.last_draw = 0.0
        self.width = 0
        isatty = getattr(self.stream, "isatty", None)
        self.enabled = bool(isatty and isatty())

    def __call__(self, layer: Layer, outputs: list[np.ndarray], seconds: float) -> None:
        self.done += 1
        if not self.enabled:
            return
        now = time.perf_counter()
        if not self.drawn and self.total < MANY_LAYERS and now - self.started < SLOW_SECONDS:
            return
        if self.drawn and now - self.last_draw < REDRAW_SECONDS and self.done < self.total:
            return
        self.last_draw = now
        self._draw(f"{layer.display} {layer.name}", now)

    def _draw(self, current: str, now: float) -> None:
        columns = shutil.get_terminal_size((80, 24)).columns
        filled = int(20 * self.done / self.total)
        text = (f"{self.label} [{'#' * filled}{'-' * (20 - filled)}] {self.done}/{self.total} layers "
                f"{now - self.started:6.1f}s  {current}")
        text = text[: max(columns - 1, 20)]
        self.stream.write("\r" + text + " " * max(0, self.width - len(text)))
        self.stream.flush()
        self.width = len(text)
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            # the final count stays visible; the next output starts on a new line
            self._draw("done", time.perf_counter())
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False
