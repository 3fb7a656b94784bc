"""CTCGreedyDecoder-1 and CTCGreedyDecoderSeqLen-6: the best class at each
time step, repeats merged (when asked) and blanks dropped, packed to the
front of each batch's row and padded with -1.

The best class is the first maximum, as std::max_element finds it in
OpenVINO's reference: a NaN is never greater than anything, so a NaN in
front stays the best, later NaNs are skipped."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base.shapes import DYNAMIC, Dim, PartialShape
from ..framework.accuracy import EXACT
from ..framework.base import INDEX, REAL, Attr, In, IndexType, Inference, Op, TensorInfo, op_error
from ..framework.registry import register


def merge_dims(what: str, port: int, *dims: Dim) -> Dim:
    """The dim all of ``dims`` can be at once; an error naming them when none."""
    out = Dim(0, None)
    for d in dims:
        merged = out.intersect(d)
        if merged is None:
            raise op_error(f"{what} must match, got {' and '.join(map(str, dims))}", "incompatible-inputs", port)
        out = merged
    return out


def best_classes(scores: np.ndarray) -> np.ndarray:
    """The index of the first maximum along the last axis, std::max_element's
    answer also where a row holds NaN."""
    best = np.argmax(scores, axis=-1)
    nan_rows = np.isnan(scores).any(axis=-1)
    if nan_rows.any():
        for pos in zip(*np.nonzero(nan_rows)):
            row = scores[pos]
            k = 0
            for i in range(1, row.shape[0]):
                if row[k] < row[i]:
                    k = i
            best[pos] = k
    return best


def decode(best: np.ndarray, lengths: Sequence[int], blank: int, merge: bool) -> tuple[np.ndarray, list[int]]:
    """[batch, time] classes (-1 padded) and each batch's decoded length, from
    [batch, time] best classes of which the first lengths[b] count."""
    out = np.full(best.shape, -1, np.int64)
    counts = []
    for b, n in enumerate(lengths):
        row = best[b, :n]
        keep = row != blank
        if merge and n > 1:
            keep[1:] &= row[1:] != row[:-1]
        kept = row[keep]
        out[b, : kept.size] = kept
        counts.append(int(kept.size))
    return out, counts


def _check_lengths(lengths: np.ndarray, time: int) -> None:
    bad = (lengths < 0) | (lengths > time)
    if bad.any():
        b = int(np.flatnonzero(bad)[0])
        raise op_error(f"sequence_length[{b}] = {int(lengths[b])} is outside [0, {time}], the time dim of the data",
                       "bad-value", 1)


@register
class CTCGreedyDecoder1(Op):
    type, version = "CTCGreedyDecoder", 1
    accuracy = EXACT  # selects classes
    family = "sequence"
    summary = "greedy CTC decoding of [T, N, C] logits up to each batch's first zero in sequence_mask; blank is C-1"
    inputs = (In("data", REAL, rank=3), In("sequence_mask", rank=2))  # any mask type, as OpenVINO takes
    attributes = {"ctc_merge_repeated": Attr("bool", True, doc="merge repeated classes")}

    def infer(self, data: TensorInfo, mask: TensorInfo) -> Inference:
        time, batch = (data.shape[0], data.shape[1]) if data.shape.rank is not None else (DYNAMIC, DYNAMIC)
        if mask.shape.rank is not None:
            time = merge_dims("the first dims of data and sequence_mask (time)", 1, time, mask.shape[0])
            batch = merge_dims("the second dims of data and sequence_mask (batch)", 1, batch, mask.shape[1])
        return Inference([TensorInfo(PartialShape((batch, time, Dim(1, 1), Dim(1, 1))), data.etype)])

    def compute(self, plan: None, data: np.ndarray, mask: np.ndarray) -> Sequence[np.ndarray]:
        time, batch, classes = data.shape
        zero = mask.T == 0  # [batch, time]
        lengths = [int(np.argmax(z)) if z.any() else time for z in zero]
        best = best_classes(data.transpose(1, 0, 2)) if classes else np.zeros((batch, time), np.int64)
        out, _ = decode(best, lengths, classes - 1, self.ctc_merge_repeated)
        return [out.astype(data.dtype).reshape(batch, time, 1, 1)]


@register
class CTCGreedyDecoderSeqLen6(Op):
    type, version = "CTCGreedyDecoderSeqLen", 6
    accuracy = EXACT  # selects classes
    family = "sequence"
    summary = "greedy CTC decoding of [N, T, C] logits over each batch's sequence_length steps"
    inputs = (In("data", REAL, rank=3), In("sequence_length", INDEX, rank=1),
              In("blank_index", INDEX, rank=(0, 1), elements=1, optional=True))
    outputs = 2
    attributes = {"merge_repeated": Attr("bool", True, doc="merge repeated classes"),
                  "classes_index_type": IndexType("i32", doc="type of the decoded classes"),
                  "sequence_length_type": IndexType("i32", doc="type of the decoded lengths")}

    def infer(self, data: TensorInfo, lengths: TensorInfo, blank: TensorInfo | None = None) -> Inference:
        batch, time = (data.shape[0], data.shape[1]) if data.shape.rank is not None else (DYNAMIC, DYNAMIC)
        if lengths.shape.rank is not None:
            batch = merge_dims("the first dims of data and sequence_length (batch)", 1, batch, lengths.shape[0])
        known = lengths.value()
        if known is not None and time.is_static:
            _check_lengths(np.asarray(known), time.value)
        return Inference([TensorInfo(PartialShape((batch, time)), self.classes_index_type),
                          TensorInfo(PartialShape((batch,)), self.sequence_length_type)])

    def compute(self, plan: None, data: np.ndarray, lengths: np.ndarray, blank: np.ndarray | None = None) -> Sequence[np.ndarray]:
        batch, time, classes = data.shape
        blank_index = int(blank.reshape(-1)[0]) if blank is not None else classes - 1
        _check_lengths(lengths, time)
        best = best_classes(data) if classes else np.zeros((batch, time), np.int64)
        out, counts = decode(best, [int(n) for n in lengths], blank_index, self.merge_repeated)
        return [out.astype(self.classes_index_type.dtype), np.array(counts, self.sequence_length_type.dtype)]
