"""The other side as a second IR run by irexec (``irexec diff A.xml B.xml``).

A is the reference; B runs the same steps on the same inputs with its own state.
``matching.py`` says which layer of B is which layer of A; B's tensors are given
under A's layer names.  A's constant layers are given as A's own (the core takes
constants to be the same on both sides), so re-running a weighted layer of A on
B's activations with A's weights isolates what B's weights change: a compressed
layer is where an error starts.  Everything B has and A has not is reported as
unmatched, with why.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base.errors import ModelError
from ..session import Session
from .core import Exposed, Feeds, run_diff
from .matching import Matching, match
from .memory import DiffMemory, kept_arrays
from .reference import ReferenceSide
from .report import DiffReport, Fusion
from .sides import IREXEC


class IRSide:
    """B, run by irexec; tensors given under A's layer names."""

    kind = IREXEC

    def __init__(self, ref: ReferenceSide, other: ReferenceSide, matching: Matching, label: str):
        self.ref, self.other, self.matching = ref, other, matching
        self.no_counterpart = dict(matching.unmatched_a)
        self.description = f"irexec on {label}"
        self.properties: dict[str, str] = {}
        self.compiles = 0
        self.slack_units = 0.0  # the same engine on both sides: only the IRs differ
        self.streams = True  # gives any layer's tensors at once from one run: the reference can be compared as it runs
        by_name = other.by_name
        self.fusion = {a: Fusion(b, by_name[b].type, _precision(by_name[b])) for a, b in matching.layer.items()}
        # A's constant layers count as computed the same way ("removed" would say they are not)
        for layer in ref.candidates:
            if layer.id not in ref.varying:
                self.fusion.setdefault(layer.name, Fusion(layer.name, layer.type, _precision(layer)))
        self.kept: dict[int, list[np.ndarray]] = {}  # B's layers' outputs of the last step run
        self.constants: dict[int, list[np.ndarray]] = {}  # A's constant layers' outputs, given as they are
        self._cache: tuple[int, list[dict[tuple[str, int], np.ndarray]]] | None = None
        self._held = 0  # bytes of ``kept`` charged to the diff's memory

    def feeds(self, feeds: Feeds) -> dict[str, np.ndarray]:
        """A's feeds keyed for B: by Parameter name, else by a shared tensor name."""
        out = {}
        a_params = {p.name: p for p in self.ref.model.parameters}
        for p in self.other.model.parameters:
            names = (p.name, *(n for port in p.outputs for n in port.names))
            for name in names:
                if name in feeds:
                    out[p.name] = feeds[name]
                    break
            else:
                for ap in a_params.values():
                    if set(names) & {n for port in ap.outputs for n in port.names} and ap.name in feeds:
                        out[p.name] = feeds[ap.name]
                        break
        return out

    def run(self, steps: Sequence[Feeds], expose: Sequence[tuple[str, int]]) -> Exposed:
        key = id(steps[-1]) * 1000 + len(steps)
        if self._cache is None or self._cache[0] != key or (expose and not self.kept):
            b_ports = {(layer.name, port): key for layer, port, key in self.other.output_ports()}
            self.other.memory.release(self._held)
            self.kept, self._held = {}, 0
            history_b, self.kept = self.other.run([self.feeds(f) for f in steps], capture=True)
            self._held = self.other.memory.hold(kept_arrays(self.kept))
            a_names = {key: (layer.name, port) for layer, port, key in self.ref.output_ports()}
            a_of: dict[tuple[str, int], tuple[str, int]] = {}  # B's port -> the first of A's matched to it
            for a_key, b_key in self.matching.ports.items():
                a_of.setdefault(b_key, a_key)
            history = []
            for outs in history_b:
                step: dict[tuple[str, int], np.ndarray] = {}
                for b_port, key_b in b_ports.items():
                    a_port = a_of.get(b_port)
                    if a_port is None and key_b in a_names:
                        a_port = a_names[key_b]
                    if a_port is not None:
                        step[a_port] = outs[key_b]
                history.append(step)
            self._cache = (key, history)
            self.compiles += 1
        layers: dict[str, list[np.ndarray | None]] = {}
        for name, port in expose:
            slots = layers.setdefault(name, [])
            slots.extend([None] * (port + 1 - len(slots)))
            layer = self.ref.by_name[name]
            if layer.id not in self.ref.varying:
                given = self.constants.get(layer.id)
                slots[port] = None if given is None or port >= len(given) else given[port]
                continue
            b = self.matching.ports.get((name, port))
            if b is not None:
                lb = self.other.by_name[b[0]]
                given = self.kept.get(lb.id)
                slots[port] = None if given is None or b[1] >= len(given) else given[b[1]]
        return Exposed(layers, self._cache[1])


