"""CTCLoss-4: the negative log-likelihood of each batch's labels under the
CTC alignments of its logits [N, T, C] (softmax over C at every step).

With ctc_merge_repeated, an alignment reads as its labels once repeats are
merged and blanks dropped (standard CTC: equal neighbouring labels need a
blank between them); without it, once blanks are dropped.  The labels are
first reduced to their unique values in first-seen order (unique) or have
runs of one label merged (preprocess_collapse_repeated).  Computed in
float64 by the forward recursion in log space, rounded once: a label
sequence no alignment reads gives +inf.

Lengths are checked as OpenVINO's reference does: logit_length and
label_length in [0, T] and label_length <= logit_length; labels and
blank_index must be classes in [0, C), the labels other than the blank."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base.shapes import DYNAMIC, PartialShape
from ..framework.base import INDEX, REAL, Attr, In, Inference, Op, TensorInfo, op_error
from ..framework.registry import register
from .ctc_greedy import merge_dims

LOGITS, LOGIT_LENGTH, LABELS, LABEL_LENGTH, BLANK = range(5)


@register
class CTCLoss4(Op):
    type, version = "CTCLoss", 4
    family = "sequence"
    summary = "CTC negative log-likelihood of labels [N, T] under logits [N, T, C], one value per batch"
    # each integer input i32 or i64 on its own, as OpenVINO accepts them
    inputs = (In("logits", REAL, rank=3), In("logit_length", INDEX, rank=1), In("labels", INDEX, rank=2),
              In("label_length", INDEX, rank=1), In("blank_index", INDEX, rank=0, optional=True))
    attributes = {"preprocess_collapse_repeated": Attr("bool", False, doc="merge runs of one label first"),
                  "ctc_merge_repeated": Attr("bool", True, doc="an alignment's repeated labels count once"),
                  "unique": Attr("bool", False, doc="keep each label's first occurrence only")}

    def infer(self, logits: TensorInfo, logit_length: TensorInfo, labels: TensorInfo, label_length: TensorInfo,
              blank: TensorInfo | None = None) -> Inference:
        batch = logits.shape[0] if logits.shape.rank is not None else DYNAMIC
        time = logits.shape[1] if logits.shape.rank is not None else DYNAMIC
        for info, port, what in ((logit_length, LOGIT_LENGTH, "logit_length"), (labels, LABELS, "labels"),
                                 (label_length, LABEL_LENGTH, "label_length")):
            if info.shape.rank is not None:
                batch = merge_dims(f"the batch dims of logits and {what}", port, batch, info.shape[0])
        if labels.shape.rank is not None:
            time = merge_dims("the time dims of logits and labels", LABELS, time, labels.shape[1])
        out = PartialShape((batch,))
        # constant lengths and labels are checked now, as the run would
        known = [logit_length.value(), label_length.value(), labels.value()]
        if time.is_static and known[0] is not None and known[1] is not None:
            dim = logits.shape[2] if logits.shape.rank is not None else DYNAMIC
            classes = dim.value if dim.is_static else None
            if blank is None:
                blank_index = classes - 1 if classes is not None else None
            else:
                blank_value = blank.value()
                blank_index = int(blank_value) if blank_value is not None else None
            _check_batches(known[0], known[1], known[2], time.value, classes, blank_index)
        return Inference([TensorInfo(out, logits.etype)])

    def compute(self, plan: None, logits: np.ndarray, logit_length: np.ndarray, labels: np.ndarray,
                label_length: np.ndarray, blank: np.ndarray | None = None) -> Sequence[np.ndarray]:
        batch, time, classes = logits.shape
        blank_index = int(blank) if blank is not None else classes - 1
        _check_batches(logit_length, label_length, labels, time, classes, blank_index)
        loss = np.empty(batch, np.float64)
        for b in range(batch):
            n, m = int(logit_length[b]), int(label_length[b])
            target = self._preprocess([int(v) for v in labels[b, :m]])
            x = logits[b, :n].astype(np.float64)
            top = x.max(axis=1, keepdims=True) if n else np.zeros((0, 1))
            logp = x - (top + np.log(np.exp(x - top).sum(axis=1, keepdims=True)))
            loss[b] = -(_merged(logp, target, blank_index) if self.ctc_merge_repeated else _unmerged(logp, target, blank_index))
        return [loss.astype(logits.dtype)]

    def _preprocess(self, target: list[int]) -> list[int]:
        if self.unique:
            return list(dict.fromkeys(target))
        if self.preprocess_collapse_repeated:
            return [v for i, v in enumerate(target) if i == 0 or v != target[i - 1]]
        return target


def _check_batches(logit_length: np.ndarray, label_length: np.ndarray, labels: np.ndarray | None, time: int,
                   classes: int | None, blank_index: int | None) -> None:
    """Every batch's lengths within the time dim, and (when known) its labels
    classes other than the blank."""
    if classes is not None and blank_index is not None and not 0 <= blank_index < classes:
        raise op_error(f"blank_index {blank_index} is not a class in [0, {classes})", "bad-value", BLANK)
    for b, (n, m) in enumerate(zip(np.asarray(logit_length).tolist(), np.asarray(label_length).tolist())):
        if not (0 <= n <= time and 0 <= m <= time and m <= n):
            raise op_error(f"batch {b}: logit_length {n} and label_length {m} must be in [0, {time}] (the time dim) "
                           f"with label_length <= logit_length", "bad-value",
                           LOGIT_LENGTH if not 0 <= n <= time else LABEL_LENGTH)
        if labels is None or classes is None or blank_index is None:
            continue
        bad = [v for v in np.asarray(labels)[b, :m].tolist() if not 0 <= v < classes or v == blank_index]
        if bad:
            raise op_error(f"batch {b}: label {bad[0]} is not a class in [0, {classes}) other than blank_index "
                           f"{blank_index}", "bad-value", LABELS)


def _merged(logp: np.ndarray, target: list[int], blank: int) -> float:
    """log P(target) over alignments read by merging repeats, then dropping blanks."""
    ext = np.full(2 * len(target) + 1, blank, np.int64)
    ext[1::2] = target
    size = ext.size
    # a step of 2 (skipping a blank) is allowed onto a label unlike the label two back
    skip = np.zeros(size, bool)
    skip[2:] = (ext[2:] != blank) & (ext[2:] != ext[:-2])
    if logp.shape[0] == 0:
        return 0.0 if not target else -np.inf
    alpha = np.full(size, -np.inf)
    alpha[0] = logp[0, ext[0]]
    if size > 1:
        alpha[1] = logp[0, ext[1]]
    for t in range(1, logp.shape[0]):
        prev1 = np.concatenate(([-np.inf], alpha[:-1]))
        prev2 = np.where(skip, np.concatenate(([-np.inf, -np.inf], alpha[:-2]))[:size], -np.inf)
        alpha = np.logaddexp(np.logaddexp(alpha, prev1), prev2) + logp[t, ext]
    return float(np.logaddexp(alpha[-1], alpha[-2]) if size > 1 else alpha[-1])


def _unmerged(logp: np.ndarray, target: list[int], blank: int) -> float:
    """log P(target) over alignments read by dropping blanks only: every label
    is emitted at exactly one step."""
    m = len(target)
    alpha = np.full(m + 1, -np.inf)
    alpha[0] = 0.0
    labels = np.array(target, np.int64)
    for t in range(logp.shape[0]):
        stay = alpha + logp[t, blank]
        move = np.concatenate(([-np.inf], alpha[:-1] + logp[t, labels]))
        alpha = np.logaddexp(stay, move)
    return float(alpha[m])
