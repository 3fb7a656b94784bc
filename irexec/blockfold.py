"""Weight-decompression chains folded in blocks of rows.

A weight-compressed model computes each of its weights from Consts alone:
u8/u4 Const -> Convert -> Subtract zero point -> Multiply scale (-> Reshape)
-> Convert to f32.  Layer by layer, every step of that chain is a tensor of
the weight's full size, so the chain needs two or three times the memory of
the weight it makes (the embedding of a 49,152-token vocabulary: 113 MB of
f32 output, over 250 MB at its peak).  Row by row the same ops give the same
values (each row of the output depends on the same row of every input), so a
chain made only of such ops is computed here in blocks of rows straight into
its output: its peak is the output plus one block of each step.

Only layers whose kernels are elementwise along the leading dim qualify:
Convert, Subtract, Multiply, Add (their Const inputs broadcast along that dim
or sliced with it) and a Reshape that keeps the leading dim.  Each block goes
through the op's own kernel, so the values are the ones the layer-by-layer
path computes, bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from . import limits
from .errors import IRExecError
from .ops.base import TensorInfo
from .ops.io import Const1

if TYPE_CHECKING:
    from .model import Model

# A chain is folded in blocks only when its output is at least this large.
MIN_BYTES = 4 << 20
# Rows per block: the widest step of a block holds about this many bytes.
BLOCK_BYTES = 1 << 20
_ROWWISE = frozenset({"Convert", "Subtract", "Multiply", "Add"})


@dataclass(frozen=True)
class Chain:
    """The layers (run order) that make one folded tensor from Consts; ``final``
    is the one whose output the rest of the model reads."""

    final: int
    layers: tuple[int, ...]  # the inner layers and the final one, in run order
    shapes: dict[int, tuple[int, ...]]  # each layer's output shape
    consts: dict[int, bool]  # the Const layers they read: True when sliced with the rows, False when read whole
    rows: int  # the leading dim every step shares
    dtype: np.dtype

    @property
    def shape(self) -> tuple[int, ...]:
        return self.shapes[self.final]


def find_chains(model: Model, foldable: set[int]) -> dict[int, Chain]:
    """Chains worth folding in blocks, by final layer id.  Uses the declared
    dims to skip small ones, then the ops' own inference to be sure."""
    graph, ops, layers = model.graph, model.ops, model.layers
    chains: dict[int, Chain] = {}
    position: dict[int, int] | None = None
    for lid in graph.order:
        if lid not in foldable or isinstance(ops[lid], Const1) or len(layers[lid].outputs) != 1:
            continue
        port = layers[lid].outputs[0]
        if not port.dims or min(port.dims) < 0 or int(np.prod(port.dims)) * 2 < MIN_BYTES:
            continue
        readers = graph.consumers.get((lid, 0), [])
        if not readers or all(dst in foldable for dst, _ in readers):
            continue  # not where the folded part ends
        if position is None:
            position = {l: i for i, l in enumerate(graph.order)}
        chain = _chain(model, lid, foldable, position)
        if chain is not None:
            chains[lid] = chain
    return chains


