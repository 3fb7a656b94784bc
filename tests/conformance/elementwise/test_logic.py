"""Conformance table of Xor-1, opset1's name of LogicalXor: boolean in and out,
NumPy broadcasting."""

from __future__ import annotations

import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, conformance, random_arrays, table_rng

rand = random_arrays(table_rng("Xor-1"))  # the table's own generator
XOR = OpTable("Xor", "opset1", reference=lambda x, a: [np.logical_xor(x[0], x[1])], cases=[
    Case("broadcast", [rand((2, 3, 4), bool), rand((3, 1), bool)]),
    Case("all-pairs", [np.array([True, True, False, False]), np.array([True, False, True, False])]),
    Case("scalar", [np.array(True), rand((5,), bool)]),
    Case("const", [rand((2, 2), bool), rand((2, 2), bool)], const=(1,)),
    Case("none-broadcast", [rand((3,), bool), rand((3,), bool)], attrs={"auto_broadcast": "none"}),
    Case("zero-size", [rand((0, 2), bool), rand((2,), bool)]),
], errors=[
    ErrorCase("not-boolean", [rand((2,)), rand((2,))], code="bad-input-type"),
    ErrorCase("shapes", [rand((2, 3), bool), rand((4,), bool)], code="incompatible-inputs"),
    ErrorCase("none-broadcast-differs", [rand((2, 3), bool), rand((3,), bool)], attrs={"auto_broadcast": "none"},
              code="incompatible-inputs"),
])

test_conformance = conformance([XOR])
