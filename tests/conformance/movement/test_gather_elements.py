"""Conformance table of GatherElements-6."""

from __future__ import annotations

import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, conformance, random_arrays, table_rng
from conformance.movement.references import ref_gather_elements

rng = table_rng("GatherElements-6")  # each table its own generator
rand = random_arrays(rng)
GATHER_ELEMENTS = OpTable("GatherElements", "opset6", reference=ref_gather_elements, cases=[
    Case("spec-example", [np.array([[1, 2], [3, 4]], np.int32), np.array([[0, 0], [1, 0]], np.int32)], attrs={"axis": 1},
         expect=[np.array([[1, 1], [4, 3]], np.int32)]),
    Case("axis0", [rand((3, 4)), rng.integers(0, 3, (2, 4)).astype(np.int64)], attrs={"axis": 0}),
    Case("negative-axis", [rand((2, 3, 4), np.float16), rng.integers(0, 4, (2, 3, 6)).astype(np.int32)], attrs={"axis": -1}),
    Case("negative-index", [rand((2, 5), np.int64), np.array([[-1, -5], [0, -2]], np.int64)], attrs={"axis": 1}),
    Case("bool", [rand((4, 2), bool), rng.integers(0, 4, (1, 2)).astype(np.int64)], attrs={"axis": 0}),
], errors=[
    ErrorCase("rank", [rand((2, 3)), np.zeros((2,), np.int64)], attrs={"axis": 0}, code="incompatible-inputs"),
    ErrorCase("axis", [rand((2, 3)), np.zeros((2, 3), np.int64)], attrs={"axis": 2}, code="axis-out-of-range"),
    ErrorCase("dims", [rand((2, 3)), np.zeros((2, 4), np.int64)], attrs={"axis": 0}, code="incompatible-inputs"),
])

TABLES = [GATHER_ELEMENTS]
test_conformance = conformance(TABLES)
