"""Conformance table of SearchSorted-15.  The reference is a plain loop over the
spec's definition: the count of sequence elements below the value (lower bound)
or not above it (upper bound)."""

from __future__ import annotations

import math
from typing import Any

import ml_dtypes
import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, conformance, random_arrays, table_rng


def ref_search_sorted(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    seq, values = x
    right = attrs.get("right_mode") in (True, "true")
    out_t = {"i32": np.int32, "i64": np.int64}[attrs.get("output_type", "i64")]
    n = math.prod(seq.shape[:-1])  # not -1: that is ambiguous for a zero-size tensor
    rows = (seq.reshape(n, seq.shape[-1]) if seq.ndim > 1 else seq.reshape(1, -1)).astype(np.float64)
    vals = values.astype(np.float64)
    flat = vals.reshape(n, vals.shape[-1]) if seq.ndim > 1 else vals.reshape(1, values.size)
    out = np.zeros(flat.shape, np.int64)
    for r in range(flat.shape[0]):
        row = rows[r if seq.ndim > 1 else 0]
        for c, v in enumerate(flat[r]):
            # the first index whose element is not at or below v (upper) or not below it (lower): a NaN v
            # compares false with everything, so that is index 0 either way
            out[r, c] = next((i for i, e in enumerate(row) if not (e <= v if right else e < v)), len(row))
    return [out.reshape(values.shape).astype(out_t)]


rand = random_arrays(table_rng("SearchSorted-15"))  # the table's own generator
dups = np.array([1, 2, 2, 2, 3, 5, 5, 8], np.float32)
SEARCH_SORTED = OpTable("SearchSorted", "opset15", reference=ref_search_sorted, cases=[
    Case("1d", [np.sort(rand((8,))), rand((3, 4))]),
    Case("right", [np.sort(rand((8,))), rand((5,))], attrs={"right_mode": True}),
    Case("duplicates-left", [dups, np.array([0, 2, 2.5, 5, 8, 9], np.float32)]),
    Case("duplicates-right", [dups, np.array([0, 2, 2.5, 5, 8, 9], np.float32)], attrs={"right_mode": True}),
    Case("rows", [np.sort(rand((2, 3, 6)), axis=-1), rand((2, 3, 4))], attrs={"output_type": "i32"}),
    Case("rows-right", [np.sort(rand((3, 5), np.int32), axis=-1), rand((3, 7), np.int32)], attrs={"right_mode": True}),
    Case("scalar-value", [np.sort(rand((6,))), np.array(0.5, np.float32)]),
    Case("empty-sequence", [np.zeros(0, np.float32), rand((3,))], ov="OpenVINO CPU returns uninitialised memory"),
    Case("nan-values", [dups, np.array([np.nan, 3], np.float32)]),
    Case("nan-values-right", [dups, np.array([np.nan, 3], np.float32)], attrs={"right_mode": True}),
    Case("f16-const", [np.sort(rand((5,), np.float16)), rand((4,), np.float16)], const=(0,)),
    Case("bf16", [np.sort(rand((5,))).astype(ml_dtypes.bfloat16), rand((4,)).astype(ml_dtypes.bfloat16)]),
    Case("i64", [np.sort(rand((5,), np.int64)), rand((4,), np.int64)], ov="OpenVINO CPU narrows i64 to i32"),
    Case("u8", [np.arange(0, 250, 25, dtype=np.uint8), np.array([0, 24, 25, 255], np.uint8)]),
    Case("zero-size-values", [np.sort(rand((4,))), np.zeros((0, 2), np.float32)]),
    Case("zero-size-rows", [np.zeros((2, 0), np.float32), np.zeros((2, 0), np.float32)]),
    Case("zero-size-rows-bf16", [np.zeros((2, 0), ml_dtypes.bfloat16), np.zeros((2, 0), ml_dtypes.bfloat16)]),
    Case("no-rows", [np.zeros((0, 4), np.float32), np.zeros((0, 3), np.float32)]),
], errors=[
    ErrorCase("rank-mismatch", [rand((2, 8)), rand((2, 3, 4))], code="incompatible-inputs"),
    ErrorCase("rows-differ", [rand((2, 8)), rand((3, 4))], code="incompatible-inputs"),
    ErrorCase("scalar-sequence", [np.array(1, np.float32), rand((3,))], code="bad-input-rank"),
    ErrorCase("types-differ", [rand((8,)), rand((3,), np.int32)], code="bad-input-type"),
    ErrorCase("bad-output-type", [rand((8,)), rand((3,))], attrs={"output_type": "f32"}, code="bad-attribute"),
])

test_conformance = conformance([SEARCH_SORTED])
