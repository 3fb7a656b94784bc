"""ScatterUpdate-3, ScatterElementsUpdate-3/12 and ScatterNDUpdate-3/15:
writing data at index tuples (GatherND, which reads them, shares the index rules).

Indices in ``[-dim, dim-1]`` are accepted everywhere (negative ones count
from the end, as the newest versions' specs say and OpenVINO's reference does
for every version); an index outside that range is a run-time ``bad-value``
naming it.  Several updates to one element are applied in the order of the
indices (the last write wins; reductions accumulate in that order), as
OpenVINO's reference does; the specs leave that order undefined.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...base.dtypes import is_bf16
from ...base.shapes import Dim, PartialShape
from ..framework.base import INTEGRAL, Attr, Enum, In, Inference, Op, TensorInfo, normalize_axis, op_error, same_as
from ..framework.helpers import const_int
from ..framework.registry import register

DATA, INDICES, UPDATES, AXIS = 0, 1, 2, 3


def _wrap(idx: np.ndarray, dims: np.ndarray | int, what: str, port: int) -> np.ndarray:
    """Indices made non-negative against ``dims`` (broadcast along the last
    axis); an index outside [-dim, dim-1] is an error naming it."""
    if idx.size and idx.dtype == np.uint64:
        # range-checked as unsigned: cast first, 2^64-1 would read as -1, the last element
        huge = idx > np.uint64(np.iinfo(np.int64).max)
        if huge.any():
            where = tuple(int(i) for i in np.argwhere(huge)[0])
            d = int(np.broadcast_to(dims, idx.shape)[where])
            raise op_error(f"{what} {int(idx[where])} at {list(where)} is out of range [0, {d - 1}]", "bad-value", port)
    idx = idx.astype(np.int64, copy=False)
    if idx.size == 0:
        return idx
    bad = (idx < -dims) | (idx >= dims)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        d = int(np.broadcast_to(dims, idx.shape)[where])
        raise op_error(f"{what} {int(idx[where])} at {list(where)} is out of range [{-d}, {d - 1}]", "bad-value", port)
    return np.where(idx < 0, idx + dims, idx)


def _merge(a: Dim, b: Dim, message: str, port: int) -> Dim:
    m = a.intersect(b)
    if m is None:
        raise op_error(message, "incompatible-inputs", port)
    return m


def _reduce_at(out: np.ndarray, where: Any, values: np.ndarray, reduction: str) -> None:
    """Accumulate ``values`` into ``out[where]`` in index order."""
    if reduction == "none":
        out[where] = values
        return
    ufunc: np.ufunc
    if out.dtype == np.bool_:
        ufunc = {"sum": np.logical_or, "sub": np.logical_xor, "prod": np.logical_and,
                 "min": np.logical_and, "max": np.logical_or}[reduction]
    else:
        ufunc = {"sum": np.add, "sub": np.subtract, "prod": np.multiply, "min": np.minimum, "max": np.maximum}[reduction]
    with np.errstate(over="ignore", invalid="ignore"):
        ufunc.at(out, where, values)


# ------------------------------------------------------------------ GatherND


# ------------------------------------------------------------- ScatterUpdate

@register
class ScatterUpdate3(Op):
    type, version = "ScatterUpdate", 3
    family = "movement"
    summary = "slices of data along axis replaced by updates at indices"
    inputs = (In("data"), In("indices", INTEGRAL), In("updates", same_as("data")), In("axis", INTEGRAL, rank=(0, 1), value=True))
    moves_values = (DATA, UPDATES)

    def infer(self, data: TensorInfo, indices: TensorInfo, updates: TensorInfo, axis: TensorInfo) -> Inference:
        a = const_int(axis, "axis", AXIS)
        d, i, u = data.shape.dims, indices.shape.dims, updates.shape.dims
        if a is not None and d is not None:
            a = normalize_axis(a, len(d), "axis", "axis-out-of-range", AXIS)
            if i is not None and u is not None:
                want = tuple(d[:a]) + tuple(i) + tuple(d[a + 1:])
                if len(u) != len(want) or any(not x.compatible(y) for x, y in zip(u, want)):
                    raise op_error(f"updates {updates.shape} must have shape data[:axis] + indices + data[axis+1:] = "
                                   f"{PartialShape(want)}", "incompatible-inputs", UPDATES)
        return Inference([TensorInfo(data.shape, data.etype)], a)

    def compute(self, plan: int, data: np.ndarray, indices: np.ndarray, updates: np.ndarray, axis: np.ndarray) -> Sequence[np.ndarray]:
        a = plan
        out = data.copy()
        idx = _wrap(indices.reshape(-1), data.shape[a], "index", INDICES)
        upd = updates.reshape(data.shape[:a] + (idx.size,) + data.shape[a + 1:])
        out[(slice(None),) * a + (idx,)] = upd
        return [out]


# ------------------------------------------------------ ScatterElementsUpdate

class _ScatterElements(Op):
    family = "movement"
    inputs = (In("data"), In("indices", INTEGRAL), In("updates", same_as("data")), In("axis", INTEGRAL, rank=(0, 1), value=True))
    moves_values = (DATA, UPDATES)
    reduction = "none"
    use_init_val = True

    def infer(self, data: TensorInfo, indices: TensorInfo, updates: TensorInfo, axis: TensorInfo) -> Inference:
        d, i, u = data.shape.dims, indices.shape.dims, updates.shape.dims
        if d is not None and i is not None and len(d) != len(i):
            raise op_error(f"indices {indices.shape} must have the rank of data {data.shape}", "incompatible-inputs", INDICES)
        if i is not None and u is not None:
            if len(i) != len(u) or any(not x.compatible(y) for x, y in zip(i, u)):
                raise op_error(f"updates {updates.shape} must have the shape of indices {indices.shape}",
                               "incompatible-inputs", UPDATES)
        a = const_int(axis, "axis", AXIS)
        if a is not None and d is not None:
            a = normalize_axis(a, len(d), "axis", "axis-out-of-range", AXIS)
            if i is not None and len(i) == len(d):
                # off the axis, an index's position is its place in indices: it must be a place in data
                for k, (x, y) in enumerate(zip(i, d)):
                    if k != a and y.hi is not None and x.lo > y.hi:
                        raise op_error(f"indices {indices.shape} are larger than data {data.shape} in dim {k} "
                                       f"(only the axis {a} may differ)", "incompatible-inputs", INDICES)
        return Inference([TensorInfo(data.shape, data.etype)], a)

    def compute(self, plan: int, data: np.ndarray, indices: np.ndarray, updates: np.ndarray, axis: np.ndarray) -> Sequence[np.ndarray]:
        a = plan
        out = data.copy()
        if indices.size == 0:
            return [out]
        idx = _wrap(indices, data.shape[a], "index", INDICES)
        grid: list[Any] = list(np.indices(indices.shape, sparse=True))
        grid[a] = idx
        where = tuple(grid)
        red = self.reduction
        if red == "none":
            out[where] = updates
            return [out]
        if red == "mean":
            return [self._mean(out, where, updates)]
        if not self.use_init_val:  # touched elements start from the reduction's identity
            touched = np.zeros(out.shape, bool)
            touched[where] = True
            out[touched] = _identity(red, out.dtype)
        _reduce_at(out, where, updates, red)
        return [out]

    def _mean(self, out: np.ndarray, where: Any, updates: np.ndarray) -> np.ndarray:
        acc_type = np.float64 if out.dtype.kind in "fV" or is_bf16(out.dtype) else np.int64
        total = out.astype(acc_type) if self.use_init_val else np.zeros(out.shape, acc_type)
        count = np.full(out.shape, 1 if self.use_init_val else 0, np.int64)
        touched = np.zeros(out.shape, bool)
        touched[where] = True
        np.add.at(total, where, updates.astype(acc_type))
        np.add.at(count, where, 1)
        safe = np.maximum(count, 1)
        if acc_type is np.int64:
            q = np.abs(total) // safe  # integer mean truncates toward zero, as C++ division in OpenVINO does
            mean = np.where(total < 0, -q, q)
        else:
            mean = total / safe
        np.copyto(out, mean.astype(out.dtype), where=touched)
        return out


def _identity(reduction: str, dtype: np.dtype) -> Any:
    if reduction in ("sum", "sub"):
        return 0
    if reduction == "prod":
        return 1
    if dtype == np.bool_:
        return reduction == "min"
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return info.max if reduction == "min" else info.min
    return np.inf if reduction == "min" else -np.inf


@register
class ScatterElementsUpdate3(_ScatterElements):
    type, version = "ScatterElementsUpdate", 3
    summary = "data with elements at indices along axis replaced by updates"


@register
class ScatterElementsUpdate12(_ScatterElements):
    type, version = "ScatterElementsUpdate", 12
    summary = "data with elements at indices along axis combined with updates (none, sum, prod, min, max, mean)"
    attributes = {"reduction": Enum("none", "sum", "prod", "min", "max", "mean"),
                  "use_init_val": Attr("bool", True, doc="false: data's value does not take part in the reduction")}


# ----------------------------------------------------------- ScatterNDUpdate

class _ScatterND(Op):
    family = "movement"
    inputs = (In("data", rank=(1, None)), In("indices", INTEGRAL, rank=(1, None)), In("updates", same_as("data")))
    moves_values = (DATA, UPDATES)
    reduction = "none"

    def infer(self, data: TensorInfo, indices: TensorInfo, updates: TensorInfo) -> Inference:
        d, i, u = data.shape.dims, indices.shape.dims, updates.shape.dims
        if d is not None and i is not None and i[-1].is_static:
            k = i[-1].value
            if k > len(d):
                raise op_error(f"indices {indices.shape} index {k} dims but data {data.shape} has rank {len(d)}",
                               "incompatible-inputs", INDICES)
            if u is not None:
                want = tuple(i[:-1]) + tuple(d[k:])
                if len(u) != len(want) or any(not x.compatible(y) for x, y in zip(u, want)):
                    raise op_error(f"updates {updates.shape} must have shape indices[:-1] + data[{k}:] = {PartialShape(want)}",
                                   "incompatible-inputs", UPDATES)
        return Inference([TensorInfo(data.shape, data.etype)])

    def compute(self, plan: Any, data: np.ndarray, indices: np.ndarray, updates: np.ndarray) -> Sequence[np.ndarray]:
        k = indices.shape[-1]
        out = data.copy()
        if updates.size == 0 or indices.size == 0:
            return [out]
        dims = np.array(data.shape[:k], np.int64)
        idx = _wrap(indices.reshape(-1, k), dims, "index", INDICES)
        strides = np.array([math.prod(data.shape[j + 1:k]) for j in range(k)], np.int64)
        lin = (idx * strides).sum(-1)
        if out.size == 0:
            return [out]
        inner = math.prod(data.shape[k:])
        rows = out.reshape((math.prod(data.shape[:k]), inner))
        _reduce_at(rows, lin, updates.reshape(lin.size, inner), self.reduction)
        return [out]


@register
class ScatterNDUpdate3(_ScatterND):
    type, version, since_opset = "ScatterNDUpdate", 3, 4
    summary = "data with elements or slices at index tuples replaced by updates"


@register
class ScatterNDUpdate15(_ScatterND):
    type, version = "ScatterNDUpdate", 15
    summary = "data with elements or slices at index tuples combined with updates (none, sum, sub, prod, min, max)"
    attributes = {"reduction": Enum("none", "sum", "sub", "prod", "min", "max")}

