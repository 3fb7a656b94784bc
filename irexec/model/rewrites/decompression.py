"""Which weight decompression subgraphs OpenVINO computes in f32: the rule.

OpenVINO's CPU plugin keeps a weight's decompression out of constant folding
and computes it in f32 under an f32 inference precision (docs/numerics.md has
the passes and what was measured).  What it keeps is not a list of shapes but
what its marks reach:

- ``MarkDequantization`` / ``KeepConstPrecision`` (Convert of a weight-type
  Const, then Subtract and Multiply) and ``MarkGatherSubgraph`` (a Gather from
  a codebook) mark the weight's first Convert (and the codebook Gather) with
  ``DisableConstantFolding``;
- every layer that reads a value so kept cannot be folded either, up to the
  layer that reads the weight (FullyConnected, Convolution, Gather): those
  layers become f32 ones under ``ConvertPrecision`` (f16 -> f32), so their
  arithmetic is f32 and their Converts to f16 round nothing;
- every other Const-only input of those layers (a zero point, a scale, even a
  scale computed from other Consts, as NVFP4 writes it) is folded first, as its
  element types say: its rounding to f16 is kept.

``find`` applies that rule to a bound model: from each weight's Convert
forward through Convert, Subtract, Multiply, Reshape, Unsqueeze, Squeeze,
Transpose and Gather (the weight as the table), each the only reader of the
layer before, whose other inputs are Const-only.  ``uncovered`` names what
reads like a decompression the rule leaves to the element types.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...base import dtypes
from ...base.dtypes import ElementType
from ...ir.declared import declared_shape
from ...ops.io import Const1

if TYPE_CHECKING:
    from ..binding import Model

# Weights whose chains OpenVINO never folds (MarkDequantization's precisions in 2026.4's CPU plugin, measured):
# their f16 arithmetic becomes f32 whatever reads the chain.
ALWAYS_F32 = frozenset({"u8", "i8", "u4", "i4"})
# Weights the CPU plugin's compressed MatMul (FullyConnected) decompresses in f32 itself (measured; not u3).
MATMUL_F32 = frozenset({"nf4", "f8e4m3", "f8e5m2", "f8e8m0", "f4e2m1", "u2"})
WEIGHT_TYPES = ALWAYS_F32 | MATMUL_F32 | {"u1", "u3", "u6"}
NARROW_FLOATS = frozenset({"f16", "bf16"})
_FLOATS = NARROW_FLOATS | {"f32"}
# layers that move a weight's values (their other inputs: a shape, axes, a permutation, indices)
MOVES = frozenset({"Reshape", "Unsqueeze", "Squeeze", "Transpose", "Gather"})
_ARITHMETIC = frozenset({"Subtract", "Multiply"})
# the layers whose input ports read weights, and those ports
WEIGHT_PORTS: dict[str, tuple[int, ...]] = {
    "MatMul": (0, 1), "Gather": (0,), "Convolution": (1,), "GroupConvolution": (1,),
    "ConvolutionBackpropData": (1,), "GroupConvolutionBackpropData": (1,), "GroupedMatMul": (1,)}

Src = tuple[int, int]


@dataclass
class Chain:
    """One decompression chain: its layers in run order (the last one, ``end``,
    gives the chain's value) and the tensors it reads (``leaves``: the weight
    Const first, then Consts and the outputs of Const-only layers computed as
    their types say)."""

    end: int
    layers: list[int]
    leaves: list[Src]
    declared_weight: bool = False  # the weight's Convert rounds to its type (nf4 -> f16) before the f32 steps
    operand: bool = False  # a scale or zero point computed from Consts: every step f32, rounded at the end only


def find(model: Model) -> dict[int, Chain]:
    """The decompression chains of a model whose arithmetic OpenVINO does in
    f32 while the ports say f16 or bf16, keyed by the chain's last layer."""
    return _scan(model)[0]


def has_low_bit_weight(model: Model) -> bool:
    """Whether any Const holds a weight type: every chain and every uncovered
    decompression starts from one, so without one there is nothing to scan."""
    return any(isinstance(op, Const1) and op.element_type.name in WEIGHT_TYPES for op in model.ops.values())


