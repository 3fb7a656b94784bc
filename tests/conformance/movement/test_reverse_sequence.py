"""Conformance table of ReverseSequence-1."""

from __future__ import annotations

import numpy as np

from conformance.harness import Case, OpTable, conformance, random_arrays, table_rng

rand = random_arrays(table_rng("ReverseSequence-1"))
REVERSE_SEQUENCE = OpTable("ReverseSequence", "opset1", reference=None, cases=[
    Case("spec-like", [rand((4, 3)), np.array([1, 2, 3], np.int32)], attrs={"batch_axis": 1, "seq_axis": 0}, const=(1,)),
    Case("batch0", [rand((2, 5, 3), np.int32), np.array([5, 2], np.int64)], attrs={"batch_axis": 0, "seq_axis": 1}, const=(1,),
         ov="OpenVINO CPU runs integer ReverseSequence through f32"),
    # OpenVINO's reference tests, with their hand-worked outputs
    Case("openvino-2d-batch1-seq0", [np.arange(16, dtype=np.float32).reshape(4, 4), np.array([4, 3, 2, 1], np.int32)],
         attrs={"batch_axis": 1, "seq_axis": 0}, const=(1,),
         expect=[np.array([[12, 9, 6, 3], [8, 5, 2, 7], [4, 1, 10, 11], [0, 13, 14, 15]], np.float32)]),
    Case("openvino-2d-batch0-seq1", [np.arange(16, dtype=np.int8).reshape(4, 4), np.array([1, 2, 3, 4], np.int32)],
         attrs={"batch_axis": 0, "seq_axis": 1}, const=(1,), ov="OpenVINO CPU runs integer ReverseSequence through f32",
         expect=[np.array([[0, 1, 2, 3], [5, 4, 6, 7], [10, 9, 8, 11], [15, 14, 13, 12]], np.int8)]),
])

TABLES = [REVERSE_SEQUENCE]
test_conformance = conformance(TABLES)
