"""GatherTree-1: the full token sequences of a beam search, read back from
the last step through each beam's parents (TensorFlow's gather_tree, as
OpenVINO's reference implements it).

Steps from max_seq_len[b] on are end_token; within them, everything after
the first end_token is end_token too.  Indices held in a float type are
truncated toward zero, as OpenVINO reads them; a max_seq_len below 0 counts
as the whole time dim (OpenVINO's unsigned cast).  A parent index outside
[0, beam_width) on a followed path is a run-time error."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base.shapes import PartialShape
from ..framework.accuracy import EXACT
from ..framework.base import NUMERIC, In, Inference, Op, TensorInfo, op_error, same_as
from ..framework.registry import register
from .ctc_greedy import merge_dims

STEP_IDS, PARENT_IDX, MAX_SEQ_LEN, END_TOKEN = 0, 1, 2, 3


@register
class GatherTree1(Op):
    type, version = "GatherTree", 1
    accuracy = EXACT  # moves values
    family = "sequence"
    summary = "beam search sequences [T, batch, beam] traced back through parent_idx"
    inputs = (In("step_ids", NUMERIC, rank=3), In("parent_idx", same_as("step_ids"), rank=3),
              In("max_seq_len", same_as("step_ids"), rank=1), In("end_token", same_as("step_ids"), rank=0))

    def infer(self, step_ids: TensorInfo, parents: TensorInfo, max_seq_len: TensorInfo, end_token: TensorInfo) -> Inference:
        shape = step_ids.shape
        if shape.dims is not None and parents.shape.dims is not None:
            dims = [merge_dims(f"dim {k} of step_ids and parent_idx", PARENT_IDX, a, b)
                    for k, (a, b) in enumerate(zip(shape.dims, parents.shape.dims))]
            shape = PartialShape(tuple(dims))
        elif shape.dims is None:
            shape = parents.shape
        if shape.dims is not None and max_seq_len.shape.rank == 1:
            batch = merge_dims("the batch dim of step_ids and max_seq_len", MAX_SEQ_LEN, shape[1], max_seq_len.shape[0])
            shape = PartialShape((shape[0], batch, shape[2]))
        known_parents, known_lengths = parents.value(), max_seq_len.value()
        if known_parents is not None and known_lengths is not None and known_parents.ndim == 3:
            _paths(_as_index(known_parents), _lengths(known_lengths, known_parents.shape[0]))  # a bad parent: an error now
        return Inference([TensorInfo(shape, step_ids.etype)])

    def compute(self, plan: None, step_ids: np.ndarray, parents: np.ndarray, max_seq_len: np.ndarray,
                end_token: np.ndarray) -> Sequence[np.ndarray]:
        time, batch, beams = step_ids.shape
        out = np.full(step_ids.shape, end_token, step_ids.dtype)
        lengths = _lengths(max_seq_len, time)
        end = _as_index(end_token)
        for b, path in enumerate(_paths(_as_index(parents), lengths)):
            n = len(path)
            for t, parent in enumerate(path):
                out[t, b] = step_ids[t, b, parent]
            # everything after a beam's first end_token is end_token
            ended = np.cumsum(_as_index(out[:n, b]) == end, axis=0) > 0
            after = np.zeros_like(ended)
            after[1:] = ended[:-1]
            out[:n, b][after] = end_token
        return [out]


def _lengths(max_seq_len: np.ndarray, time: int) -> np.ndarray:
    lengths = _as_index(max_seq_len)
    return np.where(lengths < 0, time, np.minimum(lengths, time))


def _paths(parent_index: np.ndarray, lengths: np.ndarray) -> list[list[np.ndarray]]:
    """For each batch, the beam each beam's path passes through at every step
    below its length; a parent outside [0, beam_width) is an error."""
    beams = parent_index.shape[2]
    out = []
    for b, n in enumerate(lengths.tolist()):
        path = [np.arange(beams)] if n else []
        for t in range(n - 1, 0, -1):
            parent = parent_index[t, b, path[-1]]
            bad = (parent < 0) | (parent >= beams)
            if bad.any():
                k = int(np.flatnonzero(bad)[0])
                raise op_error(f"parent_idx[{t}, {b}, {int(path[-1][k])}] = {int(parent[k])} on the path of beam {k} is "
                               f"outside [0, {beams}), the beam width", "bad-value", PARENT_IDX)
            path.append(parent)
        out.append(path[::-1])
    return out


def _as_index(values: np.ndarray) -> np.ndarray:
    """Index values as int64, floats truncated toward zero."""
    if values.dtype.kind in "iub":
        return values.astype(np.int64)
    v = np.trunc(values.astype(np.float64))
    return np.where(np.isfinite(v), v, -1).astype(np.int64)
