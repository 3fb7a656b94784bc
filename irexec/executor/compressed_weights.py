"""A decompression chain's weight kept compressed: the form the linear layers and
embedding lookups that read it use instead of its f32 values (kernels/compressed_linear.py),
and when a run may have it (see docs/numerics.md)."""

from __future__ import annotations

from contextvars import ContextVar
from typing import TYPE_CHECKING

import numpy as np

from ..kernels import compressed_linear
from ..kernels.convert import convert_array
from ..ops.io import Const1
from ..ops.matmul.matmul import MatMul1

if TYPE_CHECKING:
    from ..model.binding import Model

# Set by a run whose hooks, dumps or stop_at read every value: decompression chains
# then make their weights, never a StandIn
REAL_WEIGHTS: ContextVar[bool] = ContextVar("REAL_WEIGHTS", default=False)


def reads_compressed(model: Model, lid: int, port: int) -> bool:
    """A MatMul by the weight transposed, or a Gather of the weight's rows (axis 0, no batch dims)."""
    op = model.ops.get(lid)
    if isinstance(op, MatMul1):
        return port == 1 and op.transpose_b
    if model.layers[lid].type != "Gather" or port != 0 or getattr(op, "batch_dims", 0) != 0:
        return False
    srcs = model.graph.inputs_of(lid)
    axis = model.ops.get(srcs[2][0]) if len(srcs) > 2 and srcs[2] is not None else None
    value = axis._value() if isinstance(axis, Const1) else None
    return value is not None and value.size == 1 and int(value.reshape(-1)[0]) in (0, -2)


# The weight types whose codes the compressed product reads through a table of their f32
# values (benchmarks/README.md, "Compressed weights in table formats")
TABLED = frozenset({"nf4", "f4e2m1", "f8e4m3", "f8e5m2"})
PACKED_FOUR = frozenset({"u4", "i4", "nf4", "f4e2m1"})


def form(model: Model, weight_const: int, q: np.ndarray, zero: np.ndarray | None,
         scale: np.ndarray, codebook: np.ndarray | None = None) -> compressed_linear.CompressedWeight | None:
    """The chain's weight as its quantized values (a 4-bit weight as the mapped .bin
    holds it, never an unpacked copy), zero point and scale; None for another form.
    Codes of a table format, or indices into a chain's ``codebook`` (a CB4 weight:
    ``weight_const`` is then the indices' Const), go with the f32 table of their values."""
    const = model.ops[weight_const]
    if not isinstance(const, Const1) or not compressed_linear.available():
        return None
    name = const.element_type.name
    table = None
    if codebook is not None:
        if name != "u4" or codebook.shape != (16,):
            return None
        table = _f32(codebook)  # the codebook's values as the chain's Convert gives them
    elif name in TABLED:
        codes = np.arange(16 if name in PACKED_FOUR else 256, dtype=np.uint8).view(q.dtype)
        table = _f32(codes)
    elif name not in ("u8", "i8", "u4", "i4"):
        return None
    packed = None
    if name in PACKED_FOUR:
        if const.weights is None:
            return None
        packed = const.weights.packed(const.offset, const.nbytes)
        if packed is None:
            return None
    return compressed_linear.CompressedWeight.of(q, zero, scale, packed, table)


def _f32(values: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(convert_array(values, np.dtype(np.float32)).reshape(-1))
