"""EmbeddingBagOffsetsSum-3, EmbeddingBagPackedSum-3, EmbeddingSegmentsSum-3,
EmbeddingBagOffsets-15 and EmbeddingBagPacked-15: rows of emb_table picked by
indices, each times its per_sample_weight when given, summed per bag (or
averaged: reduction="mean").

Bags are runs of indices starting at offsets[b] (each in [0, num_indices)), rows of a [batch, bag_size]
index matrix, or the indices whose segment_ids is b.  An empty bag is the
row default_index when given and not negative, else zeros.  As OpenVINO's
reference: each bag adds its terms in index order in the table's type (f32
for f16/bf16, rounded once; integers wrap); a mean divides by the bag's
count.  An index, offset, segment id or default_index outside its range is
an error (at check time when the input is a constant)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base.shapes import DYNAMIC, Dim, PartialShape
from ..framework.base import INDEX, NUMERIC, Enum, In, Inference, Op, TensorInfo, op_error, same_as
from ..framework.helpers import const_int
from ..framework.registry import register

TABLE, INDICES = 0, 1


def _rows_shape(table: TensorInfo, first: Dim) -> PartialShape:
    if table.shape.dims is None:
        return PartialShape(None)
    return PartialShape((first, *table.shape.dims[1:]))


def _same_length(a: TensorInfo, b: TensorInfo | None, what: str, port: int) -> None:
    """per_sample_weights (or segment_ids) must have the shape of indices."""
    if b is None or a.shape.dims is None or b.shape.dims is None:
        return
    if len(a.shape.dims) != len(b.shape.dims) or any(x.intersect(y) is None for x, y in zip(a.shape.dims, b.shape.dims)):
        raise op_error(f"{what} {b.shape} must have the shape of indices {a.shape}", "incompatible-inputs", port)


def _check_values(values: np.ndarray, limit: int, what: str, port: int) -> None:
    bad = (values < 0) | (values >= limit)
    if bad.any():
        k = int(np.flatnonzero(bad.reshape(-1))[0])
        raise op_error(f"{what}[{k}] = {int(values.reshape(-1)[k])} is outside [0, {limit})", "bad-value", port)


def _check_offsets(offsets: np.ndarray, n: int) -> None:
    """Bag starts in [0, num_indices), never going back (OpenVINO's reference
    and CPU plugin refuse an offset at num_indices: no empty last bag)."""
    bad = (offsets < 0) | (offsets >= n)
    if bad.any() or (offsets.size > 1 and (np.diff(offsets.astype(np.int64)) < 0).any()):
        raise op_error(f"offsets {offsets.tolist()[:16]} must be non-decreasing starts of bags in [0, {n}), "
                       f"num_indices", "bad-value", 2)


def _check_default(default: np.ndarray | None, rows: int, port: int) -> int | None:
    """The default row, None for zeros (no input, or a negative value)."""
    if default is None:
        return None
    d = int(np.asarray(default).reshape(-1)[0])
    if d >= rows:
        raise op_error(f"default_index {d} is outside the {rows} rows of emb_table", "bad-value", port)
    return d if d >= 0 else None


def _weights_need_sum(op: Op, weights: TensorInfo | None, port: int) -> None:
    if weights is not None and getattr(op, "reduction", "sum") == "mean":
        raise op_error("per_sample_weights can only be given with reduction=\"sum\"", "incompatible-inputs", port)


def _accumulator(dtype: np.dtype) -> np.dtype:
    return np.dtype(np.float32) if dtype.kind == "f" and dtype.itemsize < 4 or dtype.name == "bfloat16" else dtype


def reduce_bags(table: np.ndarray, indices: np.ndarray, bag_of: np.ndarray, bags: int, weights: np.ndarray | None,
                default: int | None, mean: bool) -> np.ndarray:
    """[bags, *table.shape[1:]]: the rows of ``indices`` (bag ``bag_of[i]``)
    summed per bag, in index order; empty bags get the default row or zeros."""
    acc = _accumulator(table.dtype)
    rows = table[indices].astype(acc, copy=False)
    if weights is not None:
        rows = rows * weights.astype(acc).reshape(-1, *([1] * (table.ndim - 1)))
    out = np.zeros((bags, *table.shape[1:]), acc)
    with np.errstate(over="ignore", invalid="ignore"):
        np.add.at(out, bag_of, rows)
    counts = np.bincount(bag_of, minlength=bags)
    empty = counts == 0
    if default is not None and empty.any():
        out[empty] = table[default]
        counts = np.maximum(counts, 1)
    if mean:
        full = ~empty | (default is not None)
        scale = counts[full].astype(acc).reshape(-1, *([1] * (table.ndim - 1)))
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            part = out[full]
            # integers divide as C does, toward zero
            out[full] = np.sign(part) * (np.abs(part) // scale) if acc.kind in "iu" else part / scale
    return out.astype(table.dtype, copy=False)


class _Offsets(Op):
    family = "embedding"
    inputs = (In("emb_table", NUMERIC, rank=(1, None)), In("indices", INDEX, rank=1),
              In("offsets", same_as("indices"), rank=1), In("default_index", same_as("indices"), rank=0, optional=True),
              In("per_sample_weights", same_as("emb_table"), rank=1, optional=True))
    mean = False

    def infer(self, table: TensorInfo, indices: TensorInfo, offsets: TensorInfo, default: TensorInfo | None = None,
              weights: TensorInfo | None = None) -> Inference:
        _same_length(indices, weights, "per_sample_weights", 4)
        _weights_need_sum(self, weights, 4)
        self._check_constants(table, indices, offsets, default)
        first = offsets.shape[0] if offsets.shape.rank == 1 else DYNAMIC
        return Inference([TensorInfo(_rows_shape(table, first), table.etype)])

    def _check_constants(self, table: TensorInfo, indices: TensorInfo, offsets: TensorInfo, default: TensorInfo | None) -> None:
        known_offsets = offsets.value()
        if known_offsets is not None and indices.shape.rank == 1 and indices.shape[0].is_static:
            _check_offsets(np.asarray(known_offsets), indices.shape[0].value)
        rows = table.shape[0] if table.shape.rank else None
        if rows is None or not rows.is_static:
            return
        values = indices.value()
        if values is not None:
            _check_values(np.asarray(values), rows.value, "indices", INDICES)
        if default is not None and default.value() is not None:
            _check_default(default.value(), rows.value, 3)

    def compute(self, plan: None, table: np.ndarray, indices: np.ndarray, offsets: np.ndarray,
                default: np.ndarray | None = None, weights: np.ndarray | None = None) -> Sequence[np.ndarray]:
        n = indices.shape[0]
        _check_values(indices, table.shape[0], "indices", INDICES)
        _check_offsets(offsets, n)
        bag_of = np.repeat(np.arange(offsets.size), np.diff(np.append(offsets.astype(np.int64), n)))
        return [reduce_bags(table, indices, bag_of, offsets.size, weights, _check_default(default, table.shape[0], 3),
                            self.mean)]


class _Packed(Op):
    family = "embedding"
    inputs = (In("emb_table", NUMERIC, rank=(1, None)), In("indices", INDEX, rank=2),
              In("per_sample_weights", same_as("emb_table"), rank=2, optional=True))
    mean = False

    def infer(self, table: TensorInfo, indices: TensorInfo, weights: TensorInfo | None = None) -> Inference:
        _same_length(indices, weights, "per_sample_weights", 2)
        _weights_need_sum(self, weights, 2)
        rows = table.shape[0] if table.shape.rank else None
        values = indices.value()
        if values is not None and rows is not None and rows.is_static:
            _check_values(np.asarray(values), rows.value, "indices", INDICES)
        first = indices.shape[0] if indices.shape.rank == 2 else DYNAMIC
        return Inference([TensorInfo(_rows_shape(table, first), table.etype)])

    def compute(self, plan: None, table: np.ndarray, indices: np.ndarray, weights: np.ndarray | None = None) -> Sequence[np.ndarray]:
        _check_values(indices, table.shape[0], "indices", INDICES)
        batch, size = indices.shape
        bag_of = np.repeat(np.arange(batch), size)
        flat_weights = weights.reshape(-1) if weights is not None else None
        return [reduce_bags(table, indices.reshape(-1), bag_of, batch, flat_weights, None, self.mean)]


@register
class EmbeddingBagOffsetsSum3(_Offsets):
    type, version = "EmbeddingBagOffsetsSum", 3
    summary = "weighted sums of emb_table rows over bags of indices starting at offsets"


@register
class EmbeddingBagOffsets15(_Offsets):
    type, version = "EmbeddingBagOffsets", 15
    summary = "weighted sums or means of emb_table rows over bags of indices starting at offsets"
    attributes = {"reduction": Enum("sum", "mean", doc="how a bag's rows are reduced")}

    @property
    def mean(self) -> bool:
        return self.reduction == "mean"


@register
class EmbeddingBagPackedSum3(_Packed):
    type, version = "EmbeddingBagPackedSum", 3
    summary = "weighted sums of emb_table rows over the rows of a [batch, bag_size] index matrix"


@register
class EmbeddingBagPacked15(_Packed):
    type, version = "EmbeddingBagPacked", 15
    summary = "weighted sums or means of emb_table rows over the rows of a [batch, bag_size] index matrix"
    attributes = {"reduction": Enum("sum", "mean", doc="how a bag's rows are reduced")}

    @property
    def mean(self) -> bool:
        return self.reduction == "mean"


@register
class EmbeddingSegmentsSum3(Op):
    type, version = "EmbeddingSegmentsSum", 3
    family = "embedding"
    summary = "weighted sums of emb_table rows per segment id, num_segments rows"
    inputs = (In("emb_table", NUMERIC, rank=(1, None)), In("indices", INDEX, rank=1),
              In("segment_ids", same_as("indices"), rank=1), In("num_segments", same_as("indices"), rank=0, value=True),
              In("default_index", same_as("indices"), rank=0, optional=True),
              In("per_sample_weights", same_as("emb_table"), rank=1, optional=True))

    def infer(self, table: TensorInfo, indices: TensorInfo, segment_ids: TensorInfo, num_segments: TensorInfo,
              default: TensorInfo | None = None, weights: TensorInfo | None = None) -> Inference:
        _same_length(indices, segment_ids, "segment_ids", 2)
        _same_length(indices, weights, "per_sample_weights", 5)
        rows = table.shape[0] if table.shape.rank else None
        if rows is not None and rows.is_static:
            values = indices.value()
            if values is not None:
                _check_values(np.asarray(values), rows.value, "indices", INDICES)
            if default is not None and default.value() is not None:
                _check_default(default.value(), rows.value, 4)
        count = const_int(num_segments, "num_segments", 3)
        if count is not None and count < 0:
            raise op_error(f"num_segments {count} is negative", "bad-value", 3)
        known_ids = segment_ids.value()
        if count is not None and known_ids is not None:
            _check_values(np.asarray(known_ids), count, "segment_ids", 2)
        first = Dim(count, count) if count is not None else DYNAMIC
        return Inference([TensorInfo(_rows_shape(table, first), table.etype)], count)

    def compute(self, plan: int, table: np.ndarray, indices: np.ndarray, segment_ids: np.ndarray, num_segments: np.ndarray,
                default: np.ndarray | None = None, weights: np.ndarray | None = None) -> Sequence[np.ndarray]:
        _check_values(indices, table.shape[0], "indices", INDICES)
        _check_values(segment_ids, plan, "segment_ids", 2)
        return [reduce_bags(table, indices, segment_ids.astype(np.int64), plan, weights,
                            _check_default(default, table.shape[0], 4), False)]
