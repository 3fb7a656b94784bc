"""MatMul-1: batched matrix product with optional transposes, 1-D operands
and NumPy broadcasting of the batch dims.

f32 and f64 go through BLAS (``np.matmul``); f16 and bf16 are multiplied in
f32 and rounded once; integers are exact and wrap as in C.
"""

from __future__ import annotations

import math

import numpy as np

from ...base.dtypes import is_bf16
from ...base.errors import InternalError
from ...base.shapes import Dim, PartialShape, broadcast_numpy
from ...kernels.compressed_linear import StandIn
from ...kernels.windows import MIN_PARALLEL_MACS, product_parts, run_tasks
from ...system import parallel
from ..framework.base import NUMERIC, Attr, In, Inference, Op, TensorInfo, op_error, same_as
from ..framework.registry import register
from ..framework.shape_plans import plan_of

A, B = 0, 1


@register
class MatMul1(Op):
    type, version, family = "MatMul", 1, "matmul"
    summary = "matrix product of the last two dims, batch dims broadcast"
    infer_from_types = True
    inputs = (In("a", NUMERIC, rank=(1, None)), In("b", same_as("a"), rank=(1, None)))
    attributes = {"transpose_a": Attr("bool", False, doc="use a's last two dims swapped"),
                  "transpose_b": Attr("bool", False, doc="use b's last two dims swapped")}

    def infer(self, a: TensorInfo, b: TensorInfo) -> Inference:
        plan = (self.transpose_a and a.shape.rank not in (None, 1), self.transpose_b and b.shape.rank not in (None, 1))
        if a.shape.dims is None or b.shape.dims is None:
            return Inference([TensorInfo(PartialShape(None), a.etype)], plan)
        da, db = list(a.shape.dims), list(b.shape.dims)
        one = Dim(1, 1)
        a_vec, b_vec = len(da) == 1, len(db) == 1
        if a_vec:
            da = [one] + da
        elif self.transpose_a:
            da[-2], da[-1] = da[-1], da[-2]
        if b_vec:
            db = db + [one]
        elif self.transpose_b:
            db[-2], db[-1] = db[-1], db[-2]
        if da[-1].intersect(db[-2]) is None:
            raise op_error(f"the inner dims differ: a {a.shape} gives K={da[-1]}, b {b.shape} gives K={db[-2]} "
                           f"(transpose_a={str(self.transpose_a).lower()}, transpose_b={str(self.transpose_b).lower()})",
                           "incompatible-inputs", B)
        batch = broadcast_numpy(PartialShape(tuple(da[:-2])), PartialShape(tuple(db[:-2])))
        if batch is None:
            raise op_error(f"batch dims of a {a.shape} and b {b.shape} cannot be broadcast together",
                           "incompatible-inputs", B)
        dims = list(batch.dims or ())
        if not a_vec:
            dims.append(da[-2])
        if not b_vec:
            dims.append(db[-1])
        return Inference([TensorInfo(PartialShape(tuple(dims)), a.etype)], plan)

    def compute(self, plan: tuple[bool, bool], a: np.ndarray, b: np.ndarray) -> list[np.ndarray]:
        ta, tb = plan
        if type(a) is np.ndarray and type(b) is np.ndarray:
            small = plan_of(self, (plan, a.shape, a.strides, a.dtype, b.shape, b.strides, b.dtype),
                            lambda: _small_plan(ta, tb, a, b))
            if small is not None:
                return [_small_product(small, a, b)]
        if isinstance(b, StandIn):  # a weight never decompressed whole: its compressed form does the product
            out = b.compressed.product(np.swapaxes(a, -1, -2) if ta else a, any_rows=True) if tb else None
            if out is None:
                raise InternalError(f"a compressed weight {list(b.shape)} reached a MatMul it cannot serve")
            return [out]
        if ta:
            a = np.swapaxes(a, -1, -2)
        if tb:
            b = np.swapaxes(b, -1, -2)
        return [product(a, b)]


# A small f32 or f64 product of a linear layer's kind (one matrix b, rows of a): what
# ``product`` and ``_linear`` decide from the layout on every call, decided once.
# (transpose b, rows to view a as or None, output shape, multiplied transposed)
_SmallPlan = tuple[bool, "tuple[int, int] | None", "tuple[int, ...]", bool]


def _small_plan(ta: bool, tb: bool, a: np.ndarray, b: np.ndarray) -> _SmallPlan | None:
    """The plan of a product ``_small_product`` does exactly as ``product`` would
    (the same BLAS call on the same layouts), or None: ``product`` itself."""
    if ta or a.dtype != b.dtype or a.dtype not in (np.float32, np.float64) or b.ndim != 2 or a.ndim < 2:
        return None
    if a.ndim > 2 and not a.flags.c_contiguous:
        return None  # np.matmul over the batch
    bv = np.swapaxes(b, -1, -2) if tb else b
    m, k, n = math.prod(a.shape[:-1]), a.shape[-1], bv.shape[1]
    if bv.shape[0] != k or m * k * n >= MIN_PARALLEL_MACS:
        return None  # an error to tell, or a product cut for the threads
    transposed = _multiplied_transposed(m, n, bv)
    return tb, (m, k) if a.ndim > 2 else None, (*a.shape[:-1], n), transposed


