"""Conformance tables of Gather-1 and Gather-7 (Gather-8 is with the framework's
ops); references in references_movement.py."""

from __future__ import annotations

import numpy as np

from conformance import references_movement as ref
from conformance.harness import Case, OpTable, conformance, random_arrays, table_rng


def _rand(table_id: str):
    return random_arrays(table_rng(table_id))


r = _rand("Gather-1")
GATHER1 = OpTable("Gather", "opset1", reference=ref.gather, cases=[
    Case("axis0", [r((4, 3)), np.array([3, 0, 1], np.int64), np.array(0, np.int64)], const=(2,)),
    Case("axis1-2d-indices", [r((2, 5), np.int32), np.array([[4, 0], [1, 1]], np.int32), np.array([1], np.int64)],
         const=(2,)),
])

r = _rand("Gather-7")
GATHER7 = OpTable("Gather", "opset7", reference=ref.gather, cases=[
    Case("batch-dims", [r((2, 3, 4)), np.array([[0, 2], [1, 1]], np.int64), np.array(1, np.int64)],
         attrs={"batch_dims": 1}, const=(2,)),
    Case("no-batch", [r((3, 4), np.float16), np.array([2, 0], np.int32), np.array(-1, np.int64)], const=(2,)),
])

test_conformance = conformance([GATHER1, GATHER7])
