"""What ``irexec diff`` finds, as plain data: per-layer results, the origins, the
steps of a stateful model, and how the other side treated each layer.  The
renderers (text, JSON, HTML) read only these objects, whatever the other side is."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .accuracy import StatedAccuracy
from .figures import Figures, _num

# Layer statuses.  match: within the stated accuracy; origin: beyond it although its inputs
# (the other side's own) are within theirs; inherited: beyond only by what reached it;
# beyond: beyond, but neither re-run nor its inputs compared, so its origin is not known.
MATCH, ORIGIN, INHERITED, UNRESOLVED = "match", "origin", "inherited", "beyond"
# precision: an origin within what its runtime precision explains (emulate.py); an ORIGIN beyond it is a
# kernel origin.  masked: an origin whose departure none of its compared consumers carries on.
PRECISION, MASKED = "precision", "masked"


@dataclass(frozen=True)
class Fusion:
    """The runtime node that computes an IR layer on the other side."""

    node: str  # the runtime node's name
    node_type: str
    precision: str  # the runtime precision it ran in
    with_layers: tuple[str, ...] = ()  # the other IR layers the same node computes
    reported: str = ""  # the precision the runtime graph states (rt_info runtimePrecision), when it differs
    output_precision: str = ""  # the precision its outputs are stored in (rt_info outputPrecisions)

    @property
    def fused(self) -> bool:
        return bool(self.with_layers)

    def as_dict(self) -> dict[str, Any]:
        return {"node": self.node, "node_type": self.node_type, "precision": self.precision,
                "fused_with": list(self.with_layers), "reported_precision": self.reported or None,
                "output_precision": self.output_precision or None}


@dataclass
class LayerResult:
    """One compared output port of one layer."""

    name: str
    layer_id: int
    op: str  # display name, "MatMul-1"
    op_type: str
    index: int  # position in the topological order
    depth: int  # longest path from a Parameter
    port: int
    dtype: str
    shape: list[int]
    stated: StatedAccuracy
    figures: Figures
    inputs: list[str] = field(default_factory=list)  # the producing layers, by name
    local: Figures | None = None  # the layer re-run by the reference on the other side's inputs
    status: str = MATCH
    amplification: float | None = None  # rel L2 error growth over its inputs', when large
    fusion: Fusion | None = None
    budget: float = 0.0  # units the output may carry with every layer before it within its stated accuracy
    replayed_with: list[str] = field(default_factory=list)  # layers without counterpart re-run with it (its group)
    precision: str = ""  # the precision the other side computed it in, where lower than the reference's
    emulated: Figures | None = None  # against the re-run at that precision (emulate.py)
    excess: float = 0.0  # the largest emulated error over what a correct kernel at that precision may give

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "layer_id": self.layer_id, "op": self.op, "index": self.index, "depth": self.depth,
                "port": self.port, "dtype": self.dtype, "shape": self.shape,
                "stated_accuracy": {"kind": self.stated.kind, "units": self.stated.units, "n": self.stated.n},
                "budget_units": self.budget, "figures": self.figures.as_dict(),
                "local": None if self.local is None else self.local.as_dict(),
                "status": self.status,
                "amplification": None if self.amplification is None else _num(self.amplification), "inputs": self.inputs,
                "runtime": None if self.fusion is None else self.fusion.as_dict(),
                "precision": self.precision or None,
                "emulated": None if self.emulated is None else self.emulated.as_dict(),
                "beyond_precision": None if self.emulated is None else _num(self.beyond_precision),
                **({"replayed_with": self.replayed_with} if self.replayed_with else {})}

    @property
    def beyond_precision(self) -> float:
        """How many times its precision's allowance the emulated error is (ranks kernel origins);
        for a layer with no emulation, its error over its stated tolerance."""
        if self.emulated is not None:
            return self.excess
        f = self.local or self.figures
        return f.max_units / self.stated.units if self.stated.units else f.max_units


@dataclass
class StepResult:
    """One call of a stateful model: its outputs' figures and each side's greedy token."""

    step: int
    outputs: dict[str, Figures]
    reference_token: list[int] | None = None
    other_token: list[int] | None = None

    @property
    def within(self) -> bool:
        return all(f.within for f in self.outputs.values())

    def as_dict(self) -> dict[str, Any]:
        return {"step": self.step, "outputs": {k: v.as_dict() for k, v in self.outputs.items()},
                "within": self.within, "reference_token": self.reference_token, "other_token": self.other_token}


@dataclass
class DiffReport:
    model: str
    other: str  # what the other side is: "OpenVINO 2026.4.1 CPU"
    mode: str  # bisect | all
    inputs: str  # where the inputs came from
    properties: dict[str, str] = field(default_factory=dict)  # read back from the other side
    config: dict[str, str] = field(default_factory=dict)  # as given
    outputs: list[LayerResult] = field(default_factory=list)  # the model's outputs
    layers: list[LayerResult] = field(default_factory=list)  # every compared layer port, in topological order
    fused: dict[str, Fusion] = field(default_factory=dict)  # deployed graph: IR layers fused with others
    removed: list[str] = field(default_factory=list)  # deployed graph: IR layers no runtime node computes
    steps: list[StepResult] = field(default_factory=list)
    analysed_step: int = 0
    first_token_step: int | None = None  # the first step whose greedy tokens differ
    notes: list[str] = field(default_factory=list)
    compiles: int = 0
    timings: dict[str, float] = field(default_factory=dict)
    matching: dict[str, Any] | None = None  # a second IR as the other side: which layer is which (matching.py)
    weights: list[Any] = field(default_factory=list)  # its compressed weights, ranked (weights.py)
    sides: list[dict[str, str]] = field(default_factory=list)  # each side: name, kind, role, description, precision
    words: dict[str, str] = field(default_factory=dict)  # how the report speaks of the other side (sides.SideWords)
    no_counterpart: dict[str, str] = field(default_factory=dict)  # IR layer name -> why the other side has none
    tolerance: str = ""  # the other side's own accuracy, stated (a source framework's fused kernels)
    suggestion: Any = None  # --suggest: the settings that bring the outputs within (suggest.py)

    @property
    def origins(self) -> list[LayerResult]:
        return [r for r in self.layers if r.status == ORIGIN]

    def grouped(self, status: str) -> list[dict[str, Any]]:
        """The layers of one status, each once with its ports, ranked by how far beyond their precision."""
        by_name: dict[str, list[LayerResult]] = {}
        for r in self.layers:
            if r.status == status:
                by_name.setdefault(r.name, []).append(r)
        rows = [{"name": name, "op": rs[0].op, "ports": [r.port for r in rs], "precision": rs[0].precision or None,
                 "beyond_precision": _num(max(r.beyond_precision for r in rs)), "index": rs[0].index}
                for name, rs in by_name.items()]
        rows.sort(key=lambda row: (-_rank(row["beyond_precision"]), row["index"]))
        for row in rows:
            del row["index"]
        return rows

    @property
    def finding(self) -> LayerResult | None:
        """The first kernel origin in the graph's order."""
        return next((r for r in self.layers if r.status == ORIGIN), None)

    def precision_groups(self) -> list[dict[str, Any]]:
        """Precision origins grouped by op type and the precision they ran in."""
        groups: dict[tuple[str, str], list[str]] = {}
        for r in self.layers:
            if r.status == PRECISION:
                names = groups.setdefault((r.op_type, r.precision or (r.fusion.precision if r.fusion else "")), [])
                if r.name not in names:
                    names.append(r.name)
        return [{"op": op, "precision": p, "layers": names} for (op, p), names in groups.items()]

    @property
    def amplifiers(self) -> list[LayerResult]:
        return [r for r in self.layers if r.amplification is not None]

    @property
    def outputs_within(self) -> bool:
        return all(r.figures.within for r in self.outputs)

    def as_dict(self) -> dict[str, Any]:
        return {
            "format": 1, "model": self.model, "other": self.other, "mode": self.mode, "inputs": self.inputs,
            "config": self.config, "properties": self.properties,
            "outputs_within": self.outputs_within,
            "origins": [row["name"] for row in self.grouped(ORIGIN)],
            "finding": None if self.finding is None else self.finding.name,
            "kernel_origins": self.grouped(ORIGIN), "precision_origins": self.precision_groups(),
            "masked": self.grouped(MASKED),
            "amplifiers": [r.name for r in self.amplifiers],
            "outputs": [r.as_dict() for r in self.outputs],
            "layers": [r.as_dict() for r in self.layers],
            "fused": {k: v.as_dict() for k, v in self.fused.items()},
            "removed": self.removed,
            "steps": [s.as_dict() for s in self.steps],
            "analysed_step": self.analysed_step, "first_token_step": self.first_token_step,
            "notes": self.notes, "compiles": self.compiles, "timings": self.timings,
            "sides": self.sides, "no_counterpart": self.no_counterpart,
            **({"tolerance": self.tolerance} if self.tolerance else {}),
            **({"matching": self.matching} if self.matching is not None else {}),
            **({"suggestion": self.suggestion.as_dict()} if self.suggestion is not None else {}),
            **({"weights": [w.as_dict() for w in self.weights]} if self.matching is not None else {}),
        }

    def to_dataframe(self) -> Any:
        """One row per compared layer port with its figures (needs pandas)."""
        import pandas as pd  # type: ignore[import-untyped,import-not-found,unused-ignore]

        return pd.DataFrame([{"name": r.name, "port": r.port, "op": r.op, "status": r.status, "index": r.index,
                              **r.figures.as_dict(), "stated_units": r.stated.units, "budget_units": r.budget,
                              "local_units": None if r.local is None else r.local.max_units}
                             for r in self.layers])


def _rank(x: object) -> float:
    return float(x) if isinstance(x, (int, float, str)) else 0.0


__all__ = ["DiffReport", "Fusion", "INHERITED", "LayerResult", "MASKED", "MATCH", "ORIGIN", "PRECISION", "StepResult", "UNRESOLVED"]
