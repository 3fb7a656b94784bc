"""Conformance tables of Broadcast-3 and Broadcast-1."""

from __future__ import annotations

import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, conformance, i64, random_arrays, table_rng
from conformance.movement.references import BF16, ref_broadcast

rng = table_rng("Broadcast-3")  # each table its own generator
rand = random_arrays(rng)
BROADCAST3 = OpTable("Broadcast", "opset3", reference=ref_broadcast, cases=[
    Case("numpy", [rand((3, 1)), i64(2, 3, 4)], attrs={"mode": "numpy"}, const=(1,)),
    Case("numpy-scalar", [np.array(5, np.int8), i64(2, 2)], attrs={"mode": "numpy"}, const=(1,)),
    Case("bidirectional", [rand((4, 1), np.float16), i64(3, 1, 5)], attrs={"mode": "bidirectional"}, const=(1,)),
    Case("bidirectional-smaller", [rand((2, 3), np.int64), i64(3)], attrs={"mode": "bidirectional"}, const=(1,)),
    Case("explicit", [rand((3,), BF16), i64(2, 3, 4), i64(1)], attrs={"mode": "explicit"}, const=(1, 2)),
    Case("explicit-2", [rand((2, 4), np.uint8), i64(2, 3, 4), i64(0, 2)], attrs={"mode": "explicit"}, const=(1, 2)),
    Case("bool", [rand((1, 3), bool), i64(2, 3)], attrs={"mode": "numpy"}, const=(1,)),
    Case("zero-size", [rand((1, 3)), i64(0, 3)], attrs={"mode": "numpy"}, const=(1,), ov="OpenVINO CPU refuses an empty output"),
], errors=[
    ErrorCase("numpy-mismatch", [rand((3,)), i64(2, 4)], attrs={"mode": "numpy"}, const=(1,), code="incompatible-inputs"),
    ErrorCase("explicit-mismatch", [rand((3,)), i64(2, 4), i64(1)], attrs={"mode": "explicit"}, const=(1, 2),
              code="incompatible-inputs"),
    ErrorCase("bad-mode", [rand((3,)), i64(3)], attrs={"mode": "sideways"}, const=(1,), code="bad-attribute"),
    ErrorCase("numpy-with-axes-mapping", [rand((3,)), i64(2, 3), np.array(0, np.int64)], attrs={"mode": "numpy"},
              const=(1, 2), code="incompatible-inputs"),
    ErrorCase("bidirectional-with-axes-mapping", [rand((3,)), i64(2, 3), i64(1)], attrs={"mode": "bidirectional"},
              const=(1, 2), code="incompatible-inputs"),
])


rng = table_rng("Broadcast-1")  # each table its own generator
rand = random_arrays(rng)
BROADCAST1 = OpTable("Broadcast", "opset1", reference=ref_broadcast, cases=[
    Case("numpy", [rand((1, 4), np.int32), i64(3, 4)], attrs={"mode": "numpy"}, const=(1,)),
    Case("explicit", [rand((2,)), i64(2, 3), i64(0)], attrs={"mode": "explicit"}, const=(1, 2)),
    # TensorFlow's converter (Keras LSTM/GRU bodies) writes a 0-d axes_mapping that numpy mode ignores
    Case("numpy-axes-mapping-0d", [rand((3, 1)), i64(2, 3, 4), np.array(0, np.int64)], attrs={"mode": "numpy"},
         const=(1, 2)),
    Case("numpy-axes-mapping-f32-2d", [rand((4,)), i64(3, 4), np.zeros((1, 2), np.float32)], attrs={"mode": "numpy"},
         const=(1, 2)),
    Case("numpy-axes-mapping-parameter", [rand((1, 4)), i64(3, 4), np.array(5, np.int32)], attrs={"mode": "numpy"},
         const=(1,)),
], errors=[
    ErrorCase("explicit-axes-mapping-0d", [rand((2,)), i64(2, 3), np.array(0, np.int64)], attrs={"mode": "explicit"},
              const=(1, 2), code="bad-input-rank"),
    ErrorCase("explicit-axes-mapping-f32", [rand((2,)), i64(2, 3), np.array([0], np.float32)], attrs={"mode": "explicit"},
              const=(1, 2), code="bad-input-type"),
    ErrorCase("target-0d", [rand((2,)), np.array(2, np.int64)], attrs={"mode": "numpy"}, const=(1,), code="bad-input-rank"),
])

TABLES = [BROADCAST3, BROADCAST1]
test_conformance = conformance(TABLES)