def const_only(model: Model) -> frozenset[int]:
    """The layers computed from Consts alone (what OpenVINO may fold)."""
    seen: set[int] = set()
    for lid in model.graph.order:
        op = model.ops.get(lid)
        if isinstance(op, Const1):
            seen.add(lid)
        elif (op is not None and op.deterministic and model.layers[lid].inputs
              and all(s is not None and s[0] in seen for s in model.graph.inputs_of(lid))):
            seen.add(lid)
    return frozenset(seen)


def _scan(model: Model, folded: frozenset[int] | None = None) -> tuple[dict[int, Chain], set[int]]:
    """The chains, and the ends of the chains OpenVINO folds as their types say."""
    if folded is None:
        folded = const_only(model)
    chains: dict[int, Chain] = {}
    typed: set[int] = set()
    for lid in model.graph.order:
        chain = _from_seed(model, lid, folded)
        if chain is None:
            continue
        decided = _decide(model, chain)
        if decided is None:
            typed.add(chain.end)
        elif decided:
            chains[chain.end] = chain
    # a scale or zero point computed from Consts in several steps: f32 throughout, rounded once to the
    # type the weight's chain reads it in (measured: NVFP4's f32 scale product converted to f16, two f16
    # Multiplies of Consts, an f8e4m3 scale times f16 factors all give that value)
    for chain in list(chains.values()):
        for src in chain.leaves[1:]:
            if src[0] in chains or _const(model, src):
                continue
            found = _operand_chain(model, src)
            if found is not None and any(etype_of(model, (lid, 0)).name in NARROW_FLOATS for lid in found.layers):
                chains[src[0]] = found
                typed.discard(src[0])
    return chains, typed


def _operand_chain(model: Model, src: Src) -> Chain | None:
    """A scale or zero point's subgraph of Converts, Subtracts, Multiplies and moves over Consts."""
    layers: list[int] = []
    leaves: list[Src] = []
    done: set[int] = set()

    def visit(lid: int) -> bool:
        if lid in done:
            return True
        done.add(lid)
        for s in model.graph.inputs_of(lid):
            if s is None:
                return False
            if _const(model, s):
                if s not in leaves:
                    leaves.append(s)
            elif s[1] != 0 or not _is(model, s[0], "Convert", *_ARITHMETIC, *MOVES) or not visit(s[0]):
                return False
        layers.append(lid)
        return True

    if src[1] != 0 or not _is(model, src[0], "Convert", *_ARITHMETIC, *MOVES) or not visit(src[0]) or not leaves:
        return None
    return Chain(src[0], layers, leaves, operand=True)


def _src(model: Model, lid: int, index: int) -> Src | None:
    srcs = model.graph.inputs_of(lid)
    return srcs[index] if index < len(srcs) else None


def _readers(model: Model, src: Src) -> list[tuple[int, int]]:
    return model.graph.consumers.get(src, [])


def _is(model: Model, lid: int, *types: str) -> bool:
    return model.ops.get(lid) is not None and model.layers[lid].type in types


def etype_of(model: Model, src: Src) -> ElementType:
    """The element type a chain layer's output has (as inference gives it, not
    as the port declares it)."""
    op = model.ops[src[0]]
    if isinstance(op, Const1):
        return op.element_type
    if model.layers[src[0]].type == "Convert":
        return op.destination_type  # type: ignore[union-attr]
    inner = _src(model, src[0], 0)  # Subtract, Multiply and the moves: the type of their data
    return etype_of(model, inner) if inner is not None else dtypes.get("undefined")


def _const(model: Model, src: Src | None) -> bool:
    return src is not None and isinstance(model.ops.get(src[0]), Const1)


def _count(model: Model, src: Src) -> int | None:
    """The element count the port declares, when static."""
    layer = model.layers[src[0]]
    if src[1] >= len(layer.outputs):
        return None
    shape = declared_shape(layer.outputs[src[1]], trust_empty_as_scalar=True)
    if not shape.is_static:
        return None
    count = 1
    for d in shape.to_tuple():
        count *= d
    return count