def _small_product(plan: _SmallPlan, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    tb, rows, shape, transposed = plan
    if tb:
        b = b.T
    if rows is not None:
        a = a.reshape(rows)
    if transposed:  # as _linear's stored_transposed piece over all columns
        out = np.empty((a.shape[0], b.shape[1]), a.dtype)
        out[:, :] = np.matmul(b.T, a.T).T
    else:
        out = np.matmul(a, b)
    return out.reshape(shape) if rows is not None else out


def product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.matmul`` under the numeric policy: f32 and f64 as they are, f16 and
    bf16 in f32 rounded once, integers exact and wrapping as in C."""
    dtype = a.dtype
    if dtype.kind == "f" and dtype.itemsize < 4 or is_bf16(dtype):
        return np.asarray(_product(a.astype(np.float32), b.astype(np.float32))).astype(dtype)
    if dtype.kind == "f":
        return np.asarray(_product(a, b))  # 1-D by 1-D gives a NumPy scalar
    with np.errstate(all="ignore"):
        return np.asarray(_product(a, b), dtype)


def _product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.matmul``, with a batch of rows times one matrix (a linear layer)
    done as a single 2-D product: NumPy would call BLAS once per batch item."""
    if b.ndim == 2 and a.ndim > 2 and a.flags.c_contiguous:
        return _linear(a.reshape(-1, a.shape[-1]), b).reshape(*a.shape[:-1], b.shape[-1])
    if b.ndim == 2 and a.ndim == 2:
        return _linear(a, b)
    return np.matmul(a, b)


def _multiplied_transposed(m: int, n: int, b: np.ndarray) -> bool:
    """Whether ``_linear`` multiplies m rows by the [k, n] matrix ``b`` as ``b.T @ a.T``: a
    weight stored transposed, with at most 1/TALL_ROWS as many rows as columns."""
    return 1 < m and m * TALL_ROWS <= n and b.flags.f_contiguous and not b.flags.c_contiguous


def _linear(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A 2-D product; a big one (an LLM's output projection: 49,152 columns) is cut
    along b's columns into pieces for irexec/system/parallel.py's threads, as the
    convolutions are: BLAS itself runs on the calling thread (see irexec/system/blas.py).
    Each output element is a dot product over the same k terms however it is cut.

    A weight stored [N, K] and read transposed (``transpose_b``, a linear layer's
    usual form) is multiplied as ``b.T @ a.T`` when a has several rows: OpenBLAS runs
    a tall matrix by a few columns up to 1.6x faster than a few rows by a wide
    matrix (benchmarks/README.md, "Compressed weights: the decode floor moved").
    The result is written back row-major, so the layout downstream is the same.
    Not when a has many rows for the columns (a ConvNeXt's 3,136 pixels by 32 to 256
    channels): there the transposed write-back made the product 1.4-1.9x slower.  Such a
    tall product, too narrow to cut by columns, is cut by rows (each row's dot products
    are the same however the rows are cut)."""
    m, k = a.shape
    n = b.shape[1]
    parts = product_parts(m * k * n, n // 256)
    stored_transposed = _multiplied_transposed(m, n, b)
    row_parts = product_parts(m * k * n, m // 256) if parts <= 1 and m >= TALL_ROWS * n else 1
    if a.dtype not in (np.float32, np.float64) or parts <= 1 and row_parts <= 1 and not stored_transposed:
        return np.matmul(a, b)
    out = np.empty((m, n), np.result_type(a, b))
    if row_parts > 1:
        run_tasks([lambda lo=lo, hi=hi: np.matmul(a[lo:hi], b, out=out[lo:hi])
                   for lo, hi in parallel.spans(m, row_parts)], row_parts)
        return out
    bt, at = b.T, a.T

    def piece(lo: int, hi: int) -> None:
        if stored_transposed:
            out[:, lo:hi] = np.matmul(bt[lo:hi], at).T
        else:
            out[:, lo:hi] = np.matmul(a, b[:, lo:hi])

    if parts <= 1:
        piece(0, n)
    else:
        run_tasks([lambda lo=lo, hi=hi: piece(lo, hi) for lo, hi in parallel.spans(n, parts)], parts)
    return out


# A product with at most 1/TALL_ROWS as many rows as columns is multiplied transposed (a
# stored-transposed weight); one with TALL_ROWS times as many rows as columns or more is
# cut by rows for the threads (ConvNeXt's linear layers: 0.75-0.9x the time of one thread)
TALL_ROWS = 4
