"""The graph rewrites a run applies: layers computed otherwise than by their op,
decided once per model before any run, so the layer loop only looks them up.

Today one kind: each weight decompression chain's last layer computes the
chain from its leaves in f32 (``decompression.py``; the rule that finds the
chains is ``model/rewrites/decompression.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ...kernels.compressed_linear import StandIn
from ...model.rewrites.decompression import find
from ...ops.framework.base import Inference, Op
from .decompression import DecompressionChain

if TYPE_CHECKING:
    from ...model.binding import Model

Src = tuple[int, int]


class Rewrites:
    """What a run computes otherwise than layer by layer, for one model."""

    def __init__(self, model: Model) -> None:
        chains = find(model)
        # layer id -> (the tensors it reads instead of its inputs, the op that computes it)
        self.rewired: dict[int, tuple[list[Src], Op]] = {
            end: (chain.leaves, DecompressionChain(model, chain)) for end, chain in chains.items()}
        # the f32 bytes of every chain's weight: whether a run's fold cache may keep them all
        rewritten = [op for _, op in self.rewired.values() if isinstance(op, DecompressionChain)]
        weights_f32 = sum(op.declared_bytes for op in rewritten)
        for op in rewritten:
            op.model_weights_f32 = weights_f32
        # unpacked low-bit weights that only their chains read: not kept, the chain's value is
        in_chains = {lid for chain in chains.values() for lid in chain.layers}
        self.chain_only = {src[0] for chain in chains.values() for src in chain.leaves
                           if getattr(model.ops[src[0]], "element_type", None) is not None
                           and model.layers[src[0]].type == "Const"
                           and model.ops[src[0]].element_type.packed  # type: ignore[union-attr]
                           and all(reader in in_chains for reader, _ in model.graph.consumers.get(src, []))}
        # the chain ends that read each such weight: once they are all kept, no run needs it unpacked
        self.chain_readers: dict[int, list[int]] = {}
        for end, chain in chains.items():
            for src in chain.leaves:
                if src[0] in self.chain_only:
                    self.chain_readers.setdefault(src[0], []).append(end)


# The ops of rewritten layers that may give a StandIn instead of their value (``stand_in``)
GIVES_STAND_IN = (DecompressionChain,)


def stand_in(op: Op, args: Sequence[np.ndarray], inference: Inference, keep_bytes: int) -> StandIn | None:
    """What a rewritten layer gives instead of its value, when a run may take it
    (a compressed weight its linear layers read as it is; ``keep_bytes``: what the
    run may keep of folded values for later runs); None: compute it."""
    return op.stand_in(args, inference, keep_bytes) if isinstance(op, DecompressionChain) else None


__all__ = ["GIVES_STAND_IN", "Rewrites", "stand_in"]
