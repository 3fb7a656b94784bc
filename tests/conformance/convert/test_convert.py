"""Conformance table of Convert-1."""

from __future__ import annotations

import numpy as np

from conformance.harness import Case, OpTable, conformance, random_arrays, table_rng

rand = random_arrays(table_rng("Convert-1"))
CONVERT = OpTable("Convert", "opset1", reference=lambda x, a: [x[0].astype(np.float16)], cases=[
    Case("f32-to-f16", [rand((3, 4))], attrs={"destination_type": "f16"}),
    Case("f32-to-f16-zero-size", [rand((0, 4))], attrs={"destination_type": "f16"}),
])

TABLES = [CONVERT]
test_conformance = conformance(TABLES)
