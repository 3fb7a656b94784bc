"""Conformance table of SparseFillEmptyRows-16.  The reference builds the
dense rows' entries with Python lists and sorts them by (row, col)."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.harness import OV_VALUE_UNCHECKED, Case, ErrorCase, OpTable, conformance, random_arrays, table_rng


def ref_sparse_fill(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    values, dense_shape, indices, default = x
    rows = int(dense_shape[0])
    entries = [((int(r), int(c)), values[i]) for i, (r, c) in enumerate(indices.reshape(-1, 2))]
    used = {r for (r, _), _ in entries}
    empty = [r not in used for r in range(rows)]
    entries += [((r, 0), np.asarray(default).astype(values.dtype)) for r in range(rows) if empty[r]]
    entries.sort(key=lambda e: e[0])
    idx = np.array([p for p, _ in entries], indices.dtype).reshape(-1, 2)
    return [idx, np.array([v for _, v in entries], values.dtype).reshape(-1), np.array(empty, bool)]


rand = random_arrays(table_rng("SparseFillEmptyRows-16"))  # the table's own generator


def idx(*pairs: tuple[int, int], dtype: Any = np.int64) -> np.ndarray:
    return np.array(pairs, dtype).reshape(-1, 2)


DYNAMIC_RANK = "OpenVINO's shape inference fails on values of dynamic rank with constant indices (a dim read past the rank)"
SPARSE_FILL = OpTable("SparseFillEmptyRows", "opset16", reference=ref_sparse_fill, cases=[
    Case("two-empty", [rand((3,)), np.array([4, 5]), idx((0, 1), (0, 3), (2, 0)), np.array(-1, np.float32)],
         const=(1, 2), ov_shapes=DYNAMIC_RANK),
    Case("unsorted", [rand((4,), np.int32), np.array([5, 3]), idx((3, 1), (0, 2), (3, 0), (1, 1)), np.array(7, np.int32)],
         const=(1, 2), ov_shapes=DYNAMIC_RANK),
    Case("none-empty", [rand((3,)), np.array([3, 2], np.int32), idx((0, 0), (1, 1), (2, 0), dtype=np.int32),
                        np.array(0, np.float32)], const=(1, 2), ov_shapes=DYNAMIC_RANK),
    Case("all-empty", [np.zeros(0, np.float32), np.array([3, 4]), idx(), np.array(2.5, np.float32)], const=(1, 2), ov_shapes=DYNAMIC_RANK,
         ov="OpenVINO CPU writes wrong columns when every row is empty"),
    Case("values-const", [rand((2,), np.int64), np.array([3, 3]), idx((1, 2), (1, 0)), np.array(9, np.int64)],
         const=(0, 1, 2), ov="OpenVINO CPU narrows i64 to i32"),
    Case("default-f16", [rand((2,)), np.array([3, 3]), idx((0, 0), (2, 2)), np.array(1.5, np.float16)], const=(1, 2),
         ov_shapes=DYNAMIC_RANK),
    Case("parameter-indices", [rand((3,)), np.array([4, 2]), idx((1, 0), (1, 1), (3, 1)), np.array(0, np.float32)]),
], errors=[
    ErrorCase("dense-shape-3", [rand((3,)), np.array([4, 5, 6]), idx((0, 1), (0, 3), (2, 0)), np.array(0, np.float32)],
              const=(1, 2), code="bad-input-rank"),
    ErrorCase("indices-count", [rand((3,)), np.array([4, 5]), idx((0, 1), (2, 0)), np.array(0, np.float32)],
              const=(1, 2), code="incompatible-inputs"),
    ErrorCase("indices-width", [rand((2,)), np.array([4, 5]), np.zeros((2, 3), np.int64), np.array(0, np.float32)],
              const=(1, 2), code="incompatible-inputs"),
    ErrorCase("default-1d", [rand((2,)), np.array([4, 5]), idx((0, 1), (2, 0)), np.array([0], np.float32)],
              const=(1, 2), code="bad-input-rank"),
    ErrorCase("index-types-differ", [rand((2,)), np.array([4, 5], np.int32), idx((0, 1), (2, 0)), np.array(0, np.float32)],
              const=(1, 2), code="bad-input-type"),
    ErrorCase("row-out-of-range", [rand((2,)), np.array([2, 5]), idx((0, 1), (2, 0)), np.array(0, np.float32)],
              const=(1, 2), code="bad-value", ov=OV_VALUE_UNCHECKED),
])

test_conformance = conformance([SPARSE_FILL])