def _chain(model: Model, final: int, foldable: set[int], position: dict[int, int]) -> Chain | None:
    graph, ops, layers = model.graph, model.ops, model.layers
    members: set[int] = set()
    const_ids: set[int] = set()
    stack = [final]
    while stack:
        lid = stack.pop()
        if lid in members:
            continue
        if layers[lid].type not in _ROWWISE and layers[lid].type != "Reshape":
            return None
        members.add(lid)
        for src in graph.inputs_of(lid):
            if src is None or src[0] not in foldable:
                return None
            if isinstance(ops[src[0]], Const1):
                const_ids.add(src[0])
            else:
                stack.append(src[0])
    for lid in members - {final}:  # an inner step read outside the chain must exist in full
        if any(dst not in members for dst, _ in graph.consumers.get((lid, 0), [])) or len(layers[lid].outputs) != 1:
            return None
    order = tuple(sorted(members, key=position.__getitem__))
    infos = _infer(model, order, const_ids)
    if infos is None or infos[final].etype.dtype is None:
        return None
    shapes = {lid: info.shape.to_tuple() for lid, info in infos.items()}
    rows = shapes[final][0] if shapes[final] else 0
    if rows < 2:
        return None
    sliced: dict[int, bool] = {}
    for lid in order:  # every step keeps the leading dim; Const inputs are sliced with it or broadcast along it
        out = shapes[lid]
        if not out or out[0] != rows:
            return None
        srcs = graph.inputs_of(lid)
        for src in srcs[:1] if layers[lid].type == "Reshape" else srcs:
            s = shapes[src[0]]
            if src[0] not in const_ids:
                if s[:1] != (rows,):
                    return None
                continue
            whole = len(s) < len(out) or s[0] == 1
            if not whole and s[0] != rows:
                return None
            if sliced.setdefault(src[0], not whole) != (not whole):
                return None  # read both ways by two steps
        if layers[lid].type == "Reshape":
            sliced.setdefault(srcs[1][0], False)
    return Chain(final, order, {lid: shapes[lid] for lid in order}, sliced, rows, np.dtype(infos[final].etype.dtype))


def _infer(model: Model, order: tuple[int, ...], consts: set[int]) -> dict[int, TensorInfo] | None:
    """Static output shapes and types of the chain's layers and Consts, by the ops'
    inference (no data read except what an inference reads, such as a Reshape's pattern)."""
    graph, ops = model.graph, model.ops
    infos: dict[int, TensorInfo] = {}
    try:
        for c in consts:
            infos[c] = ops[c].inference([]).outputs[0]  # type: ignore[union-attr]
        for lid in order:
            op = ops[lid]
            assert op is not None
            outs = op.inference([infos[src[0]] for src in graph.inputs_of(lid)]).outputs  # type: ignore[index]
            if len(outs) != 1 or not outs[0].shape.is_static:
                return None
            infos[lid] = TensorInfo(outs[0].shape, outs[0].etype)
    except IRExecError:
        return None  # the layer-by-layer path reports it
    return infos


def fold(model: Model, chain: Chain, const_value: Callable[[int], np.ndarray], limit: int, held: int) -> np.ndarray:
    """The chain's output, computed block by block through each layer's kernel.
    ``const_value(lid)`` gives a Const layer's array."""
    need = int(np.prod(chain.shape)) * chain.dtype.itemsize
    why = limits.over_limit(need + held, limit)
    if why:
        raise IRExecError(f"output {chain.dtype}{list(chain.shape)} (a decompressed weight) {why}", code="memory-limit",
                          **model.where(model.layers[chain.final]))
    graph, ops, layers = model.graph, model.ops, model.layers
    consts = {c: const_value(c) for c in chain.consts}
    widest = max([int(np.prod(consts[c].shape[1:])) * consts[c].dtype.itemsize for c, s in chain.consts.items() if s]
                 + [int(np.prod(shape[1:])) * 4 for shape in chain.shapes.values()])
    step = max(1, BLOCK_BYTES // max(1, widest))
    out = np.empty(chain.shape, chain.dtype)
    for r0 in range(0, chain.rows, step):
        r1 = min(chain.rows, r0 + step)
        block = {c: a[r0:r1] if chain.consts[c] else a for c, a in consts.items()}
        for lid in chain.layers:
            args = [block[src[0]] for src in graph.inputs_of(lid)]  # type: ignore[index]
            if layers[lid].type == "Reshape":
                block[lid] = args[0].reshape((r1 - r0, *chain.shapes[lid][1:]))  # the leading dim is kept (checked)
            else:
                op = ops[lid]
                assert op is not None
                block[lid] = op.compute(op.plan_for(args).plan, *args)[0]
        out[r0:r1] = block[chain.final]
    return out
