"""The comparison core of ``irexec diff``: per-layer figures, bisection, origins.

It knows the other side only through ``OtherSide``: something that runs the same
steps and gives the tensors of the layers it is asked to expose, plus what its
own graph did with each layer, and its kind (``sides.py``: its words, what it can
expose, whether its tensors are the reference).  An OpenVINO device plugin is one
(``device.py``); a second IR is another (``ir_side.py``); a source model on its own
framework is a third (``onnx_side.py``).  The IR run by irexec is the frame: its
layers are what is compared.  A layer the other side has no counterpart for (its
``no_counterpart``) is neither within nor beyond: bisection leaves it unknown, and a
layer's re-run computes such inputs from the nearest tensors the other side gives.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from ...base.errors import IRExecError, ModelError, spelled
from ...ir.records import Layer
from .accuracy import StatedAccuracy, reduction_length, stated_accuracy
from .emulate import emulate_layer
from .figures import Figures, tensor_figures
from .memory import FIGURE_BYTES_PER_ELEMENT, held_bytes, kept_arrays
from .origins import classify
from .precision import precision_notes
from .reference import ReferenceSide
from .report import MATCH, ORIGIN, UNRESOLVED, DiffReport, Fusion, LayerResult, StepResult
from .search import find_origin, lowered
from .sides import IREXEC, OPENVINO_DEVICE, SideKind

Feeds = Mapping[str, np.ndarray]
Port = tuple[str, int]  # (layer name, output index)


@dataclass
class Exposed:
    """One run of the other side: the tensors of the layers asked for, by layer name
    (one entry per output port, None where the side gave none), and each step's model
    outputs keyed by (producing layer name, port)."""

    layers: dict[str, list[np.ndarray | None]]
    history: list[dict[Port, np.ndarray]]
    fusion: dict[str, Fusion] = field(default_factory=dict)  # the runtime graph of this run, where it differs


class ExposeError(IRExecError):
    """The other side cannot run with the outputs asked for (a plugin failing on a graph it
    fuses differently once they are exposed)."""


class OtherSide(Protocol):
    """What the core compares with irexec on the IR.  Optional attributes: ``no_counterpart``
    (IR layer name -> why the side has no tensor for it) and ``is_reference`` (its tensors are
    the reference the IR's are measured against, as a source model's are) and ``kind`` (its
    ``sides.SideKind``; a side without one is taken for a device plugin, the core's first side)."""

    description: str
    properties: dict[str, str]
    fusion: dict[str, Fusion]  # IR layer name -> the node of the deployed graph computing it
    compiles: int
    slack_units: float  # what the other side may add to an inexact op's stated accuracy (accuracy.py)

    def run(self, steps: Sequence[Feeds], expose: Sequence[Port]) -> Exposed: ...


class _Diff:
    def __init__(self, ref: ReferenceSide, other: OtherSide, steps: Sequence[Feeds], step: int, stream: bool = False):
        """``stream``: the reference's layers are compared as its run makes them (``stream``), and
        only its constants, Parameters and output layers are kept; else every layer is kept now."""
        self.ref, self.other, self.steps = ref, other, list(steps[: step + 1])
        self.results: dict[Port, LayerResult] = {}
        self.beyond_ports: dict[str, set[int]] = {}  # layer name -> its ports beyond their accuracy, kept with results
        self.kept: dict[int, list[np.ndarray]] = {}
        self.shapes: dict[int, list[tuple[int, ...]]] = {}  # every layer run: its output shapes
        if not stream:
            _, self.kept = ref.run(self.steps, capture=True)
            ref.memory.hold(kept_arrays(self.kept))
            self.shapes = {lid: [np.shape(o) for o in outs] for lid, outs in self.kept.items()}
        self.candidate_ids = {layer.id for layer in ref.candidates}
        self.budget = budgets(ref, other.slack_units)
        self.verdicts: dict[str, set[bool]] = {}  # layer name -> beyond or not, in the compilations that exposed it
        self.fusion_dependent: list[str] = []  # layers that depart only while their inputs stay unexposed
        self.unexposable: list[str] = []  # layers the other side fails to run with as outputs, and why
        self.no_counterpart: Mapping[str, str] = getattr(other, "no_counterpart", {})
        self.other_is_reference = bool(getattr(other, "is_reference", False))
        self.groups: dict[str, list[str]] = {}  # layer name -> the layers without counterpart re-run with it

    def figures(self, other: np.ndarray, ref: np.ndarray, stated: StatedAccuracy, budget: float | None = None
                ) -> Figures:
        """The figures of the two sides' tensors, measured against whichever side is the reference."""
        return tensor_figures(ref, other, stated, budget) if self.other_is_reference else \
            tensor_figures(other, ref, stated, budget)

    def ports(self, layers: Sequence[Layer]) -> list[Port]:
        return [(layer.name, i) for layer in layers for i in range(len(layer.outputs)) if layer.id in self.shapes]

    def stream(self, layers: Sequence[Layer]) -> None:
        """Run the reference once and compare each of ``layers`` with the other side's tensors
        (with its re-run on the other side's inputs) as the run makes it: a layer's outputs are
        let go by the run as usual, so the diff holds one side's layers, not both."""
        wanted = {layer.id for layer in layers}
        keep = {layer.id for layer in self.ref.order if layer.id not in self.ref.varying or layer.id not in self.candidate_ids}
        keep |= {layer.id for layer, _, _ in self.ref.output_ports()}

        def compare(layer: Layer, outs: list[np.ndarray], seconds: float) -> None:
            self.shapes[layer.id] = [np.shape(o) for o in outs]
            if layer.id not in wanted and layer.id not in keep:
                return
            self.kept[layer.id] = list(outs)
            if layer.id in wanted:
                around = [p for p, _ in self._producers(layer) if p.id in self.candidate_ids]
                exposed = self.other.run(self.steps, self.ports([layer, *around]))
                for port, arr in enumerate(exposed.layers.get(layer.name, [])):
                    if arr is not None:
                        self.record(self.result(layer, port, arr, exposed))
                self.verdicts.setdefault(layer.name, set()).add(self.beyond(layer))
            if layer.id not in keep:
                del self.kept[layer.id]

        compare.keeps = frozenset(keep)  # type: ignore[attr-defined]
        self.ref.run(self.steps, on_layer=compare)
        self.ref.memory.hold(kept_arrays(self.kept))

    def expose(self, layers: Sequence[Layer], local: bool) -> Exposed:
        """Compare ``layers`` with the other side's tensors; when it cannot run with all of
        them exposed, with halves of them, and a layer it cannot expose at all is noted."""
        try:
            exposed = self.other.run(self.steps, self.ports(layers))
        except ExposeError as e:
            if len(layers) == 1:
                self.unexposable.append(f"{layers[0].name}: {e.diagnostics[0].message}")
                return Exposed({}, [])
            half = len(layers) // 2
            first, second = self.expose(layers[:half], local), self.expose(layers[half:], local)
            return Exposed({**first.layers, **second.layers}, first.history or second.history)
        for name, tensors in exposed.layers.items():
            layer = self.ref.by_name[name]
            for port, arr in enumerate(tensors):
                if arr is not None:
                    self.record(self.result(layer, port, arr, exposed if local else None))
            self.verdicts.setdefault(name, set()).add(self.beyond(layer))
        return exposed

    def result(self, layer: Layer, port: int, other: np.ndarray, exposed: Exposed | None) -> LayerResult:
        ref_out = self.kept[layer.id][port]
        in_shapes = [tuple(self.shapes[p.id][i]) for p, i in self._producers(layer)]
        n = reduction_length(layer.type, in_shapes, ref_out.shape, layer.data)
        stated = stated_accuracy(layer.type, ref_out.dtype, n, self.other.slack_units)
        budget = self.budget.get(layer.id, 0.0)
        with self.ref.memory.temporaries(FIGURE_BYTES_PER_ELEMENT * int(ref_out.size),
                                         f"comparing {layer.display} layer {layer.name!r}"):
            figures = self.figures(other, ref_out, stated, budget)
        inputs = [p.name for p, _ in self._producers(layer) if p.id in self.candidate_ids]
        r = LayerResult(layer.name, layer.id, layer.display or layer.type, layer.type, self.ref.position[layer.id],
                        self.ref.depth[layer.id], port, str(ref_out.dtype), list(ref_out.shape), stated, figures,
                        list(dict.fromkeys(inputs)), fusion=self.other.fusion.get(layer.name), budget=budget)
        if exposed is not None and not figures.within:
            group: list[str] = []
            r.local = self._local(layer, port, other, exposed, stated, group, r)
            if r.local is not None and group:
                self.groups[layer.name] = group
        return r

    def _feeding(self, layer: Layer) -> list[Layer]:
        """The candidate layers whose tensors its re-run needs: its producers, and through a producer
        with no counterpart on the other side (re-run too), that one's, up to those with one."""
        out: list[Layer] = []
        stack, seen = [layer], {layer.id}
        while stack and len(seen) < 64:
            for p, _ in self._producers(stack.pop()):
                if p.id in self.candidate_ids and p.id not in seen:
                    seen.add(p.id)
                    out.append(p)
                    if p.name in self.no_counterpart:
                        stack.append(p)
        return out

    def _producers(self, layer: Layer) -> list[tuple[Layer, int]]:
        return [p for p in self.ref.producers(layer) if p is not None and p[0].id in self.shapes]

    def _local(self, layer: Layer, port: int, other: np.ndarray, exposed: Exposed, stated: StatedAccuracy,
               group: list[str], result: LayerResult | None = None) -> Figures | None:
        """The layer's own error: re-run on the other side's inputs (at its lower precision too: emulate.py); an
        input with no counterpart is re-run from the nearest tensors given, listed in ``group`` (the group's error)."""
        inputs: list[np.ndarray] = []
        outs = self._replayed(layer, exposed, group, {}, inputs)
        if outs is None or port >= len(outs):
            return None
        with self.ref.memory.temporaries(FIGURE_BYTES_PER_ELEMENT * int(outs[port].size) + held_bytes(outs),
                                         f"comparing {layer.display} layer {layer.name!r} re-run"):
            local = self.figures(other, outs[port], stated)
        if result is not None and not local.within and not group:  # the emulation re-runs one layer, not a group
            emulate_layer(self.ref, layer, port, other, inputs, stated, result, exposed.fusion.get(layer.name),
                          self.other.fusion)
        return local

    def _replayed(self, layer: Layer, exposed: Exposed, group: list[str], done: dict[int, list[np.ndarray] | None],
                  used: list[np.ndarray] | None = None) -> list[np.ndarray] | None:
        inputs = [] if used is None else used  # the inputs it was given
        for src in self.ref.producers(layer):
            if src is None:
                return None
            p, i = src
            if p.id not in self.candidate_ids:  # a Const or Parameter: the same on both sides
                inputs.append(self.kept[p.id][i])
                continue
            given = exposed.layers.get(p.name)
            tensor = given[i] if given is not None and i < len(given) else None
            if tensor is None and p.id not in self.ref.varying and p.id in self.kept:  # a constant sub-graph
                tensor = self.kept[p.id][i]
            if tensor is None and p.name in self.no_counterpart and len(done) < 64:
                if p.id not in done:
                    done[p.id] = None
                    done[p.id] = self._replayed(p, exposed, group, done)
                    group.append(p.name)
                outs = done[p.id]
                tensor = outs[i] if outs is not None and i < len(outs) else None
            if tensor is None:
                return None
            inputs.append(tensor)
        return self.ref.replay(layer, inputs)

    def record(self, r: LayerResult) -> None:
        self.results[(r.name, r.port)] = r
        beyond = self.beyond_ports.setdefault(r.name, set())
        (beyond.discard if r.figures.within else beyond.add)(r.port)

    def beyond(self, layer: Layer) -> bool:
        return bool(self.beyond_ports.get(layer.name))

    def bisect(self, candidates: list[Layer], k: int, depth: int = 0) -> Layer | None:
        """The first candidate beyond its stated accuracy, exposing at most ``k`` at a time.
        A layer within clears its ancestors (an error reaches a layer through its inputs),
        a layer beyond clears everything after it; what is left unknown is probed again.
        The last round exposes the layer found with its inputs and a few layers after it;
        when one of its inputs is beyond (a layer that hid the error, such as a saturating
        activation, cleared too much), the search starts again among that input's ancestors."""
        position = {layer.id: i for i, layer in enumerate(candidates)}
        unknown = list(candidates)
        first: Layer | None = None
        for _ in range(4 * len(candidates)):  # each round settles at least one layer
            if len(unknown) <= k:
                break
            probes = [unknown[min(len(unknown) - 1, round((j + 1) * len(unknown) / (k + 1)))] for j in range(k)]
            probes = list({layer.id: layer for layer in probes}.values())
            self.expose(probes, local=False)
            # a probe the other side gave no tensor for (no counterpart) is unknown: it clears nothing
            given = [p for p in probes if p.name in self.beyond_ports]
            cleared = self.ref.ancestors([p for p in given if not self.beyond(p)])
            beyond = [p for p in probes if self.beyond(p)]
            if beyond:
                first = min(beyond, key=lambda layer: position[layer.id])
            limit = len(candidates) if first is None else position[first.id]
            unknown = [c for c in unknown if position[c.id] < limit and c.id not in cleared
                       and not (c in probes and c.name not in self.beyond_ports)]
        if unknown:
            self.expose(unknown, local=False)
            found = [c for c in unknown if self.beyond(c)]
            if found:
                first = found[0]
        if first is None:
            return None
        for _ in range(len(candidates)):
            after = self.ref.descendants(first)
            downstream = [layer for layer in candidates if layer.id in after and layer is not first][:k]
            around = self._feeding(first)
            feeding = [p for layer in downstream for p, _ in self._producers(layer) if p.id in self.candidate_ids]
            chosen = {layer.id for layer in (*around, first, *downstream, *feeding)}
            seen = {(first.name, i): self.results[(first.name, i)] for i in range(len(first.outputs))
                    if (first.name, i) in self.results}
            self.expose([layer for layer in self.ref.candidates if layer.id in chosen], local=True)
            if seen and not self.beyond(first):
                # it departed while its inputs were fused into it and matches once they are exposed:
                # the departure is the fused kernel's; keep it as first seen
                for r in seen.values():
                    self.record(r)
                self.fusion_dependent.append(first.name)
                return first
            upstream = [p for p in around if self.beyond(p)]
            if not upstream:
                return first
            if depth < 8:
                cone = self.ref.ancestors(upstream[:1])
                return self.bisect([c for c in candidates if c.id in cone], k, depth + 1)
            first = upstream[0]
        return first


def _declared_n(ref: ReferenceSide, layer: Layer, shape: tuple[int, ...]) -> int:
    """The reduction length from the declared input dims (a dynamic dim counts 1)."""
    dims = [tuple(max(1, d) for d in (p.outputs[i].dims or ())) for p, i in
            (src for src in ref.producers(layer) if src is not None)]
    return reduction_length(layer.type, dims, shape, layer.data)


def budgets(ref: ReferenceSide, slack: float) -> dict[int, float]:
    """Per layer, the error in units its output may carry with every layer before it within
    its stated accuracy: the root sum of squares of its own stated tolerance and the largest
    of its inputs' budgets (rounding errors of successive layers add like a random walk, not
    all in one direction; an exact op passes its inputs' error on unchanged).  From the
    declared types and dims."""
    budget: dict[int, float] = {}
    for layer in ref.order:
        inputs = max((budget.get(src[0].id, 0.0) for src in ref.producers(layer) if src is not None), default=0.0)
        port = layer.outputs[0] if layer.outputs else None
        dtype = port.precision.dtype if port is not None and port.precision is not None else None
        if dtype is None or layer.type in ("Const", "Parameter"):
            budget[layer.id] = 0.0
            continue
        shape = tuple(max(1, d) for d in port.dims) if port is not None else ()
        stated = stated_accuracy(layer.type, dtype, _declared_n(ref, layer, shape), slack)
        budget[layer.id] = math.hypot(stated.units, inputs) if np.dtype(dtype).kind in "fV" else 0.0
    return budget


def run_diff(ref: ReferenceSide, other: OtherSide, steps: Sequence[Feeds], *, mode: str = "bisect", k: int = 8,
             model: str = "", inputs: str = "", config: Mapping[str, str] | None = None,
             logits: str | None = None) -> DiffReport:
    """Compare ``other`` with the reference over ``steps`` (one for a stateless model);
    the layers are compared at the first step whose outputs depart (the last when none
    does).  ``logits``: a causal LM's logits output, whose greedy tokens are compared."""
    started = time.perf_counter()
    report = DiffReport(model, other.description, mode, inputs, dict(other.properties), dict(config or {}))
    kind = kind_of(other)
    words = kind.words
    reference_is_other = bool(getattr(other, "is_reference", False))
    report.sides = [IREXEC.as_dict("compared" if reference_is_other else "reference", f"irexec on {model}"),
                    kind.as_dict("reference" if reference_is_other else "compared", other.description)]
    report.words = {"graph": words.graph, "runs": words.runs, "removed": words.removed}
    ports = ref.output_ports()
    ref_history, _ = ref.run(steps)
    ref.memory.hold(a for outs in ref_history for a in outs.values())
    deployed = other.run(steps, ())
    ref.memory.hold(a for outs in deployed.history for a in outs.values())
    missing = [f"{layer.name}:{port}" for layer, port, _ in ports if (layer.name, port) not in deployed.history[0]]
    if missing:
        raise ModelError(f"{other.description} gives no output for {', '.join(missing)}: its model's outputs do not "
                         "match the IR's Results", code=words.error_code, file=model or None)
    budget = budgets(ref, other.slack_units)
    for s, (mine, theirs) in enumerate(zip(ref_history, deployed.history)):
        figs = {}
        for layer, port, key in ports:
            stated = stated_accuracy(layer.type, mine[key].dtype, _declared_n(ref, layer, mine[key].shape),
                                     other.slack_units)
            pair = (mine[key], theirs[(layer.name, port)]) if reference_is_other else (theirs[(layer.name, port)], mine[key])
            figs[key] = tensor_figures(*pair, stated, budget.get(layer.id, 0.0))
        step = StepResult(s, figs)
        if logits is not None:
            producer = next((layer.name, port) for layer, port, key in ports if key == logits)
            step.reference_token = [int(t) for t in np.asarray(mine[logits])[:, -1].argmax(-1)]
            step.other_token = [int(t) for t in np.asarray(theirs[producer])[:, -1].argmax(-1)]
            if report.first_token_step is None and step.reference_token != step.other_token:
                report.first_token_step = s
        report.steps.append(step)
    analysed = next((s.step for s in report.steps if not s.within), len(steps) - 1)
    report.analysed_step = analysed
    stream = mode == "all" and getattr(other, "streams", False)
    diff = _Diff(ref, other, steps, analysed, stream)
    candidates = ref.candidates
    if stream:  # a side that streams gives the reference's own constants: only what depends on the inputs can differ
        diff.stream([c for c in candidates if c.id in ref.varying])
    report.outputs = [diff.result(layer, port, deployed.history[analysed][(layer.name, port)], None)
                      for layer, port, _ in ports]
    if words.graph:  # the side's own graph: what it fused, what no node of it computes
        report.fused = {c.name: other.fusion[c.name] for c in candidates
                        if c.name in other.fusion and other.fusion[c.name].fused}
        report.removed = [c.name for c in candidates if c.name not in other.fusion]
    report.no_counterpart = {c.name: diff.no_counterpart[c.name] for c in candidates if c.name in diff.no_counterpart}
    if mode == "all":
        if not stream:
            diff.expose(candidates, local=True)
        if words.expose_all:
            report.notes.append(words.expose_all.format(n=len(candidates), fused=len(report.fused)))
    elif not report.outputs_within:
        divergent = [ref.by_name[r.name] for r in report.outputs if not r.figures.within]
        wanted = ref.ancestors(divergent)
        searched = [c for c in candidates if c.id in wanted and c.id in diff.kept and c.id in ref.varying]
        first = find_origin(diff, searched, k)
        if first is None and lowered(diff, searched):
            report.notes.append("no layer departs beyond what the precision the plugin computed it in explains")
        elif first is None:
            report.notes.append(spelled("the outputs depart but no exposed layer does: exposing a layer changes what the "
                                        "plugin fuses; try `layers=all`"))
    else:
        report.notes.append("every output is within its stated accuracy: no layer was exposed")
    report.layers = sorted(diff.results.values(), key=lambda r: (r.index, r.port))
    if not kind.own_constants:  # it was given the reference's constants: only what depends on the inputs differs
        report.layers = [r for r in report.layers if r.layer_id in ref.varying]
    for r in report.layers:
        r.replayed_with = diff.groups.get(r.name, [])
    classify(report.layers)
    for r in report.layers:
        if r.name in diff.fusion_dependent and r.status != MATCH:
            r.status = ORIGIN
            report.notes.append(f"{r.name} departs while its inputs are fused into its kernel and matches once they "
                                "are exposed as outputs: the origin is the fused kernel (its runtime node: "
                                f"{'-' if r.fusion is None else r.fusion.node_type + ' in ' + r.fusion.precision})")
    report.notes.extend(precision_notes(other.properties, other.fusion))
    if diff.unexposable:
        report.notes.append(f"the other side failed to run with {len(diff.unexposable)} layer(s) exposed on their own "
                            f"(each is compared only where another compilation gave it): "
                            f"{'; '.join(diff.unexposable[:3])}" + ("; ..." if len(diff.unexposable) > 3 else ""))
    flipped = [name for name, seen in diff.verdicts.items() if len(seen) > 1]
    if flipped:
        report.notes.append(f"{len(flipped)} layer(s) departed in some compilations and not in others (exposing "
                            f"layers changes what the plugin fuses): {', '.join(flipped[:5])}"
                            + (", ..." if len(flipped) > 5 else ""))
    report.notes.extend(_trail_cold(ref, report, diff.no_counterpart))
    out_by_port = {(r.name, r.port): r for r in report.layers}
    for r in report.outputs:
        known = out_by_port.get((r.name, r.port))
        r.status = known.status if known is not None else MATCH if r.figures.within else UNRESOLVED
    if len(steps) == 1:
        report.steps = []
    report.compiles = other.compiles
    report.timings["total_seconds"] = time.perf_counter() - started
    return report


def kind_of(other: OtherSide) -> SideKind:
    kind = getattr(other, "kind", None)
    return kind if isinstance(kind, SideKind) else OPENVINO_DEVICE


def _trail_cold(ref: ReferenceSide, report: DiffReport, no_counterpart: Mapping[str, str]) -> list[str]:
    """Where the search for an origin stops at layers the other side has no tensor for."""
    notes = []
    for r in report.layers:
        if r.status != UNRESOLVED:
            continue
        missing = [name for name in r.inputs if name in no_counterpart]
        if missing:
            notes.append(f"the trail goes cold at {r.name}: it departs, but its input(s) "
                         f"{', '.join(missing[:3])} have no counterpart on the other side "
                         f"({no_counterpart[missing[0]]}) and it could not be re-run from the tensors the other side gives")
    if not report.outputs_within and not report.origins and no_counterpart and not notes:
        notes.append(f"the outputs depart but no origin is named: {len(no_counterpart)} layer(s) have no counterpart "
                     f"on the other side (e.g. {next(iter(no_counterpart))}: {next(iter(no_counterpart.values()))}), "
                     "so the search cannot look inside them")
    return notes


__all__ = ["Exposed", "OtherSide", "run_diff"]
