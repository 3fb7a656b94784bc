"""Only the last position of a causal LM's logits: the prefill of a greedy
loop reads the logits of the prompt's last token alone, yet the head product
([tokens, hidden] x [hidden, vocabulary]) costs as much per position as
everything before it.  A run asked for the last position of an output finds
the product that makes it (its "head") and feeds it the last position of its
input only, as GenAI's LLMPipeline slices the hidden states before lm_head.

Found where the graph allows it, else the run computes every position:
the output's Result reads a MatMul (not transposing its first input) through
Converts only, and nothing else reads the MatMul or those Converts.  The
MatMul's product for a row does not depend on the other rows, so the last
position comes out as in the full run.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..model.binding import Model
from ..model.naming import output_names
from ..ops.matmul.matmul import MatMul1

# what may stand between the head product and the output: an op that maps each position on its own
_PASS_THROUGH = frozenset({"Convert"})


@dataclass(frozen=True)
class Head:
    """The product whose first input a run cuts to its last position, and the
    layers whose outputs then hold one position where the file declares them all."""

    matmul: int  # layer id
    cut: frozenset[int]  # the MatMul, the Converts after it and the Result


def find_head(model: Model, output: str) -> Head | None:
    """The head of ``output`` (an output name), or None where the graph does not allow the cut."""
    names = output_names(model)
    result = next((r.id for r in model.results if names[r.id] == output), None)
    if result is None:
        return None
    graph = model.graph
    cut = {result}
    lid = result
    while True:
        srcs = graph.inputs_of(lid)
        if len(srcs) != 1:
            return None
        src = srcs[0]
        if src is None or len(graph.consumers.get(src, [])) != 1 or len(model.layers[src[0]].outputs) != 1:
            return None  # another layer reads every position
        lid = src[0]
        layer = model.layers[lid]
        cut.add(lid)
        if isinstance(model.ops[lid], MatMul1):
            return None if model.ops[lid].transpose_a else Head(lid, frozenset(cut))  # type: ignore[union-attr]
        if layer.type not in _PASS_THROUGH or model.ops[lid] is None:
            return None


def last_position(a: np.ndarray) -> np.ndarray:
    """The head's first input [..., positions, hidden] cut to its last position; an input
    of rank below 3 (no batch axis to keep the logits' rank) is left whole."""
    return np.ascontiguousarray(a[..., -1:, :]) if a.ndim >= 3 else a


__all__ = ["Head", "find_head", "last_position"]
