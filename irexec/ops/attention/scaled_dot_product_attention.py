"""ScaledDotProductAttention-13: softmax(Q Kᵀ · scale + bias) V over the last
two axes, the leading axes broadcast NumPy-style between query, key, value
and mask (a key/value with one head serves every query head).

A sixth input, the attention sinks (one logit per head, or per head and query
row), joins every softmax row as one more column whose weight is then dropped:
softmax([Q Kᵀ · scale + bias, sink])[..., :S] V, the sink neither scaled nor
masked, as OpenVINO computes it.

Computed in f32 (f64 for f64; f16/bf16 accumulate in f32 and round once):
two BLAS matmuls and a max-subtracted softmax.  A row whose every score is
masked to -inf is NaN (0/0), as the spec's formula gives.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...base.shapes import DYNAMIC, Dim, PartialShape, broadcast_dim, broadcast_numpy
from ...kernels.windows import accumulator
from ..framework.base import ANY, REAL, Attr, In, Inference, Op, TensorInfo, op_error, same_as
from ..framework.registry import register

QUERY, KEY, VALUE, MASK, SCALE, SINK = range(6)


@dataclass(frozen=True)
class AttentionPlan:
    use_mask: bool
    use_scale: bool
    use_sink: bool = False


def _onto(target: Dim, m: Dim) -> Dim | None:
    """A mask or sink dim broadcast onto L, S or a leading dim as OpenVINO's
    broadcast_merge (a dim that may be 1 yields to the other), except that it never
    widens a dim of 1: the output would not hold it (OpenVINO's CPU plugin refuses it too)."""
    if target.is_static and target.value == 1 and not m.contains(1):
        return None
    return broadcast_dim(target, m)


@register
class ScaledDotProductAttention13(Op):
    type, version = "ScaledDotProductAttention", 13
    family = "attention"
    summary = "softmax(query keyᵀ scale + mask) value, optionally causal"
    inputs = (In("query", REAL, rank=(3, None)), In("key", same_as("query"), rank=(3, None)),
              In("value", same_as("query"), rank=(3, None)), In("attention_mask", ANY, optional=True),
              In("scale", same_as("query"), rank=(0, 1), elements=1, optional=True),
              In("sink", same_as("query"), optional=True))
    attributes = {"causal": Attr("bool", required=True, doc="mask every key after the query's position; "
                                                            "the attention_mask input is then ignored")}

    def infer(self, *ins: TensorInfo) -> Inference:
        q, k, v = ins[:3]
        mask = ins[MASK] if len(ins) > MASK else None
        scale = ins[SCALE] if len(ins) > SCALE else None
        etype = next((i.etype for i in (q, k, v) if i.known_type), q.etype)
        if mask is not None and mask.known_type and not self.causal:
            if mask.etype.name != "boolean" and mask.etype is not etype and etype.name not in ("dynamic", "undefined"):
                raise op_error(f"attention_mask must be boolean or {etype.name}, got {mask.etype.name}",
                               "bad-input-type", MASK)
        if q.shape.dims is None:
            return Inference([TensorInfo(PartialShape(None), etype)], None)
        lead = PartialShape(q.shape.dims[:-2])
        l_dim, e_dim = q.shape.dims[-2], q.shape.dims[-1]
        s_dim: Dim = DYNAMIC
        ev_dim: Dim = DYNAMIC

        def fold_lead(info: TensorInfo, port: int, what: str) -> None:
            nonlocal lead
            merged = broadcast_numpy(lead, PartialShape(info.shape.dims[:-2]))  # type: ignore[index]
            if merged is None:
                raise op_error(f"{what} {info.shape} does not broadcast with query {q.shape} in its leading dims",
                               "incompatible-inputs", port)
            lead = merged

        if k.shape.dims is not None:
            fold_lead(k, KEY, "key")
            e = e_dim.intersect(k.shape.dims[-1])  # equal, not broadcast: the matmul's inner dim
            if e is None:
                raise op_error(f"key {k.shape} and query {q.shape} differ in their last dim", "incompatible-inputs", KEY)
            e_dim, s_dim = e, k.shape.dims[-2]
        if v.shape.dims is not None:
            fold_lead(v, VALUE, "value")
            s = s_dim.intersect(v.shape.dims[-2])  # equal, not broadcast: the matmul's inner dim
            if s is None:
                raise op_error(f"value {v.shape} and key {k.shape} differ in their sequence dim (-2)",
                               "incompatible-inputs", VALUE)
            s_dim, ev_dim = s, v.shape.dims[-1]
        if mask is not None and not self.causal and mask.shape.dims is not None and len(mask.shape.dims) != 0:
            md = mask.shape.dims
            if len(md) < 2:
                raise op_error(f"attention_mask must be a scalar or of rank >= 2, got {mask.shape}", "bad-input-rank", MASK)
            lm, sm = _onto(l_dim, md[-2]), _onto(s_dim, md[-1])
            if lm is None or sm is None:
                raise op_error(f"attention_mask {mask.shape} does not broadcast to [..., L={l_dim}, S={s_dim}]",
                               "incompatible-inputs", MASK)
            l_dim, s_dim = lm, sm
            if len(md) >= 3:
                fold_lead(mask, MASK, "attention_mask")
        sink = ins[SINK] if len(ins) > SINK else None
        if sink is not None:
            _check_sink(sink, q, lead, l_dim)
        if lead.dims is None:
            return Inference([TensorInfo(PartialShape(None), etype)], None)
        shape = PartialShape((*lead.dims, l_dim, ev_dim))
        plan = AttentionPlan(mask is not None and not self.causal, scale is not None, sink is not None)
        return Inference([TensorInfo(shape, etype)], plan)

    def compute(self, plan: AttentionPlan, query: np.ndarray, key: np.ndarray, value: np.ndarray,
                *rest: np.ndarray) -> list[np.ndarray]:
        acc = accumulator(query.dtype)
        q, k, v = (a.astype(acc, copy=False) for a in (query, key, value))
        if plan.use_scale:
            scale = np.asarray(rest[1], acc).reshape(())
        else:
            with np.errstate(divide="ignore"):  # E = 0: an infinite scale of empty products
                scale = acc.type(1.0 / np.sqrt(np.float64(q.shape[-1])))
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            scores = np.matmul(q, np.swapaxes(k, -1, -2))
            scores *= scale
            L, S = scores.shape[-2:]
            if self.causal:
                scores = scores + np.triu(np.full((L, S), -np.inf, acc), 1)
            elif plan.use_mask:
                mask = rest[0]
                if mask.dtype == np.bool_:
                    scores = np.where(mask, scores, acc.type(-np.inf))
                else:
                    scores = scores + mask.astype(acc, copy=False)
            if plan.use_sink:  # one more softmax column, dropped once the row is normalised
                sink = np.broadcast_to(rest[2].astype(acc, copy=False), scores.shape[:-1] + (1,))
                top = np.maximum(scores.max(axis=-1, keepdims=True, initial=-np.inf), sink)
                top = np.where(np.isneginf(top), 0, top)  # a row of -inf only: keep exp(-inf) = 0
                scores = np.exp(scores - top)
                scores /= scores.sum(axis=-1, keepdims=True) + np.exp(sink - top)
                return [np.matmul(scores, v).astype(query.dtype, copy=False)]
            if S == 0:  # no key to attend to: the weights are empty and the weighted sum is 0
                return [np.zeros(np.broadcast_shapes(scores.shape[:-1], v.shape[:-2] + (1,))[:-1] + (L, v.shape[-1]),
                                 query.dtype)]
            scores = scores - _row_max(scores)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            out = np.matmul(scores, v)
        return [out.astype(query.dtype, copy=False)]


# NumPy's max over short rows runs about 60 ns a row (no vector loop); for rows this short
# the rows' elements laid out as columns and reduced across them take half the time or less
# (a max is exact: the same values, the sign of a zero aside, which exp(s - max) cannot see).
_SHORT_ROW = 32
_MANY_ROWS = 8


def _row_max(scores: np.ndarray) -> np.ndarray:
    """The max of each row of the last axis, keepdims."""
    S = scores.shape[-1]
    rows = scores.size // S if S else 0
    if S > _SHORT_ROW or rows < _MANY_ROWS:
        return np.maximum.reduce(scores, axis=-1, keepdims=True)
    columns = np.ascontiguousarray(scores.reshape(rows, S).T)
    return np.maximum.reduce(columns, axis=0).reshape(scores.shape[:-1] + (1,))


def _check_sink(sink: TensorInfo, q: TensorInfo, lead: PartialShape, l_dim: Dim) -> None:
    """The sink has the query's rank and one value per row: [..., L or 1, 1], its
    leading dims broadcast onto the output's.  OpenVINO's shape inference lets a
    sink widen a dim of 1 (the output stays narrow) but its CPU plugin refuses to
    compile that, and the semantics are undefined: refused here."""
    sd, qd = sink.shape.dims, q.shape.dims
    if sd is None or qd is None:
        return
    if len(sd) != len(qd):
        raise op_error(f"sink must have the rank of query ({len(qd)}), got {sink.shape}", "bad-input-rank", SINK)
    targets = ([*lead.dims] if lead.dims is not None else [DYNAMIC] * (len(sd) - 2)) + [l_dim, Dim.of(1)]
    for m, t in zip(reversed(sd), reversed(targets)):
        if _onto(t, m) is not None:
            continue
        raise op_error(f"sink {sink.shape} does not broadcast to [..., L={l_dim}, 1] of an output with leading dims "
                       f"{lead}", "incompatible-inputs", SINK)
