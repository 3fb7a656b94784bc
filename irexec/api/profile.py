"""Per-layer timings: a ``run_model`` hook that records every run, and a
report of medians sorted by time (``--profile``, ``--repeat N``).

The first run of a session does work later runs do not (a weight decompression
chain computed once and kept, folded constants, caches): it is profiled apart and
reported as one-time work, so the rows show what every run costs.  The time a
run spends outside the layers (irexec's own scheduling, freeing tensors) is a
row of its own, so the rows add up to the run's wall time."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

import numpy as np

from ..base.errors import spelled
from ..base.shapes import format_shape
from ..base.table_text import render_table
from ..ir.records import Layer


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
    run_seconds: float  # median of the runs' layer time (sum of their layers)
    wall_seconds: float = 0.0  # median wall time of one run; 0: not measured
    first_wall_seconds: float = 0.0  # the session's first run, one-time work included; 0: not measured
    one_time: list[LayerProfile] = field(default_factory=list)  # layers slower on the first run, by how much

    @property
    def layer_seconds(self) -> float:
        """Sum of the per-layer medians."""
        return sum(p.seconds for p in self.layers)

    @property
    def executor_seconds(self) -> float:
        """A run's time outside the layers: irexec's own scheduling and freeing."""
        return max(self.wall_seconds - self.layer_seconds, 0.0)

    @property
    def total_seconds(self) -> float:
        """The base of the percentages: the run's wall time (layers plus irexec's own)."""
        return self.layer_seconds + self.executor_seconds

    @property
    def one_time_seconds(self) -> float:
        """What the first run took beyond a later one."""
        return max(self.first_wall_seconds - self.wall_seconds, 0.0) if self.first_wall_seconds else 0.0

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
        rows = [[o.op, str(o.layers), f"{o.seconds * 1e3:.3f}", f"{o.seconds / o.layers * 1e3:.3f}",
                 f"{100 * o.seconds / total:.1f}" if total > 0 else "0.0"] for o in self.by_op()]
        if self.wall_seconds:
            own = self.executor_seconds
            rows.append(["(irexec itself)", "-", f"{own * 1e3:.3f}", "-", f"{100 * own / total:.1f}" if total > 0 else "0.0"])
        return rows

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
        summary = f"{len(self.layers)} layers, {self.layer_seconds * 1e3:.3f} ms in layers"
        if self.wall_seconds:
            summary += (f" + {self.executor_seconds * 1e3:.3f} ms irexec itself (scheduling, freeing tensors) "
                        f"= {self.total_seconds * 1e3:.3f} ms a run ({what}, after the first)")
        else:
            summary += f" ({what}; one run {self.run_seconds * 1e3:.3f} ms)"
        return f"{table}\n{summary}{self._one_time_text()}\n\nby op type:\n{ops}"

    def _one_time_text(self) -> str:
        if not self.first_wall_seconds:
            return ""
        text = (f"\none-time work, first run only and not in the rows: {self.one_time_seconds * 1e3:.3f} ms "
                f"(the first run took {self.first_wall_seconds * 1e3:.3f} ms: weight decompression, folding, caches)")
        for p in self.one_time[:3]:
            text += f"\n  {p.seconds * 1e3:.3f} ms  {p.layer_id} {p.name} ({p.op})"
        return text


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

    def report(self, first: Profiler | None = None, first_wall: float = 0.0,
               walls: list[float] | None = None) -> ProfileReport:
        """Medians per layer; with the ``first`` run's profile and the runs' wall
        times, the one-time work and irexec's own time too."""
        rows = []
        for lid, times in self.samples.items():
            layer, shapes = self.info[lid]
            rows.append(LayerProfile(lid, layer.name, layer.display, shapes, statistics.median(times)))
        rows.sort(key=lambda p: (-p.seconds, p.layer_id))
        totals = [t for t in self.run_totals if t > 0] or [0.0]
        one_time = []
        if first is not None:
            steady = {p.layer_id: p.seconds for p in rows}
            for lid, times in first.samples.items():
                extra = times[0] - steady.get(lid, 0.0)
                if extra > 1e-3:  # a millisecond more than a later run: work done once
                    layer, shapes = first.info[lid]
                    one_time.append(LayerProfile(lid, layer.name, layer.display, shapes, extra))
            one_time.sort(key=lambda p: (-p.seconds, p.layer_id))
        return ProfileReport(rows, len(self.run_totals), statistics.median(totals),
                             statistics.median(walls) if walls else 0.0, first_wall if first is not None else 0.0,
                             one_time)
