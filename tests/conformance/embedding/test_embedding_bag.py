"""Conformance tables of EmbeddingBagOffsetsSum-3, EmbeddingBagPackedSum-3,
EmbeddingSegmentsSum-3, EmbeddingBagOffsets-15 and EmbeddingBagPacked-15.
The reference gathers each bag's rows and reduces them in float64 from the
specs; irexec sums in the table's type (f32 for f16), so floats are held to
1e-6 relative, integers exactly."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.harness import OV_VALUE_UNCHECKED, Case, ErrorCase, OpTable, Tol, conformance, random_arrays, table_rng

TOL = Tol(rtol=1e-6, atol=1e-5)


def _reduce(table: np.ndarray, bags: list[list[int]], weights: list[list[float]] | None, default: int | None,
            mean: bool) -> np.ndarray:
    out = np.zeros((len(bags), *table.shape[1:]), np.float64 if table.dtype.kind == "f" else np.int64)
    for b, bag in enumerate(bags):
        if not bag:
            if default is not None and default >= 0:
                out[b] = table[default]
            continue
        terms = [table[i].astype(out.dtype) * (weights[b][k] if weights is not None else 1) for k, i in enumerate(bag)]
        total = np.sum(terms, axis=0)
        out[b] = (total / len(bag) if out.dtype.kind == "f" else np.trunc(total / len(bag))) if mean else total
    return out.astype(table.dtype)


def ref_offsets(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    table, indices, offsets = x[0], x[1].tolist(), x[2].tolist()
    ends = offsets[1:] + [len(indices)]
    bags = [indices[a:b] for a, b in zip(offsets, ends)]
    weights = [x[4][a:b].astype(np.float64).tolist() for a, b in zip(offsets, ends)] if len(x) > 4 else None
    default = int(x[3]) if len(x) > 3 else None
    return [_reduce(table, bags, weights, default, attrs.get("reduction") == "mean")]


def ref_packed(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    weights = x[2].astype(np.float64).tolist() if len(x) > 2 else None
    return [_reduce(x[0], x[1].tolist(), weights, None, attrs.get("reduction") == "mean")]


def ref_segments(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    table, indices, segment_ids, count = x[0], x[1].tolist(), x[2].tolist(), int(x[3])
    bags: list[list[int]] = [[] for _ in range(count)]
    weights: list[list[float]] = [[] for _ in range(count)]
    for k, (i, s) in enumerate(zip(indices, segment_ids)):
        bags[s].append(i)
        if len(x) > 5:
            weights[s].append(float(x[5][k]))
    default = int(x[4]) if len(x) > 4 else None
    return [_reduce(table, bags, weights if len(x) > 5 else None, default, False)]


def i32(*values: int) -> np.ndarray:
    return np.array(values, np.int32)


def i64(*values: int) -> np.ndarray:
    return np.array(values, np.int64)


def s32(value: int) -> np.ndarray:
    return np.array(value, np.int32)


def offsets_cases(rand: Any, mean: bool) -> list[Case]:
    attrs = {"reduction": "mean"} if mean else {}
    cases = [
        Case("basic", [rand((5, 2)), i32(0, 2, 3, 2, 4), i32(0, 2, 3)], attrs=dict(attrs)),
        Case("weights-default", [rand((5, 3)), i64(0, 2, 3, 2, 4), i64(0, 2, 2), np.array(1, np.int64), rand((5,))], attrs=dict(attrs)),
        Case("empty-zero", [rand((4, 2, 2)), i32(3, 1), i32(0, 0, 1)], attrs=dict(attrs)),
        Case("i32-table", [rand((6, 3), np.int32), i64(5, 0, 5, 1), i64(0, 1)], attrs=dict(attrs)),
        Case("f16", [rand((4, 4), np.float16), i32(0, 1, 2, 3, 3, 2), i32(0, 3), s32(2), rand((6,), np.float16)],
             attrs=dict(attrs)),
        Case("const-indices", [rand((5, 2)), i32(4, 4, 0), i32(0, 1), s32(3)], const=(1, 2, 3), attrs=dict(attrs)),
        Case("default-negative", [rand((5, 2)), i32(4, 1, 0), i32(0, 0, 2), s32(-1)], attrs=dict(attrs)),
    ]
    return [Case(c.id, c.inputs[:4], c.attrs, c.const) for c in cases] if mean else cases  # weights need sum


def offsets_errors(rand: Any, attrs: dict[str, Any]) -> list[ErrorCase]:
    return [
        ErrorCase("index-range", [rand((3, 2)), i32(0, 3), i32(0, 1)], const=(1,), attrs=dict(attrs), code="bad-value",
                  ov=OV_VALUE_UNCHECKED),
        ErrorCase("empty-last-bag", [rand((3, 2)), i32(0, 1), i32(0, 2)], const=(2,), attrs=dict(attrs), code="bad-value",
                  ov=OV_VALUE_UNCHECKED),
        ErrorCase("offsets-back", [rand((3, 2)), i32(0, 1, 1), i32(1, 0)], const=(2,), attrs=dict(attrs), code="bad-value",
                  ov=OV_VALUE_UNCHECKED),
        ErrorCase("default-range", [rand((3, 2)), i32(0, 1), i32(0, 1), s32(3)], const=(3,), attrs=dict(attrs),
                  code="bad-value", ov=OV_VALUE_UNCHECKED),
        ErrorCase("weights-length", [rand((3, 2)), i32(0, 1), i32(0, 1), s32(0), rand((3,))], attrs=dict(attrs),
                  code="incompatible-inputs"),
        ErrorCase("weights-type", [rand((3, 2)), i32(0, 1), i32(0, 1), s32(0), rand((2,), np.float16)], attrs=dict(attrs),
                  code="bad-input-type"),
        ErrorCase("index-types", [rand((3, 2)), i32(0, 1), i64(0, 1)], attrs=dict(attrs), code="bad-input-type"),
        ErrorCase("indices-rank", [rand((3, 2)), np.zeros((2, 1), np.int32), i32(0, 1)], attrs=dict(attrs),
                  code="bad-input-rank"),
        ErrorCase("table-scalar", [np.float32(1), i32(0), i32(0)], attrs=dict(attrs), code="bad-input-rank"),
    ]


def packed_cases(rand: Any, mean: bool) -> list[Case]:
    attrs = {"reduction": "mean"} if mean else {}
    cases = [
        Case("basic", [rand((5, 2)), np.array([[0, 2], [1, 2], [3, 4]], np.int32)], attrs=dict(attrs)),
        Case("weights", [rand((5, 3)), np.array([[0, 2, 2], [4, 1, 0]], np.int64), rand((2, 3))], attrs=dict(attrs)),
        Case("i64-table", [rand((4, 2), np.int64), np.array([[3], [1]], np.int32)], attrs=dict(attrs)),
        Case("f16", [rand((4, 2, 2), np.float16), np.array([[0, 1, 3], [2, 2, 2]], np.int32), rand((2, 3), np.float16)],
             attrs=dict(attrs)),
    ]
    return [Case(c.id, c.inputs[:2], c.attrs, c.const) for c in cases] if mean else cases  # weights need sum


def packed_errors(rand: Any, attrs: dict[str, Any]) -> list[ErrorCase]:
    return [
        ErrorCase("index-range", [rand((3, 2)), np.array([[0, 5]], np.int32)], const=(1,), attrs=dict(attrs),
                  code="bad-value", ov=OV_VALUE_UNCHECKED),
        ErrorCase("weights-shape", [rand((3, 2)), np.array([[0, 1]], np.int32), rand((1, 3))], attrs=dict(attrs),
                  code="incompatible-inputs"),
        ErrorCase("indices-rank", [rand((3, 2)), i32(0, 1)], attrs=dict(attrs), code="bad-input-rank"),
        ErrorCase("float-indices", [rand((3, 2)), np.zeros((1, 2), np.float32)], attrs=dict(attrs), code="bad-input-type"),
    ]


rand = random_arrays(table_rng("EmbeddingBagOffsetsSum-3"))  # each table its own generator
OFFSETS_SUM = OpTable("EmbeddingBagOffsetsSum", "opset3", reference=ref_offsets, tol=TOL,
                      cases=offsets_cases(rand, False), errors=offsets_errors(rand, {}))
rand = random_arrays(table_rng("EmbeddingBagOffsets-15"))
OFFSETS15 = OpTable("EmbeddingBagOffsets", "opset15", reference=ref_offsets, tol=TOL,
                    cases=offsets_cases(rand, False) + [Case(f"mean-{c.id}", c.inputs, c.attrs, c.const)
                                                        for c in offsets_cases(rand, True)],
                    errors=offsets_errors(rand, {"reduction": "sum"}) + [
                        ErrorCase("reduction", [rand((3, 2)), i32(0, 1), i32(0, 1)], attrs={"reduction": "max"},
                                  code="bad-attribute"),
                        ErrorCase("mean-weights", [rand((3, 2)), i32(0, 1), i32(0, 1), s32(0), rand((2,))],
                                  attrs={"reduction": "mean"}, code="incompatible-inputs")])
rand = random_arrays(table_rng("EmbeddingBagPackedSum-3"))
PACKED_SUM = OpTable("EmbeddingBagPackedSum", "opset3", reference=ref_packed, tol=TOL, cases=packed_cases(rand, False),
                     errors=packed_errors(rand, {}))
rand = random_arrays(table_rng("EmbeddingBagPacked-15"))
PACKED15 = OpTable("EmbeddingBagPacked", "opset15", reference=ref_packed, tol=TOL,
                   cases=packed_cases(rand, False) + [Case(f"mean-{c.id}", c.inputs, c.attrs, c.const)
                                                      for c in packed_cases(rand, True)],
                   errors=packed_errors(rand, {"reduction": "sum"}) + [
                       ErrorCase("mean-weights", [rand((3, 2)), np.array([[0, 1]], np.int32), rand((1, 2))],
                                 attrs={"reduction": "mean"}, code="incompatible-inputs")])
rand = random_arrays(table_rng("EmbeddingSegmentsSum-3"))
SEGMENTS_SUM = OpTable("EmbeddingSegmentsSum", "opset3", reference=ref_segments, tol=TOL, cases=[
    Case("basic", [rand((5, 2)), i32(0, 2, 3, 4), i32(0, 0, 2, 2), s32(3)], const=(3,)),
    Case("default-weights", [rand((5, 3)), i64(0, 2, 3, 4), i64(0, 0, 2, 2), np.array(4, np.int64), np.array(1, np.int64),
                                 rand((4,))], const=(3,)),
    Case("unsorted", [rand((4, 2, 2)), i32(3, 1, 2), i32(2, 0, 2), s32(3)], const=(3,),
         ov="OpenVINO CPU assumes sorted segment_ids (the spec's 'should'); its reference sums any order"),
    Case("sorted-repeats", [rand((4, 2, 2)), i32(3, 1, 2, 0), i32(0, 0, 0, 2), s32(3)], const=(3,)),
    Case("i32-table", [rand((6, 2), np.int32), i32(5, 0, 5), i32(1, 1, 0), s32(2), s32(4)], const=(3,)),
    Case("count-parameter", [rand((5, 2)), i32(0, 2), i32(0, 1), s32(2)]),
], errors=[
    ErrorCase("segment-shape", [rand((3, 2)), i32(0, 1), i32(0), s32(2)], const=(3,), code="incompatible-inputs"),
    ErrorCase("num-segments-rank", [rand((3, 2)), i32(0, 1), i32(0, 1), i32(2)], const=(3,), code="bad-input-rank"),
    ErrorCase("segment-past-count", [rand((3, 2)), i32(0, 1), i32(0, 2), s32(2)], const=(2, 3), code="bad-value", ov=OV_VALUE_UNCHECKED),
    ErrorCase("negative-count", [rand((3, 2)), i32(0, 1), i32(0, 1), np.array(-1, np.int32)], const=(3,),
              code="bad-value", ov=OV_VALUE_UNCHECKED),
    ErrorCase("index-range", [rand((3, 2)), i32(0, 3), i32(0, 1), np.array(2, np.int32)], const=(1, 3),
              code="bad-value", ov=OV_VALUE_UNCHECKED),
    ErrorCase("default-range", [rand((3, 2)), i32(0, 1), i32(0, 1), np.array(2, np.int32), np.array(7, np.int32)],
              const=(3, 4), code="bad-value", ov=OV_VALUE_UNCHECKED),
])

test_conformance = conformance([OFFSETS_SUM, PACKED_SUM, SEGMENTS_SUM, OFFSETS15, PACKED15])
