"""Conformance tables of CTCGreedyDecoder-1 and CTCGreedyDecoderSeqLen-6:
exact (class indices).  The references decode step by step as the specs
describe, the best class being the first maximum."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from conformance.harness import OV_TYPE_UNCHECKED, OV_VALUE_UNCHECKED, Case, ErrorCase, OpTable, conformance, random_arrays, table_rng

BF16 = ml_dtypes.bfloat16


def _first_max(row: np.ndarray) -> int:
    best = 0
    for i in range(1, len(row)):
        if row[best] < row[i]:
            best = i
    return best


def _decode(steps: list[np.ndarray], blank: int, merge: bool) -> list[int]:
    out, prev = [], -1
    for scores in steps:
        c = _first_max(scores)
        if c != blank and not (merge and c == prev):
            out.append(c)
        prev = c
    return out


def ref_ctc_greedy(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, mask = x[0], x[1]
    time, batch, classes = data.shape
    out = np.full((batch, time, 1, 1), -1, np.float64)
    for b in range(batch):
        steps = []
        for t in range(time):
            if mask[t, b] == 0:
                break
            steps.append(data[t, b])
        decoded = _decode(steps, classes - 1, attrs.get("ctc_merge_repeated", True))
        out[b, : len(decoded), 0, 0] = decoded
    return [out.astype(data.dtype)]


def ref_ctc_greedy_seq_len(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, lengths = x[0], x[1]
    batch, time, classes = data.shape
    blank = int(x[2].reshape(-1)[0]) if len(x) > 2 else classes - 1
    out = np.full((batch, time), -1, np.int64)
    counts = []
    for b in range(batch):
        decoded = _decode([data[b, t] for t in range(int(lengths[b]))], blank, attrs.get("merge_repeated", True))
        out[b, : len(decoded)] = decoded
        counts.append(len(decoded))
    return [out.astype(attrs.get("classes_index_type", "i32").replace("i", "int")),
            np.array(counts, attrs.get("sequence_length_type", "i32").replace("i", "int"))]


def repeats(rng: np.random.Generator, shape: tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    """[batch, time, classes] scores whose best class holds for two time steps
    at a time, so merging matters."""
    best = rng.integers(0, shape[-1], shape[:-1])
    best[:, 1::2] = best[:, : shape[1] // 2 * 2 : 2]
    scores = rng.standard_normal(shape)
    np.put_along_axis(scores, best[..., None], 5.0, axis=-1)
    return scores.astype(dtype)


rng = table_rng("CTCGreedyDecoder-1")  # the table's own generator
rand = random_arrays(rng)


def mask(time: int, lengths: list[int], dtype: Any = np.float32) -> np.ndarray:
    return (np.arange(time)[:, None] < np.array(lengths)[None, :]).astype(dtype)


FLOAT_MASK_ONLY = "OpenVINO CPU compiles only a floating-point sequence_mask (its reader takes any type)"
nan_scores = repeats(rng, (2, 4, 5)).transpose(1, 0, 2).copy()
nan_scores[0, 0, 2] = np.nan
nan_scores[1, 1, 0] = np.nan
CTC_GREEDY = OpTable("CTCGreedyDecoder", "opset1", reference=ref_ctc_greedy, cases=[
    Case("merge", [repeats(rng, (3, 8, 5)).transpose(1, 0, 2).copy(), mask(8, [8, 5, 0])],
         attrs={"ctc_merge_repeated": True}),
    Case("no-merge", [repeats(rng, (2, 6, 4)).transpose(1, 0, 2).copy(), mask(6, [6, 3])],
         attrs={"ctc_merge_repeated": False}),
    Case("f16", [rand((5, 2, 6), np.float16), mask(5, [4, 5], np.float16)], attrs={"ctc_merge_repeated": True}),
    Case("bool-mask", [rand((5, 2, 4)), mask(5, [2, 5], bool)], attrs={"ctc_merge_repeated": True},
         ov=FLOAT_MASK_ONLY),
    Case("i32-mask", [rand((5, 2, 4)), mask(5, [3, 0], np.int32)], attrs={"ctc_merge_repeated": False},
         ov=FLOAT_MASK_ONLY),
    Case("mask-gap", [rand((6, 1, 3)), np.array([[1], [1], [0], [1], [1], [1]], np.float32)],
         attrs={"ctc_merge_repeated": True}),
    Case("nan", [nan_scores, mask(4, [4, 4])], attrs={"ctc_merge_repeated": True}),
    Case("default-merge", [repeats(rng, (2, 5, 3)).transpose(1, 0, 2).copy(), mask(5, [5, 2])]),
], errors=[
    ErrorCase("time", [rand((4, 2, 3)), mask(5, [1, 1])], code="incompatible-inputs"),
    ErrorCase("batch", [rand((4, 2, 3)), mask(4, [1, 1, 1])], code="incompatible-inputs"),
    ErrorCase("rank", [rand((4, 3)), mask(4, [1, 1, 1])], code="bad-input-rank"),
    ErrorCase("int-data", [rand((4, 2, 3), np.int32), mask(4, [1, 1], np.int32)], code="bad-input-type", ov=OV_TYPE_UNCHECKED),
])

rng = table_rng("CTCGreedyDecoderSeqLen-6")  # the table's own generator
rand = random_arrays(rng)
CTC_GREEDY_SEQ_LEN = OpTable("CTCGreedyDecoderSeqLen", "opset6", reference=ref_ctc_greedy_seq_len, cases=[
    Case("merge", [repeats(rng, (3, 8, 5)), np.array([8, 5, 0], np.int32)], attrs={"merge_repeated": True}),
    Case("no-merge-i64", [repeats(rng, (2, 6, 4)), np.array([6, 3], np.int64)],
         attrs={"merge_repeated": False, "classes_index_type": "i64", "sequence_length_type": "i64"}),
    Case("blank-0", [repeats(rng, (2, 7, 4)), np.array([7, 6], np.int32), np.array(0, np.int32)],
         attrs={"merge_repeated": True}),
    Case("blank-1d", [repeats(rng, (2, 5, 3), np.float16), np.array([5, 4], np.int64), np.array([1], np.int64)],
         attrs={"merge_repeated": True, "classes_index_type": "i32", "sequence_length_type": "i64"}),
    Case("blank-i64-lengths-i32", [repeats(rng, (2, 5, 4)), np.array([5, 3], np.int32), np.array(1, np.int64)]),
    Case("blank-const", [repeats(rng, (1, 5, 3)), np.array([5], np.int32), np.array(2, np.int32)], const=(2,),
         attrs={"merge_repeated": False}),
    Case("defaults", [repeats(rng, (2, 4, 3)), np.array([4, 1], np.int32)]),
], errors=[
    ErrorCase("batch", [rand((2, 4, 3)), np.array([1, 1, 1], np.int32)], code="incompatible-inputs"),
    ErrorCase("rank", [rand((4, 3)), np.array([1, 1, 1, 1], np.int32)], code="bad-input-rank"),
    ErrorCase("length-past-time", [rand((2, 4, 3)), np.array([4, 5], np.int32)], const=(1,), code="bad-value", ov=OV_VALUE_UNCHECKED),
    ErrorCase("length-type", [rand((2, 4, 3)), np.array([1, 1], np.float32)], code="bad-input-type", ov=OV_TYPE_UNCHECKED),
    ErrorCase("blank-type", [rand((2, 4, 3)), np.array([1, 1], np.int32), np.array(0, np.float32)], code="bad-input-type"),
    ErrorCase("blank-two", [rand((2, 4, 3)), np.array([1, 1], np.int32), np.array([0, 1], np.int32)],
              code="bad-input-rank"),
    ErrorCase("index-type", [rand((2, 4, 3)), np.array([1, 1], np.int32)], attrs={"classes_index_type": "f32"},
              code="bad-attribute", ov="OpenVINO reads and compiles any classes_index_type (the spec allows i32 and i64)"),
])

test_conformance = conformance([CTC_GREEDY, CTC_GREEDY_SEQ_LEN])
