"""Weight decompression chains, computed in f32 as OpenVINO computes them.

A weight-compressed model (NNCF INT8/INT4, f8, nf4, NVFP4, codebooks) keeps
each weight as a low-precision Const followed by a Const-only subgraph

    Convert(f16) -> [Gather from a codebook] -> [Subtract zero point] -> Multiply scale
    -> [Reshape/Transpose] -> [Convert(f32)]

``model/rewrites/decompression.py`` says which chains OpenVINO computes in
f32 (the rule, after the CPU plugin's ``MarkDequantization``,
``MarkGatherSubgraph``, ``KeepConstPrecision`` and ``ConvertPrecision``).
Here each such chain runs: its last layer computes its value from the
chain's leaves (the weight Const, the zero point's and scale's Consts or
Const-only tensors) in f32 (``DecompressionChain``) and rounds it to its own
element type once (f32 when the chain ends in a Convert to f32: no rounding
at all); the chain's f16 layers between are not computed unless another
layer reads them.  See docs/numerics.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

import numpy as np

from ...base import limits
from ...base.errors import OpError
from ...ir.declared import declared_shape
from ...kernels import compressed_linear
from ...kernels.convert import convert_array
from ...model.rewrites.decompression import MOVES, Chain, Src, etype_of
from ...ops.framework.base import In, Inference, Op, TensorInfo
from ...ops.io import Const1
from .. import compressed_weights as compressed

if TYPE_CHECKING:
    from ...model.binding import Model

_SHAPE_LEAF = In("leaf", value=True)
# the weight types whose chains a compressed product may read packed (executor/compressed_weights.py)
KEPT_PACKED = frozenset({"u8", "u4", "i8", "i4"}) | compressed.TABLED


class DecompressionChain(Op):
    """Stands for a chain's last layer in a run: reads the chain's Consts and
    computes the chain in f32 (see the module's docstring)."""

    type, version = "Decompression", 0
    family = "convert"
    summary = "a weight decompression chain computed in f32"
    inputs = (In("leaf", variadic=True),)

    def __init__(self, model: Model, chain: Chain):
        super().__init__(model.layers[chain.end], {}, model.weights)
        self.model = model
        self.chain = chain
        self.etype = etype_of(model, (chain.end, 0))
        self._position = {src: i for i, src in enumerate(chain.leaves)}

    def input_spec(self, index: int) -> In:
        # what a move of the chain reads besides its data (a shape, axes, indices): inference needs the values
        return _SHAPE_LEAF if index in self._shape_leaves else self.inputs[0]

    @property
    def _shape_leaves(self) -> frozenset[int]:
        found = getattr(self, "_shape_leaf_set", None)
        if found is None:
            model = self.model
            found = frozenset(self._position[src] for lid in self.chain.layers if model.layers[lid].type in MOVES
                              for src in model.graph.inputs_of(lid)[1:] if src in self._position)
            self._shape_leaf_set = found
        return found

    def infer(self, *leaves: TensorInfo) -> Inference:
        """Every layer of the chain inferred by its own op on the shapes of the
        Consts read, never on the dims the ports declare (operands that do not
        broadcast are refused here, with the layer's code); the f32 arrays
        ``run`` makes on the way are the inference's ``scratch``, which a run
        charges to its memory limit with the output before ``run`` starts."""
        model, chain = self.model, self.chain
        infos: dict[Src, TensorInfo] = {src: leaves[i] for src, i in self._position.items()}
        f32: dict[Src, bool] = {src: info.etype.name == "f32" for src, info in infos.items()}
        owned: set[Src] = set()
        made = 0

        def size(info: TensorInfo, itemsize: int = 4) -> int:
            return limits.nbytes(info.shape.to_tuple(), itemsize) if info.shape.is_static else 0

        for lid in chain.layers:
            layer = model.layers[lid]
            srcs = model.graph.inputs_of(lid)
            args = [infos[s] for s in srcs]  # type: ignore[index]
            try:
                out = model.ops[lid].inference(args).outputs[0]  # type: ignore[union-attr]
            except OpError as e:
                raise OpError(f"in the weight decompression chain, layer {lid} \"{layer.name}\" ({layer.type}): "
                              f"{e.diagnostics[0].message}", code=e.code) from None
            here: Src = (lid, 0)
            f32[here] = True
            if layer.type == "Convert":  # mirrors ``run``: an f32 copy unless its input is f32 already
                if lid == chain.layers[0] and chain.declared_weight:
                    made += size(args[0], model.ops[lid].destination_type.itemsize)  # type: ignore[union-attr]
                if not f32[srcs[0]]:  # type: ignore[index]
                    made += size(args[0])
                    owned.add(here)
                elif srcs[0] in owned:
                    owned.add(here)
            elif layer.type in ("Subtract", "Multiply"):
                for k in (0, 1):
                    if not f32[srcs[k]]:  # type: ignore[index]
                        made += size(args[k])
                in_place = srcs[0] in owned and out.shape == args[0].shape  # an f32 array made here is written over
                if not in_place:
                    made += size(out)
                owned.add(here)
            else:
                f32[here] = f32[srcs[0]]  # type: ignore[index]
                if srcs[0] in owned:
                    owned.add(here)
            infos[here] = out
        shape = infos[(chain.end, 0)].shape
        # the last f32 array made is the output when the output is f32: the run charges it as the output
        output = limits.nbytes(shape.to_tuple(), 4) if shape.is_static and self.etype.name == "f32" else 0
        return Inference([TensorInfo(shape, self.etype)], scratch=max(made - output, 0))

    model_weights_f32 = 0  # the f32 bytes of all the model's chains' weights (set by Rewrites)

    def stand_in(self, leaves: Sequence[np.ndarray], inference: Inference,
                 keep_bytes: int | None = None) -> compressed_linear.StandIn | None:
        """A StandIn for the weight, when this run may have one (nothing but linear layers
        and embedding lookups read the weight, and no hook, dump or ``stop_at`` reads
        values) and the chain's operands give exactly the inferred weight; else None,
        and the run computes the weight, charged to its memory limit as any output.
        A table format's weight (NF4, f4e2m1, f8, a codebook) stands in only when the
        model's f32 weights are more than the ``keep_bytes`` a run keeps of folded values:
        BLAS on kept f32 weights is faster than its packed product (benchmarks/README.md)."""
        if compressed.REAL_WEIGHTS.get() or not self.stands_in:
            return None
        shape = inference.outputs[0].shape
        weight = leaves[self._position[self._codes[0]]]
        if not shape.is_static or limits.element_count(shape.to_tuple()) != weight.size \
                or any(leaf.size > max(16, weight.size // 16) for leaf in leaves if leaf is not weight):
            return None  # the zero point and scale are converted uncharged here: only a few per row's group
        found = self._compressed(leaves)
        if found is None or found.shape != shape.to_tuple():
            return None  # (a zero point or scale that broadcasts the weight bigger, for one)
        if found.table is not None and keep_bytes is not None and self.model_weights_f32 <= keep_bytes:
            return None  # the f32 weights are kept: BLAS on them
        return compressed_linear.StandIn.of(found)

    @property
    def declared_bytes(self) -> int:
        """The f32 bytes of the chain's weight as its end's port declares it (0: not
        static, or a scale or zero point computed from Consts)."""
        layer = self.model.layers[self.chain.end]
        if self.chain.operand or not layer.outputs:
            return 0
        shape = declared_shape(layer.outputs[0], trust_empty_as_scalar=True)
        return limits.nbytes(shape.to_tuple(), 4) if shape.is_static else 0

    def compute(self, plan: None, *leaves: np.ndarray) -> Sequence[np.ndarray]:
        return [self.evaluate(leaves)]

    @property
    def stands_in(self) -> bool:
        """Whether every layer that reads the chain's weight can read its compressed
        form instead: linear layers (MatMul by the weight transposed) and embedding
        lookups (Gather of its rows), with the jit extra's kernels there to do it."""
        found = getattr(self, "_stands_in", None)
        if found is None:
            model, end = self.model, self.chain.end
            readers = model.graph.consumers.get((end, 0), [])
            found = self._stands_in = (
                bool(readers) and self.etype.name == "f32" and not self.chain.declared_weight
                and model.ops[self._codes[0][0]].element_type.name in KEPT_PACKED  # type: ignore[union-attr]
                and compressed_linear.available() and any(port == 1 for _, port in readers)
                and all(compressed.reads_compressed(model, lid, port) for lid, port in readers))
        return found

    @property
    def _codes(self) -> tuple[Src, int | None]:
        """The leaf holding the weight's codes and the layer that reads them as indices
        into the chain's weight Const, a codebook (a CB4 weight: Gather(Convert(codebook),
        Convert(u4 indices)) on axis 0); without a codebook, the weight Const and None."""
        found = getattr(self, "_found_codes", None)
        if found is None:
            found = self._found_codes = self._codebook_indices() or (self.chain.leaves[0], None)
        return found

    def _codebook_indices(self) -> tuple[Src, int] | None:
        model, chain = self.model, self.chain
        gathers = [lid for lid in chain.layers if model.layers[lid].type == "Gather"]
        if len(gathers) != 1 or getattr(model.ops[gathers[0]], "batch_dims", 0) != 0:
            return None
        srcs = model.graph.inputs_of(gathers[0])
        if len(srcs) < 3 or srcs[0] != (chain.layers[0], 0) or srcs[1] is None or srcs[2] not in self._position:
            return None
        axis = model.ops.get(srcs[2][0])
        value = axis._value() if isinstance(axis, Const1) else None
        index = srcs[1][0]
        if value is None or value.size != 1 or int(value.reshape(-1)[0]) not in (0, -1) \
                or model.layers[index].type != "Convert" or index not in chain.layers:
            return None
        indices = model.graph.inputs_of(index)[0]
        if indices not in self._position or [lid for lid, _ in model.graph.consumers.get((index, 0), [])] != gathers:
            return None
        return indices, index

    def _compressed(self, leaves: Sequence[np.ndarray]) -> compressed_linear.CompressedWeight | None:
        _, operands = self._walk(leaves, weight=False)
        if "Multiply" not in operands:
            return None
        codes, index = self._codes
        codebook = None
        if index is not None:
            codebook = leaves[self._position[self.chain.leaves[0]]]
            if codebook.ndim != 1:
                return None
        return compressed.form(self.model, codes[0], leaves[self._position[codes]],
                               operands.get("Subtract"), operands["Multiply"], codebook)

    def evaluate(self, leaves: Sequence[np.ndarray]) -> np.ndarray:
        value, _ = self._walk(leaves, weight=True)
        assert value is not None
        want = self.etype.dtype
        assert want is not None, "a chain ends in a type NumPy holds"
        return value if value.dtype == want else convert_array(value, want)  # rounded once, at the end

    def _walk(self, leaves: Sequence[np.ndarray], weight: bool) -> tuple[np.ndarray | None, dict[str, np.ndarray]]:
        """The chain's layers in f32: with ``weight``, its value; without, only the zero
        point's and scale's layers run, and the values the weight's Subtract and Multiply
        would read from them come back instead."""
        model, chain = self.model, self.chain
        values: dict[Src, np.ndarray | None] = {src: leaves[i] for src, i in self._position.items()}
        owned: set[int] = set()  # ids of the arrays made here: written in place (a weight is large)
        value: np.ndarray | None = None
        operands: dict[str, np.ndarray] = {}  # without ``weight``: the zero point and scale, by layer type
        on_path: set[Src] = set()  # the weight's own values (not a zero point's or scale's)
        for lid in chain.layers:
            layer = model.layers[lid]
            srcs = model.graph.inputs_of(lid)
            args = [values[s] for s in srcs]  # type: ignore[index]
            along = lid == chain.layers[0] or bool(srcs) and srcs[0] in on_path \
                or layer.type in ("Subtract", "Multiply") and srcs[1] in on_path
            if along:
                on_path.add((lid, 0))
            if not weight and lid == self._codes[1]:
                values[(lid, 0)] = None  # a codebook's indices: read packed, never converted
                continue
            if along and not weight:
                if layer.type in ("Subtract", "Multiply"):
                    other = args[1] if srcs[0] in on_path else args[0]
                    operands[layer.type] = _f32(other)  # type: ignore[arg-type]
                values[(lid, 0)] = None
                continue
            made = cast(list[np.ndarray], args)  # (off the weight's path, or with it: every value is made)
            if layer.type == "Convert":
                first = lid == chain.layers[0]
                declared = model.ops[lid].destination_type  # type: ignore[union-attr]
                if not declared.is_real or not along and not chain.operand:
                    value = convert_array(made[0], declared.dtype)  # a zero point, scale or indices: rounded here
                else:
                    value = _f32(convert_array(made[0], declared.dtype) if first and chain.declared_weight else made[0])
            elif layer.type in ("Subtract", "Multiply"):
                a, b = _f32(made[0]), _f32(made[1])
                fn = np.subtract if layer.type == "Subtract" else np.multiply
                into = a if id(a) in owned and np.broadcast_shapes(a.shape, b.shape) == a.shape else None
                value = fn(a, b, out=into, dtype=np.float32)
            else:  # Reshape / Unsqueeze: moves values, whatever their type
                op = model.ops[lid]
                value = op.compute(op.plan_for(made).plan, *made)[0]  # type: ignore[union-attr]
                if id(made[0]) in owned and np.shares_memory(value, made[0]):
                    owned.add(id(value))
            if not any(value is arg for arg in made) and not any(value is leaf for leaf in leaves):
                owned.add(id(value))
            values[(lid, 0)] = value
        return value, operands


def _f32(a: np.ndarray) -> np.ndarray:
    return a if a.dtype == np.float32 else convert_array(a, np.dtype(np.float32))
