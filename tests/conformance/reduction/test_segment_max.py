"""Conformance table of SegmentMax-16.  The reference loops over the segments
as the spec defines them."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from conformance.harness import OV_READS_DEFAULT, Case, ErrorCase, OpTable, conformance, i64, random_arrays, table_rng


def ref_segment_max(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, ids = x[0], [int(v) for v in x[1]]
    n = int(x[2]) if len(x) > 2 else (max(ids) + 1 if ids else 0)
    dt = data.dtype
    if attrs.get("fill_mode", "ZERO").lower() == "zero":
        fill = 0
    else:
        fill = np.iinfo(dt).min if dt.kind in "iu" else (ml_dtypes.finfo(dt) if dt.name == "bfloat16" else np.finfo(dt)).min
    out = np.full((n, *data.shape[1:]), fill, dt)
    for s in range(n):
        rows = [data[i] for i, v in enumerate(ids) if v == s]
        if rows:
            out[s] = np.max(np.stack(rows), axis=0)
    return [out]


rand = random_arrays(table_rng("SegmentMax-16"))  # the table's own generator
SEGMENT_MAX = OpTable("SegmentMax", "opset16", reference=ref_segment_max, cases=[
    Case("gaps-zero", [rand((5, 3)), i64(0, 0, 1, 3, 3)], attrs={"fill_mode": "ZERO"}, const=(1,)),
    Case("gaps-lowest", [rand((5, 3)), i64(0, 0, 1, 3, 3)], attrs={"fill_mode": "LOWEST"}, const=(1,)),
    Case("num-segments-more", [rand((4, 2)), i64(0, 1, 1, 2), np.array(5, np.int64)], attrs={"fill_mode": "LOWEST"},
         const=(1, 2)),
    Case("num-segments-fewer", [rand((4, 2)), i64(0, 1, 1, 2), np.array(2, np.int32)], attrs={"fill_mode": "ZERO"},
         const=(1, 2)),
    Case("1d-int", [rand((6,), np.int32), np.array([1, 1, 1, 4, 4, 5], np.int32)], attrs={"fill_mode": "LOWEST"},
         const=(1,)),
    Case("ids-parameter", [rand((5, 2, 2)), i64(0, 2, 2, 2, 3)], attrs={"fill_mode": "ZERO"}),
    Case("f16", [rand((4, 3), np.float16), i64(0, 0, 0, 2)], attrs={"fill_mode": "LOWEST"}, const=(1,),
         ov="OpenVINO CPU computes f16 in f32: its lowest f32 becomes -inf"),
    Case("bf16", [rand((4, 3)).astype(ml_dtypes.bfloat16), i64(1, 1, 2, 2)], attrs={"fill_mode": "ZERO"}, const=(1,)),
    Case("u8", [rand((4, 2), np.uint8), i64(0, 0, 1, 1)], attrs={"fill_mode": "LOWEST"}, const=(1,)),
    Case("no-rows", [np.zeros((0, 3), np.float32), np.zeros(0, np.int64), np.array(2, np.int64)],
         attrs={"fill_mode": "ZERO"}, const=(1, 2), ov="OpenVINO CPU returns uninitialised memory without rows"),
], errors=[
    ErrorCase("unsorted", [rand((5, 3)), i64(0, 2, 1, 3, 3)], attrs={"fill_mode": "ZERO"}, const=(1,), code="bad-value"),
    ErrorCase("ids-count", [rand((5, 3)), i64(0, 1, 2, 3)], attrs={"fill_mode": "ZERO"}, const=(1,),
              code="incompatible-inputs"),
    ErrorCase("scalar-data", [np.array(1, np.float32), np.array(0, np.int64)], attrs={"fill_mode": "ZERO"},
              code="bad-input-rank"),
    ErrorCase("float-ids", [rand((5, 3)), rand((5,))], attrs={"fill_mode": "ZERO"}, code="bad-input-type"),
    ErrorCase("num-segments-1d", [rand((5, 3)), i64(0, 0, 1, 3, 3), i64(6)], attrs={"fill_mode": "ZERO"},
              const=(1, 2), code="bad-input-rank"),
    ErrorCase("bad-fill-mode", [rand((5, 3)), i64(0, 0, 1, 3, 3)], attrs={"fill_mode": "ONE"}, const=(1,),
              code="bad-attribute", ov=OV_READS_DEFAULT),
])

test_conformance = conformance([SEGMENT_MAX])
