"""Conformance table of Concat-1."""

from __future__ import annotations

import numpy as np

from conformance.harness import OV_READS_DEFAULT, Case, ErrorCase, OpTable, conformance, random_arrays, table_rng
from conformance.movement.references import ref_concat

rand = random_arrays(table_rng("Concat-1"))
CONCAT = OpTable("Concat", "opset1", reference=ref_concat, cases=[
    Case("two", [rand((2, 3)), rand((2, 5))], attrs={"axis": 1}),
    Case("negative-axis", [rand((2, 3, 4)), rand((2, 3, 1)), rand((2, 3, 2))], attrs={"axis": -1}),
    Case("one-input", [rand((4, 2), np.int8)], attrs={"axis": 0}),
    Case("zero-size-input", [rand((0, 3), np.int64), rand((2, 3), np.int64)], attrs={"axis": 0}),
    Case("const-and-param", [rand((2,), np.int32), np.array([7, 8], np.int32)], attrs={"axis": 0}, const=(1,)),
    Case("boolean", [rand((1, 2), bool), rand((3, 2), bool)], attrs={"axis": 0}),
    Case("f16", [rand((2, 2), np.float16), rand((2, 2), np.float16)], attrs={"axis": 1}),
], errors=[
    ErrorCase("axis-out-of-range", [rand((2, 3)), rand((2, 3))], attrs={"axis": 2}, code="axis-out-of-range"),
    ErrorCase("dims-differ", [rand((2, 3)), rand((3, 3))], attrs={"axis": 1}, code="incompatible-inputs"),
    ErrorCase("ranks-differ", [rand((2, 3)), rand((3,))], attrs={"axis": 0}, code="incompatible-inputs"),
    ErrorCase("types-differ", [rand((2, 3)), rand((2, 3), np.int32)], attrs={"axis": 0}, code="bad-input-type"),
    ErrorCase("axis-missing", [rand((2, 3))], code="bad-attribute",
              ov=OV_READS_DEFAULT),
])

TABLES = [CONCAT]
test_conformance = conformance(TABLES)
