"""Which outputs a graph only moves: their values come from the inputs and
Consts through data-movement ops alone, so any correct implementation gives
the same bits and ``--compare`` defaults to exact for them (a float output of a
Gather is compared as strictly as an integer one)."""

from __future__ import annotations

from ..model.binding import Model
from ..model.naming import output_names

# Families whose ops copy, select or rearrange elements without arithmetic.
MOVING_FAMILIES = frozenset({"io", "movement", "shape", "indexing", "convert"})
# Ops of those families that compute: Range's start + i * step, the scatters' reductions.
_COMPUTES = frozenset({"Range"})
_REDUCING_SCATTERS = frozenset({"ScatterElementsUpdate", "ScatterNDUpdate"})


def _moves_only(model: Model, layer_id: int) -> bool:
    op = model.ops.get(layer_id)
    layer = model.layers[layer_id]
    if op is None or getattr(op, "family", None) not in MOVING_FAMILIES or layer.type in _COMPUTES:
        return False
    return not (layer.type in _REDUCING_SCATTERS and layer.data.get("reduction", "none").lower() != "none")


def exact_outputs(model: Model) -> set[str]:
    """Names of the outputs whose every upstream layer only moves data."""
    exact: dict[int, bool] = {}
    for lid in model.graph.order:  # producers before consumers
        exact[lid] = _moves_only(model, lid) and all(
            exact.get(src, False) for src, _ in filter(None, model.graph.inputs_of(lid)))
    return {name for rid, name in output_names(model).items() if exact.get(rid, False)}
