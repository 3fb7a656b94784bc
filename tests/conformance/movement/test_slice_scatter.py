"""Conformance table of SliceScatter-15: the reference writes updates through a
NumPy view of the spec's clamped window."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from conformance.harness import OV_TYPE_UNCHECKED, Case, ErrorCase, OpTable, conformance, i64, random_arrays, table_rng


def ref_slice_scatter(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, updates, start, stop, step = x[:5]
    axes = [int(a) % data.ndim for a in x[5]] if len(x) > 5 else list(range(len(start)))
    index = [slice(None)] * data.ndim
    for a, b, e, s in zip(axes, start, stop, step):
        n = data.shape[a]
        index[a] = slice(int(np.clip(b, -n - 1, n + 1)), int(np.clip(e, -n - 1, n + 1)), int(s))
    out = data.copy()
    out[tuple(index)] = updates
    return [out]


rand = random_arrays(table_rng("SliceScatter-15"))  # the table's own generator
BIG = np.iinfo(np.int64).max
SLICE_SCATTER = OpTable("SliceScatter", "opset15", reference=ref_slice_scatter, cases=[
    Case("rows", [rand((6, 4)), rand((2, 4)), i64(1), i64(5), i64(2)], const=(2, 3, 4)),
    Case("axes", [rand((3, 5, 4)), rand((3, 5, 2)), i64(1), i64(3), i64(1), i64(2)], const=(2, 3, 4, 5)),
    Case("negative-step", [rand((8,), np.int32), rand((4,), np.int32), i64(-1), i64(-9), i64(-2)], const=(2, 3, 4)),
    Case("two-axes-negative", [rand((4, 6), np.float16), rand((2, 3), np.float16), i64(0, -1), i64(4, 0), i64(2, -2),
                               i64(0, -1)], const=(2, 3, 4, 5)),
    Case("clamped", [rand((5, 3)), rand((3, 3)), i64(2), i64(BIG), i64(1)], const=(2, 3, 4)),
    Case("empty-window", [rand((4, 3), np.uint8), np.zeros((0, 3), np.uint8), i64(3), i64(1), i64(1)], const=(2, 3, 4)),
    Case("bool", [rand((4,), bool), rand((2,), bool), i64(0), i64(4), i64(2)], const=(2, 3, 4)),
    Case("bf16", [rand((3, 4)).astype(ml_dtypes.bfloat16), rand((3, 1)).astype(ml_dtypes.bfloat16), i64(3), i64(4),
                  i64(1), i64(1)], const=(2, 3, 4, 5)),
    Case("runtime-start", [rand((6, 2)), rand((3, 2)), i64(1), i64(4), i64(1)], const=(3, 4),
         ov="OpenVINO CPU writes from index 0 when start is not a constant, and garbles the next row"),
], errors=[
    ErrorCase("updates-shape", [rand((6, 4)), rand((3, 4)), i64(1), i64(5), i64(2)], const=(2, 3, 4),
              code="incompatible-inputs"),
    ErrorCase("updates-type", [rand((6, 4)), rand((2, 4), np.float16), i64(1), i64(5), i64(2)], const=(2, 3, 4),
              code="bad-input-type", ov=OV_TYPE_UNCHECKED),
    ErrorCase("zero-step", [rand((6, 4)), rand((2, 4)), i64(1), i64(5), i64(0)], const=(2, 3, 4), code="bad-value"),
    ErrorCase("lengths-differ", [rand((6, 4)), rand((2, 4)), i64(1, 0), i64(5), i64(2)], const=(2, 3, 4),
              code="incompatible-inputs"),
    ErrorCase("axis-out-of-range", [rand((6, 4)), rand((2, 4)), i64(1), i64(5), i64(2), i64(2)], const=(2, 3, 4, 5),
              code="axis-out-of-range"),
])

test_conformance = conformance([SLICE_SCATTER])