def _weight_convert(model: Model, lid: int) -> Src | None:
    """The Const a chain starts from: a Convert to a float type of a Const of a
    weight type, nothing else reading the Convert (MarkDequantization's pattern)."""
    if not _is(model, lid, "Convert") or model.ops[lid].destination_type.name not in _FLOATS:  # type: ignore[union-attr]
        return None
    const = _src(model, lid, 0)
    if not _const(model, const) or model.ops[const[0]].element_type.name not in WEIGHT_TYPES:  # type: ignore[index,union-attr]
        return None
    return const if len(_readers(model, (lid, 0))) == 1 else None


def _joins(model: Model, nxt: int, port: int, cur: int) -> bool:
    """Whether the weight's value, read by ``nxt`` at ``port``, goes on through it."""
    if model.ops.get(nxt) is None:
        return False
    kind = model.layers[nxt].type
    if kind == "Convert":
        return model.ops[nxt].destination_type.name in _FLOATS  # type: ignore[union-attr]
    if kind in MOVES or kind == "Subtract":
        return port == 0
    if kind == "Multiply":  # commutative: the weight is the side the scale broadcasts to
        other = _src(model, nxt, 1 - port)
        ours, theirs = _count(model, (cur, 0)), _count(model, other) if other is not None else None
        return ours is None or theirs is None or ours >= theirs and (ours > theirs or port == 0)
    return False


def _operand(model: Model, src: Src | None, arithmetic: bool, layers: list[int], leaves: list[Src],
             folded: frozenset[int]) -> bool:
    """A zero point or scale (``arithmetic``), or a shape, axes or indices: a
    [Reshape/Unsqueeze by a Const]([Convert](Const)) the chain computes itself
    (the Convert rounds to its type), else any Const-only tensor, read as
    computed (``_scan`` makes a scale or zero point of several steps a chain)."""
    if src is None:
        return False
    lid = src[0]
    if arithmetic and _is(model, lid, "Reshape", "Unsqueeze") and _const(model, _src(model, lid, 1)):
        took_l: list[int] = []
        took_v: list[Src] = []
        if _simple(model, _src(model, lid, 0), took_l, took_v):
            layers += took_l + [lid]
            leaves += took_v + [_src(model, lid, 1)]  # type: ignore[list-item]
            return True
    if _simple(model, src, layers, leaves):
        return True
    if lid in folded:
        leaves.append(src)
        return True
    return False


def _simple(model: Model, src: Src | None, layers: list[int], leaves: list[Src]) -> bool:
    """A Const, or a Convert of one."""
    if src is None:
        return False
    if _const(model, src):
        leaves.append(src)
        return True
    if _is(model, src[0], "Convert") and _const(model, _src(model, src[0], 0)):
        leaves.append(_src(model, src[0], 0))  # type: ignore[arg-type]
        layers.append(src[0])
        return True
    return False


def _from_seed(model: Model, seed: int, folded: frozenset[int]) -> Chain | None:
    const = _weight_convert(model, seed)
    if const is None:
        return None
    layers, leaves = [seed], [const]
    cur = seed
    while True:
        readers = _readers(model, (cur, 0))
        if len(readers) != 1:
            break
        nxt, port = readers[0]
        if not _joins(model, nxt, port, cur):
            break
        took_l: list[int] = []
        took_v: list[Src] = []
        arithmetic = model.layers[nxt].type in _ARITHMETIC
        srcs = model.graph.inputs_of(nxt)
        if not all(_operand(model, s, arithmetic, took_l, took_v, folded) for i, s in enumerate(srcs) if i != port):
            break
        layers += took_l + [nxt]
        leaves += took_v
        cur = nxt
    if not any(model.layers[lid].type == "Multiply" for lid in layers):
        return None  # every decompression scales its weight
    return Chain(cur, layers, leaves)