def _precision(layer) -> str:
    port = layer.outputs[0] if layer.outputs else None
    return "" if port is None or port.precision is None else str(port.precision.name if hasattr(port.precision, "name")
                                                                 else port.precision)


# Below this share of A's layers with a counterpart in B, the report says B may not be a copy of A.
FEW_MATCHED = 0.5


def matched_share(ref: ReferenceSide, matching: Matching) -> tuple[int, int]:
    """(A's layers that depend on the inputs and have a counterpart in B, all such layers of A)."""
    varying = [layer for layer in ref.candidates if layer.id in ref.varying]
    return sum(1 for layer in varying if layer.name in matching.layer), len(varying)


def _require_a_copy(ref: ReferenceSide, other: ReferenceSide, matching: Matching, side: IRSide, feeds: Feeds,
                    model: str, other_model: str) -> None:
    """``not-a-copy`` when B cannot be compared with A at all: an input of B that no input of A
    feeds, or an output of A that no output of B gives."""
    fed = side.feeds(feeds)
    unfed = [p.name for p in other.model.parameters if p.name not in fed]
    b_outputs = {(layer.name, port) for layer, port, _ in other.output_ports()}
    b_keys = {key for _, _, key in other.output_ports()}
    ungiven = [key for layer, port, key in ref.output_ports()
               if matching.ports.get((layer.name, port)) not in b_outputs and key not in b_keys]
    if not unfed and not ungiven:
        return
    found, total = matched_share(ref, matching)
    why = "; ".join(part for part in (
        f"B's input(s) {', '.join(repr(n) for n in unfed[:5])} match no input of A by name or tensor name" if unfed else "",
        f"A's output(s) {', '.join(repr(n) for n in ungiven[:5])} match no output of B" if ungiven else "") if part)
    raise ModelError(f"{other_model} is not a copy of {model}: {why}; {found} of {total} layer(s) of A "
                     f"({100 * found / max(1, total):.0f}%) have a counterpart in B", code="not-a-copy", file=other_model)


def run_ir_diff(a: Session, b: Session, steps: Sequence[Feeds], *, model: str, other_model: str, inputs: str,
                logits: str | None = None, weights: bool = True, ablate: int = 32, max_memory: int | None = None
                ) -> DiffReport:
    """Compare B with A (the reference) over ``steps``: every matched layer, every compressed weight;
    the top ``ablate`` weights also by the outputs' error with only that weight compressed."""
    from .ablation import ablate as ablate_weights
    from .weights import compression_tolerance, decompressed, rank_weights

    memory = DiffMemory(max_memory)
    ref, other = ReferenceSide(a, memory), ReferenceSide(b, memory)
    matching = match(ref, other)
    side = IRSide(ref, other, matching, other_model)
    _require_a_copy(ref, other, matching, side, steps[0], model, other_model)
    # A's constant layers (its weights, as weights.py and the layers re-run on B's inputs read them)
    _, kept_a = ref.run(list(steps), capture=[layer.id for layer in ref.order if layer.id not in ref.varying])
    memory.hold(kept_arrays(kept_a))
    side.constants = {lid: outs for lid, outs in kept_a.items() if lid not in ref.varying}
    report = run_diff(ref, side, steps, mode="all", model=model, inputs=inputs, logits=logits)
    report.matching = matching.as_dict()
    counts = matching.counts()
    found, total = matched_share(ref, matching)
    if total and found < FEW_MATCHED * total:
        report.notes.insert(0, f"only {found} of {total} layer(s) of A ({100 * found / total:.0f}%) have a counterpart "
                               "in B: B may not be a copy of A, and what is unmatched is not compared")
    report.notes.insert(0, f"B: {other_model}; {len(matching.layer)} layer(s) matched ("
                        + ", ".join(f"{n} by {how}" for how, n in counts.items())
                        + f"), {len(matching.unmatched_a)} of A and "
                        f"{sum(1 for v in matching.unmatched_b.values() if 'weight' not in v)} of B unmatched")
    if weights:
        report.weights = rank_weights(ref, other, matching, kept_a, side.kept, report)
        if ablate:
            report.weights = ablate_weights(a, ref, report.weights, decompressed(other, side.kept, report.weights),
                                            steps, ablate)
        tolerated = compression_tolerance(report)
        if tolerated:
            report.notes.append(f"{len(tolerated)} layer(s) depart from A only within the rounding of their compressed "
                                "weights (every weight element within one quantization step of A's, and the layer's "
                                "own error within the bound that gives): counted as matches: "
                                + ", ".join(tolerated[:5]) + (", ..." if len(tolerated) > 5 else ""))
    return report


__all__ = ["IRSide", "run_ir_diff"]
