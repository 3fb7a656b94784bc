"""Conformance table of Select-1."""

from __future__ import annotations

import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, conformance, random_arrays, table_rng
from conformance.movement.references import BF16, ref_select

rng = table_rng("Select-1")  # each table its own generator
rand = random_arrays(rng)
SELECT = OpTable("Select", "opset1", reference=ref_select, cases=[
    Case("numpy", [rand((2, 1, 4), bool), rand((3, 1)), rand((4,))]),
    Case("same-shape-i64", [rand((3, 2), bool), rand((3, 2), np.int64), rand((3, 2), np.int64)]),
    Case("scalar-else", [rand((5,), bool), rand((5,), BF16), np.array(-1, BF16)], const=(2,)),
    Case("none", [rand((2, 3), bool), rand((2, 3), np.uint8), rand((2, 3), np.uint8)], attrs={"auto_broadcast": "none"}),
    Case("f16-nan", [np.array([True, False, True]), np.array([np.nan, 1, -0.0], np.float16), np.array([2, np.inf, 3], np.float16)]),
    Case("zero-size", [rand((0, 3), bool), rand((1, 3)), rand((3,))], ov="OpenVINO CPU refuses a zero-size input"),
], errors=[
    ErrorCase("cond-type", [rand((3,)), rand((3,)), rand((3,))], code="bad-input-type"),
    ErrorCase("types-differ", [rand((3,), bool), rand((3,)), rand((3,), np.float16)], code="bad-input-type"),
    ErrorCase("shapes", [rand((3,), bool), rand((2,)), rand((2,))], code="incompatible-inputs"),
])

TABLES = [SELECT]
test_conformance = conformance(TABLES)
