"""The reference side of a diff: irexec itself, run on the same inputs as the
other side, keeping the outputs of the layers asked for; it also re-runs one
layer on the other side's input tensors (the layer's own error, apart from what
reached it)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

import numpy as np

from ...base.errors import IRExecError
from ...executor.engine import LayerHook
from ...ir.records import Layer
from ...model.naming import output_names
from ..session import Session
from .memory import DiffMemory

_SKIP = ("Const", "Parameter", "Result", "Assign")  # what is not compared: the same on both sides, or no output


class ReferenceSide:
    def __init__(self, session: Session, memory: DiffMemory | None = None):
        self.session = session
        self.memory = memory if memory is not None else DiffMemory(session.max_memory)
        self.model = session.model
        graph = self.model.graph
        self.order = [self.model.layers[lid] for lid in graph.order]
        self.by_name = {layer.name: layer for layer in self.order}
        self.position = {layer.id: i for i, layer in enumerate(self.order)}  # in the topological order
        self.candidates = [layer for layer in self.order if layer.type not in _SKIP and layer.outputs]
        # layers whose value depends on the inputs or the state (the rest is a constant sub-graph, folded)
        self.varying: set[int] = set()
        for layer in self.order:
            if layer.type in ("Parameter", "ReadValue") or any(
                    src is not None and src[0] in self.varying for src in graph.inputs_of(layer.id)):
                self.varying.add(layer.id)
        self.depth: dict[int, int] = {}
        for layer in self.order:
            srcs = [s for s in graph.inputs_of(layer.id) if s is not None]
            self.depth[layer.id] = 1 + max((self.depth[s[0]] for s in srcs), default=-1)

    def producers(self, layer: Layer) -> list[tuple[Layer, int] | None]:
        return [None if s is None else (self.model.layers[s[0]], s[1]) for s in self.model.graph.inputs_of(layer.id)]

    def ancestors(self, layers: Sequence[Layer]) -> set[int]:
        seen, stack = {layer.id for layer in layers}, [layer.id for layer in layers]
        while stack:
            for src in self.model.graph.inputs_of(stack.pop()):
                if src is not None and src[0] not in seen:
                    seen.add(src[0])
                    stack.append(src[0])
        return seen

    def descendants(self, layer: Layer) -> set[int]:
        seen, stack = {layer.id}, [layer.id]
        while stack:
            lid = stack.pop()
            for port in range(len(self.model.layers[lid].outputs)):
                for dst, _ in self.model.graph.consumers.get((lid, port), ()):
                    if dst not in seen:
                        seen.add(dst)
                        stack.append(dst)
        return seen

    def output_ports(self) -> list[tuple[Layer, int, str]]:
        """(producing layer, port, output key) of every model output."""
        names = output_names(self.model)
        out = []
        for res in self.model.results:
            src = self.model.graph.producer.get((res.id, 0))
            if src is not None:
                out.append((self.model.layers[src[0]], src[1], names[res.id]))
        return out

    def run(self, steps: Sequence[Mapping[str, np.ndarray]], capture: bool | Collection[int] = False,
            on_layer: LayerHook | None = None) -> tuple[list[dict[str, np.ndarray]], dict[int, list[np.ndarray]]]:
        """Run ``steps`` in order from a reset state: every step's outputs, and with ``capture``
        (True: every layer; else the ids of the layers) those layers' outputs of the last step.
        The run keeps them alive, so they count against its limit: what the diff leaves free.
        ``on_layer``: a hook the last step's run calls instead (its ``keeps`` kept alive the same way)."""
        self.session.reset_state()
        kept: dict[int, list[np.ndarray]] = {}
        wanted = frozenset(self.model.layers) if capture is True else frozenset(capture or ())

        def keep(layer: Layer, outs: list[np.ndarray], seconds: float) -> None:
            if layer.id in wanted:
                kept[layer.id] = list(outs)  # not copies: the run holds them to its end and frees none of them

        keep.keeps = wanted  # type: ignore[attr-defined]
        history = []
        try:
            for i, feeds in enumerate(steps):
                hook = (on_layer or (keep if wanted else None)) if i == len(steps) - 1 else None
                self.session.max_memory = self.memory.run_limit(f"a run of {self.model.path}")
                history.append(self.session.run(dict(feeds), on_layer=hook).outputs)
        finally:
            self.session.max_memory = self.memory.limit
        return history, kept

    def replay(self, layer: Layer, inputs: Sequence[np.ndarray]) -> list[np.ndarray] | None:
        """The layer computed by irexec on ``inputs``; None when it cannot run alone
        (a sub-graph, a variable, an input the op refuses)."""
        if layer.bodies or layer.type in ("ReadValue", "Assign"):
            return None
        op = self.model.ops.get(layer.id)
        if op is None:
            return None
        need = 2 * sum(int(np.asarray(a).nbytes) for a in inputs)  # the copies, and outputs of about their size
        with self.memory.temporaries(need, f"re-running {layer.display} layer {layer.name!r} on the other side's inputs"):
            try:
                return [np.asarray(o) for o in op.run(*[np.array(a, copy=True) for a in inputs])]
            except IRExecError as e:
                if e.diagnostics and e.diagnostics[0].code == "memory-limit":
                    raise
                return None
            except (ValueError, TypeError, IndexError):
                return None


__all__ = ["ReferenceSide"]
