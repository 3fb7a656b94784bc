"""GroupedMatMul-17: the matrix products of a mixture of experts, one per group
(expert), with b's last axis the reduced one (out = a_g @ b_g^T).

* 3-D x 3-D: a [G, M, K], b [G, N, K] -> [G, M, N]; offsets, if given, are not
  read (as OpenVINO's shape inference does not read them).
* 2-D x 3-D: a [T, K] holds the tokens of every group one after the other,
  b [G, N, K] -> [T, N]; offsets (i32/i64, one per group) is the cumulative end
  row of each group: rows offsets[g-1]..offsets[g] go through b[g], rows past
  the last offset stay 0.

OpenVINO 2026.4's shape inference accepts only these two rank pairs (any pair
when a rank is dynamic) and has no CPU kernel nor evaluate for the op, so the
values follow the shapes it infers.  Products follow MatMul's numeric policy.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...base.shapes import Dim, PartialShape
from ..framework.base import INDEX, NUMERIC, In, Inference, Op, TensorInfo, op_error, require, same_as
from ..framework.registry import register
from .matmul import product

A, B, OFFSETS = 0, 1, 2
BATCHED, TOKENS = "batched", "tokens"


@register
class GroupedMatMul17(Op):
    type, version, family = "GroupedMatMul", 17, "matmul"
    summary = "one matrix product per group (a mixture of experts), b's last dim reduced"
    inputs = (In("mat_a", NUMERIC), In("mat_b", same_as("mat_a")), In("offsets", INDEX, optional=True))

    def infer(self, a: TensorInfo, b: TensorInfo, offsets: TensorInfo | None = None) -> Inference:
        ra, rb = a.shape.rank, b.shape.rank
        if ra is None or rb is None:
            return Inference([TensorInfo(PartialShape(None), a.etype)], None)
        require((ra, rb) in ((3, 3), (2, 3)), "bad-input-rank",
                lambda: f"mat_a {a.shape} x mat_b {b.shape} is a {ra}-D x {rb}-D product; "
                        f"{self.display()} takes 2-D x 3-D and 3-D x 3-D", B if ra in (2, 3) else A)
        _merge(a.shape[ra - 1], b.shape[2], lambda: f"the reduced dims differ: mat_a {a.shape} gives K={a.shape[ra - 1]}, "
                                                        f"mat_b {b.shape} gives K={b.shape[2]}")
        if ra == 3:
            g = _merge(a.shape[0], b.shape[0], lambda: f"the group counts differ: mat_a {a.shape}, mat_b {b.shape}")
            return Inference([TensorInfo(PartialShape((g, a.shape[1], b.shape[1])), a.etype)], BATCHED)
        require(offsets is not None, "incompatible-inputs",
                f"a 2-D mat_a {a.shape} needs offsets (the end row of each group)", A)
        assert offsets is not None
        require(offsets.shape.rank in (None, 1), "bad-input-rank",
                lambda: f"offsets {offsets.shape} must be 1-D (the end row of each group)", OFFSETS)
        value = offsets.value() if offsets.is_constant else None
        if value is not None:
            check_offsets(value, a.shape[0], b.shape[0])
        return Inference([TensorInfo(PartialShape((a.shape[0], b.shape[1])), a.etype)], TOKENS)

    def compute(self, plan: str | None, a: np.ndarray, b: np.ndarray, offsets: np.ndarray | None = None) -> list[np.ndarray]:
        if plan == BATCHED:
            return [product(a, np.swapaxes(b, -1, -2))]
        assert offsets is not None
        check_offsets(offsets, Dim.of(a.shape[0]), Dim.of(b.shape[0]))
        out = np.zeros((a.shape[0], b.shape[1]), a.dtype)
        start = 0
        for g, end in enumerate(offsets.tolist()):
            if end > start:
                out[start:end] = product(a[start:end], b[g].T)
            start = end
        return [out]


def _merge(x: Dim, y: Dim, message: Callable[[], str]) -> Dim:
    """The dim both inputs allow (OpenVINO's merge), or incompatible-inputs."""
    both = x.intersect(y)
    if both is None:
        raise op_error(message(), "incompatible-inputs", B)
    return both


def check_offsets(offsets: np.ndarray, rows: Dim, groups: Dim) -> None:
    """Offsets are one non-decreasing end row per group, within mat_a's rows."""
    ends = offsets.astype(np.int64).reshape(-1)
    require(not groups.is_static or ends.size == groups.value, "bad-value",
            lambda: f"offsets holds {ends.size} end rows, mat_b has {groups} groups", OFFSETS)
    require(ends.size == 0 or ends[0] >= 0, "bad-value", lambda: f"offsets[0] = {ends[0]} is negative", OFFSETS)
    falls = np.flatnonzero(ends[1:] < ends[:-1])
    require(falls.size == 0, "bad-value",
            lambda: f"offsets must not decrease: offsets[{falls[0] + 1}] = {ends[falls[0] + 1]} < "
                    f"offsets[{falls[0]}] = {ends[falls[0]]}", OFFSETS)
    require(ends.size == 0 or not rows.is_static or ends[-1] <= rows.value, "bad-value",
            lambda: f"offsets ends at row {ends[-1]}, past mat_a's {rows} rows", OFFSETS)