def _decide(model: Model, chain: Chain) -> bool | None:
    """True: compute the chain in f32; None: OpenVINO folds it as its types say;
    False: the question does not arise (f32 all along)."""
    if not any(etype_of(model, (lid, 0)).name in NARROW_FLOATS for lid in chain.layers):
        return False  # f32 all along: each step already rounds as OpenVINO's does
    weight = model.ops[chain.leaves[0][0]].element_type.name  # type: ignore[union-attr]
    if weight in ALWAYS_F32 or weight in MATMUL_F32 and _read_by_matmul(model, chain.end):
        return True
    if model.layers[chain.end].type == "Convert" and "decompression" in model.layers[chain.end].rt_info:
        return None  # f16-compressed weights to OpenVINO: folded as the types say
    chain.declared_weight = weight == "nf4"
    return True


def _read_by_matmul(model: Model, end: int) -> bool:
    readers = _readers(model, (end, 0))
    return len(readers) == 1 and _is(model, readers[0][0], "MatMul")


@dataclass
class Uncovered:
    """A weight a layer reads that looks decompressed (a low-bit Const, f16 or
    bf16 arithmetic) but that no chain computes: it is computed as its types say."""

    reader: int  # the layer reading the weight
    port: int
    source: int  # the layer giving the weight
    why: str


def uncovered(model: Model) -> list[Uncovered]:
    """Every weight read by a MatMul, Convolution, Gather or GroupedMatMul whose
    Const-only subgraph has a low-bit Const and f16/bf16 arithmetic that the
    rule leaves to the element types (once per weight)."""
    if not has_low_bit_weight(model):
        return []
    folded = const_only(model)
    chains, typed = _scan(model, folded)
    found: list[Uncovered] = []
    seen: set[Src] = set()
    for chain in chains.values():  # a scale or zero point the rule cannot compute in f32 (a Divide, say)
        for src in chain.leaves[1:]:
            if src in seen or src[0] in chains or _const(model, src):
                continue
            seen.add(src)
            why = _why(model, src, chains, typed, folded, operand=True)
            if why:
                reader = next(lid for lid in chain.layers if src in model.graph.inputs_of(lid))
                found.append(Uncovered(reader, model.graph.inputs_of(reader).index(src), src[0], why))
    for lid in model.graph.order:
        ports = WEIGHT_PORTS.get(model.layers[lid].type)
        if ports is None or model.ops.get(lid) is None:
            continue
        for port in ports:
            read = _src(model, lid, port)
            if read is None or read in seen or read[0] not in folded or read[0] in chains or read[0] in typed:
                continue
            seen.add(read)
            why = _why(model, read, chains, typed, folded)
            if why:
                found.append(Uncovered(lid, port, read[0], why))
    return found


def _why(model: Model, src: Src, chains: dict[int, Chain], typed: set[int], folded: frozenset[int],
         operand: bool = False) -> str:
    low: list[str] = ["a scale or zero point"] if operand else []
    narrow: list[int] = []
    stack, visited = [src[0]], set()
    while stack:
        lid = stack.pop()
        if lid in visited:
            continue
        visited.add(lid)
        op = model.ops.get(lid)
        if isinstance(op, Const1):
            if op.element_type.name in WEIGHT_TYPES:
                low.append(op.element_type.name)
            continue
        if lid in typed:
            continue  # decided: OpenVINO folds it as its types say
        if lid in chains:
            if lid != src[0] and etype_of(model, (lid, 0)).name in NARROW_FLOATS:
                narrow.append(lid)  # a chain another layer also reads ends in f16: rounded there
                low.append(model.ops[chains[lid].leaves[0][0]].element_type.name)  # type: ignore[union-attr]
            continue
        if model.layers[lid].type not in MOVES and model.layers[lid].type != "Convert" \
                and etype_of(model, (lid, 0)).name in NARROW_FLOATS:
            narrow.append(lid)  # arithmetic in f16 or bf16
        stack.extend(s[0] for s in model.graph.inputs_of(lid) if s is not None and s[0] in folded)
    if not low or not narrow:
        return ""
    first = model.layers[min(narrow, key=lambda i: model.layers[i].line)]
    what = "the scale or zero point it reads is computed" if operand else \
        f"the {'/'.join(sorted(set(low)))} weight it reads is decompressed"
    return (f"{what} by a subgraph the decompression rule does not cover: computed as its element types say "
            f"({first.type} layer {first.id} \"{first.name}\" rounds to {etype_of(model, (first.id, 0)).name}), "
            "where OpenVINO may compute it in f32")
