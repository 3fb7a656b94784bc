"""Conformance table of Roll-7."""

from __future__ import annotations

import numpy as np

from conformance.harness import Case, OpTable, conformance, random_arrays, table_rng
from conformance.movement.references import ref_roll

MATRIX = np.arange(1, 13, dtype=np.int32).reshape(4, 3)


rand = random_arrays(table_rng("Roll-7"))
ROLL = OpTable("Roll", "opset7", reference=ref_roll, cases=[
    Case("one-axis", [rand((3, 4)), np.array([1], np.int64), np.array([0], np.int64)], const=(1, 2)),
    Case("two-axes", [rand((3, 4, 5), np.int16), np.array([2, -1], np.int32), np.array([0, 2], np.int64)], const=(1, 2)),
    Case("scalar-shift-every-axis", [rand((3, 4)), np.array(1, np.int64), np.array([0, 1], np.int64)], const=(1, 2),
         ov="OpenVINO CPU refuses a one-element shift with several axes (the spec allows it)"),
    Case("negative-axis", [rand((2, 5), np.float16), np.array([7], np.int64), np.array([-1], np.int64)], const=(1, 2)),
    # the spec's examples and OpenVINO's reference test, with their hand-worked outputs
    Case("spec-example-1", [MATRIX, np.array(1, np.int64), np.array(0, np.int64)], const=(1, 2),
         expect=[np.array([[10, 11, 12], [1, 2, 3], [4, 5, 6], [7, 8, 9]], np.int32)]),
    Case("spec-example-2", [MATRIX, np.array([-1, 2], np.int64), np.array([0, 1], np.int64)], const=(1, 2),
         expect=[np.array([[5, 6, 4], [8, 9, 7], [11, 12, 10], [2, 3, 1]], np.int32)]),
    Case("spec-example-3-repeated-axes", [MATRIX, np.array([1, 2, 1], np.int64), np.array([0, 1, 0], np.int64)],
         const=(1, 2), expect=[np.array([[8, 9, 7], [11, 12, 10], [2, 3, 1], [5, 6, 4]], np.int32)]),
    Case("openvino-negative-axes", [np.arange(1, 25, dtype=np.float32).reshape(4, 2, 3), np.array([2, -1, -7], np.int64),
                                    np.array([-1, -1, -2], np.int64)], const=(1, 2),
         expect=[np.array([6, 4, 5, 3, 1, 2, 12, 10, 11, 9, 7, 8, 18, 16, 17, 15, 13, 14, 24, 22, 23, 21, 19, 20],
                          np.float32).reshape(4, 2, 3)]),
])

TABLES = [ROLL]
test_conformance = conformance(TABLES)
