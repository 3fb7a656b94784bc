"""Conformance tables of Gather-8, Gather-1 and Gather-7."""

from __future__ import annotations

import numpy as np

from conformance.harness import Case, OpTable, conformance, random_arrays, table_rng
from conformance.movement.references import gather

rand = random_arrays(table_rng("Gather-8"))
GATHER = OpTable("Gather", "opset8", reference=None, cases=[
    Case("axis1", [rand((3, 4)), np.array([[0, 2], [3, 1]], np.int32), np.array(1, np.int64)], const=(2,),
         expect=None),
    Case("batch", [rand((2, 3, 4), np.int8), np.array([[0, 2], [1, 1]], np.int64), np.array(1, np.int64)],
         attrs={"batch_dims": 1}, const=(2,)),
    Case("negative-index", [rand((5,)), np.array([-1, 0], np.int64), np.array(0, np.int64)], const=(2,)),
])


rand = random_arrays(table_rng("Gather-1"))  # each table its own generator
GATHER1 = OpTable("Gather", "opset1", reference=gather, cases=[
    Case("axis0", [rand((4, 3)), np.array([3, 0, 1], np.int64), np.array(0, np.int64)], const=(2,)),
    Case("axis1-2d-indices", [rand((2, 5), np.int32), np.array([[4, 0], [1, 1]], np.int32), np.array([1], np.int64)],
         const=(2,)),
])


rand = random_arrays(table_rng("Gather-7"))  # each table its own generator
GATHER7 = OpTable("Gather", "opset7", reference=gather, cases=[
    Case("batch-dims", [rand((2, 3, 4)), np.array([[0, 2], [1, 1]], np.int64), np.array(1, np.int64)],
         attrs={"batch_dims": 1}, const=(2,)),
    Case("no-batch", [rand((3, 4), np.float16), np.array([2, 0], np.int32), np.array(-1, np.int64)], const=(2,)),
])

TABLES = [GATHER, GATHER1, GATHER7]
test_conformance = conformance(TABLES)
