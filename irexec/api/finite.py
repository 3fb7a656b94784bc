"""``--check-finite``: end a run at the first layer whose output holds a NaN or
an infinity, naming the layer and what its inputs held.

A run hook: it sees every layer's outputs in execution order, keeps a few
numbers per output (never the tensor), and raises ``NonFiniteError`` at the
first output that is not all finite.  The inputs of that layer were outputs
of earlier layers, so their ranges are already at hand."""

from __future__ import annotations

import numpy as np

from ..base.errors import ERROR, Diagnostic, IRExecError
from ..ir.records import Layer
from .load import Model
from .stats import TensorStats, tensor_stats


class NonFiniteError(IRExecError):
    """A layer's output holds NaN or infinity (``--check-finite``)."""

    default_code = "non-finite"


class FiniteCheck:
    """A layer hook for ``run_model``: raises ``NonFiniteError`` at the first
    layer (in execution order) with a NaN or an infinity in an output."""

    def __init__(self, model: Model):
        self.model = model
        self.seen: dict[tuple[int, int], TensorStats] = {}

    def __call__(self, layer: Layer, outputs: list[np.ndarray], seconds: float) -> None:
        for index, arr in enumerate(outputs):
            stats = self.seen[(layer.id, index)] = tensor_stats(arr)
            if not stats.finite:
                raise NonFiniteError(self._diagnostic(layer, index, stats))

    def _diagnostic(self, layer: Layer, index: int, stats: TensorStats) -> Diagnostic:
        port = layer.outputs[index].id if index < len(layer.outputs) else index
        inputs, values = [], []
        for port_spec, source in zip(layer.inputs, self.model.graph.inputs_of(layer.id)):
            if source is None:
                continue
            src = self.model.layers[source[0]]
            seen = self.seen.get(source)
            held = seen.describe() if seen is not None else "not seen"
            inputs.append(f"port {port_spec.id} <- layer {src.id} {src.name!r} ({src.display}): {held}")
            values.append({"port": port_spec.id, "from_layer_id": src.id, "from_layer_name": src.name,
                           **(seen.as_dict() if seen is not None else {})})
        held_in = "; ".join(inputs) if inputs else "none (a model input or a constant)"
        message = (f"{stats.describe(counts=False)} holds {stats.counts()} of {stats.size} values, the first NaN or "
                   f"Inf of the run; inputs: {held_in}")
        where = self.model.where(layer, port, "output")
        return Diagnostic("non-finite", message, ERROR, **where,
                          values={"output": stats.as_dict(), "inputs": values})
