"""Per-layer timings: a ``run_model`` hook that records every run, and a
report of medians sorted by time (``--profile``, ``--repeat N``)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

import numpy as np

from ..base.table_text import render_table
from ..errors import spelled
from ..ir.records import Layer
from ..shapes import format_shape


@dataclass
class LayerProfile:
    layer_id: int
    name: str
    op: str  # Type-N
    shapes: list[tuple[int, ...]]  # output shapes
    seconds: float  # median over the runs

    @property
    def shape_text(self) -> str:
        return " ".join(format_shape(s) for s in self.shapes) or "-"


@dataclass
class OpProfile:
    op: str  # Type-N
    layers: int
    seconds: float  # sum of the layers' medians


@dataclass
class ProfileReport:
    layers: list[LayerProfile]  # slowest first
    runs: int
    run_seconds: float  # median wall time of one run (sum of its layers)

    @property
    def total_seconds(self) -> float:
        """Sum of the per-layer medians (the base of the percentages)."""
        return sum(p.seconds for p in self.layers)

    def rows(self, top: int = 0) -> list[list[str]]:
        """The ``top`` slowest layers (0: all)."""
        total = self.total_seconds
        shown = self.layers[:top] if top > 0 else self.layers
        return [[str(p.layer_id), p.name, p.op, p.shape_text, f"{p.seconds * 1e3:.3f}",
                 f"{100 * p.seconds / total:.1f}" if total > 0 else "0.0"] for p in shown]

    def by_op(self) -> list[OpProfile]:
        """Time per op type (Type-N): the sum of its layers' medians, slowest first."""
        found: dict[str, OpProfile] = {}
        for p in self.layers:
            o = found.setdefault(p.op, OpProfile(p.op, 0, 0.0))
            o.layers += 1
            o.seconds += p.seconds
        return sorted(found.values(), key=lambda o: (-o.seconds, o.op))

    def op_rows(self) -> list[list[str]]:
        total = self.total_seconds
        return [[o.op, str(o.layers), f"{o.seconds * 1e3:.3f}", f"{o.seconds / o.layers * 1e3:.3f}",
                 f"{100 * o.seconds / total:.1f}" if total > 0 else "0.0"] for o in self.by_op()]

    def render(self, top: int = 0) -> str:
        """The layer table (the ``top`` slowest, 0: all, and a line for the
        rest), then the table per op type, which is never cut."""
        table = render_table(["id", "name", "op", "output shape", "ms", "%"], self.rows(top))
        left = self.layers[top:] if top > 0 else []
        if left:
            rest = sum(p.seconds for p in left)
            share = f"{100 * rest / self.total_seconds:.1f}" if self.total_seconds > 0 else "0.0"
            table += (f"\n... {len(left)} more layer{'s' if len(left) != 1 else ''} not shown ({rest * 1e3:.3f} ms, {share}%); "
                      + spelled("`top=0` shows all"))
        ops = render_table(["op", "layers", "ms", "ms/layer", "%"], self.op_rows())
        what = f"median of {self.runs} runs" if self.runs > 1 else "1 run"
        return (f"{table}\n{len(self.layers)} layers, {self.total_seconds * 1e3:.3f} ms in layers "
                f"({what}; one run {self.run_seconds * 1e3:.3f} ms)\n\nby op type:\n{ops}")


class Profiler:
    """Collects (layer, seconds) for any number of runs; call ``next_run()``
    between them."""

    reads_values = False  # shapes and times only: outputs no layer reads may be stand-ins

    def __init__(self) -> None:
        self.samples: dict[int, list[float]] = {}
        self.info: dict[int, tuple[Layer, list[tuple[int, ...]]]] = {}
        self.run_totals: list[float] = [0.0]

    def __call__(self, layer: Layer, outputs: list[np.ndarray], seconds: float) -> None:
        self.samples.setdefault(layer.id, []).append(seconds)
        if layer.id not in self.info:
            shapes = [tuple(np.shape(o)) for o in outputs[: len(layer.outputs)]]
            self.info[layer.id] = (layer, shapes)
        self.run_totals[-1] += seconds

    def next_run(self) -> None:
        self.run_totals.append(0.0)

    def report(self) -> ProfileReport:
        rows = []
        for lid, times in self.samples.items():
            layer, shapes = self.info[lid]
            rows.append(LayerProfile(lid, layer.name, layer.display, shapes, statistics.median(times)))
        rows.sort(key=lambda p: (-p.seconds, p.layer_id))
        totals = [t for t in self.run_totals if t > 0] or [0.0]
        return ProfileReport(rows, len(self.run_totals), statistics.median(totals))
