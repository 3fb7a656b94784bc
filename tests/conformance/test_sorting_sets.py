"""Conformance tables of Bucketize-3, Unique-10 and Eye-9.  References are
plain Python loops over the spec's definitions."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from conformance.harness import OV_READS_DEFAULT, OV_VALUE_UNCHECKED, Case, ErrorCase, OpTable, conformance, table_rng


def ints(shape: tuple[int, ...], lo: int, hi: int, dtype: Any = np.int32) -> np.ndarray:
    return rng.integers(lo, hi, shape).astype(dtype)


# ------------------------------------------------------------------ Bucketize-3

def ref_bucketize(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, buckets = x
    right = attrs.get("with_right_bound", True)
    out_t = {"i32": np.int32, "i64": np.int64}[attrs.get("output_type", "i64")]
    b = [float(v) for v in buckets]
    out = []
    for v in data.reshape(-1).tolist():
        v = float(v)
        out.append(sum(1 for t in b if (t < v if right else t <= v)))
    return [np.array(out, out_t).reshape(data.shape)]


# OpenVINO requires output_type in IR (the spec gives it a default, i64, which irexec accepts)
I64 = {"output_type": "i64"}
rng = table_rng("Bucketize-3")  # each table its own generator
BUCKETIZE = OpTable("Bucketize", "opset3", reference=ref_bucketize, cases=[
    Case("f32-right", [rng.uniform(-5, 5, (3, 4)).astype(np.float32), np.array([-2, 0, 0.5, 3], np.float32)], attrs=I64, const=(1,)),
    Case("on-boundaries-right", [np.array([-2, 0, 0.5, 3, 4, -3], np.float32), np.array([-2, 0, 0.5, 3], np.float32)],
         attrs=I64, const=(1,)),
    Case("on-boundaries-left", [np.array([-2, 0, 0.5, 3, 4, -3], np.float32), np.array([-2, 0, 0.5, 3], np.float32)],
         attrs={"with_right_bound": False, **I64}, const=(1,)),
    Case("i32-out", [ints((2, 5), -10, 10), np.array([-5, 0, 5], np.int32)], attrs={"output_type": "i32"}),
    Case("int-data-float-buckets", [ints((6,), -4, 4, np.int64), np.array([-1.5, 0.5, 2.5], np.float32)], attrs=I64),
    Case("f16", [rng.uniform(-3, 3, (5,)).astype(np.float16), np.array([-1, 1], np.float16)], attrs=I64, const=(1,)),
    Case("empty-buckets", [ints((4,), 0, 9), np.zeros(0, np.int32)], attrs=I64, const=(1,)),
    Case("zero-size-data", [np.zeros((0, 2), np.float32), np.array([1.0], np.float32)], attrs=I64),
    Case("scalar", [np.array(2.5, np.float32), np.array([1, 2, 3], np.float32)], attrs=I64),
], errors=[
    ErrorCase("buckets-2d", [ints((3,), 0, 4), ints((2, 2), 0, 4)], attrs=I64, code="bad-input-rank"),
    ErrorCase("output-type-f32", [ints((3,), 0, 4), ints((2,), 0, 4)], attrs={"output_type": "f32"}, code="bad-attribute"),
    ErrorCase("boolean-data", [np.array([True]), ints((2,), 0, 4)], attrs=I64, code="bad-input-type"),
])


# ------------------------------------------------------------------ Unique-10

def ref_unique(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data = x[0]
    axis = None if len(x) == 1 else int(np.asarray(x[1]).reshape(-1)[0])
    if axis is None:
        slices = [(v,) for v in data.reshape(-1).tolist()]
    else:
        moved = np.moveaxis(data, axis, 0)
        slices = [tuple(s.reshape(-1).tolist()) for s in moved]
    distinct: list[tuple] = []
    first: list[int] = []
    counts: list[int] = []
    for i, s in enumerate(slices):
        for j, d in enumerate(distinct):
            if d == s:
                counts[j] += 1
                break
        else:
            distinct.append(s)
            first.append(i)
            counts.append(1)
    order = list(range(len(distinct)))
    if attrs.get("sorted", True):
        order.sort(key=lambda j: distinct[j])
    pos = {j: p for p, j in enumerate(order)}
    inverse = []
    for s in slices:
        inverse.append(pos[next(j for j, d in enumerate(distinct) if d == s)])
    idx_t = {"i32": np.int32, "i64": np.int64}[attrs.get("index_element_type", "i64")]
    cnt_t = {"i32": np.int32, "i64": np.int64}[attrs.get("count_element_type", "i64")]
    picked = [first[j] for j in order]
    values = data.reshape(-1)[picked] if axis is None else np.take(data, picked, axis=axis)
    return [values, np.array(picked, idx_t), np.array(inverse, idx_t), np.array([counts[j] for j in order], cnt_t)]


def axis(a: int) -> np.ndarray:
    return np.array(a, np.int64)


rows = np.array([[1, 2, 1, 2], [3, 3, 3, 3], [1, 2, 1, 2], [0, 5, 0, 5]], np.float32)
rng = table_rng("Unique-10")  # each table its own generator
UNIQUE = OpTable("Unique", "opset10", reference=ref_unique, cases=[
    Case("flat-sorted", [ints((3, 5), 0, 6)]),
    Case("flat-unsorted", [ints((12,), -3, 3, np.int64)], attrs={"sorted": False}),
    Case("i32-outputs", [ints((2, 6), 0, 4, np.int8)], attrs={"index_element_type": "i32", "count_element_type": "i32"}),
    Case("signed-zero", [np.array([0.0, -0.0, 1.5, -1.5, 1.5], np.float32)]),
    Case("axis-0", [rows, axis(0)], const=(1,)),
    Case("axis-1-unsorted", [rows, axis(1)], attrs={"sorted": False}, const=(1,)),
    Case("axis-negative", [rows.astype(np.int32), axis(-1)], const=(1,)),
    Case("axis-1d", [ints((3, 4, 2), 0, 2), np.array([2], np.int32)], const=(1,)),
    Case("f16", [np.array([3, 1, 2, 1, 3], np.float16)]),
    Case("bf16", [np.array([3, 1, 2, 1, 3], ml_dtypes.bfloat16)]),
    Case("scalar", [np.array(7, np.int64)]),
    Case("zero-size-axis", [np.zeros((0, 3), np.float32), axis(0)], const=(1,)),
], errors=[
    ErrorCase("axis-out-of-range", [rows, axis(2)], const=(1,), code="axis-out-of-range"),
    ErrorCase("axis-two-values", [rows, np.array([0, 1], np.int64)], const=(1,), code="bad-input-rank"),
    ErrorCase("axis-not-constant", [rows, axis(0)], code="bad-value"),
    ErrorCase("index-type-f32", [rows], attrs={"index_element_type": "f32"}, code="bad-attribute"),
])


# ------------------------------------------------------------------ Eye-9

def ref_eye(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    r, c, k = (int(np.asarray(v).reshape(-1)[0]) for v in x[:3])
    batch = [int(v) for v in x[3]] if len(x) > 3 else []
    dt = {"f32": np.float32, "i8": np.int8, "i64": np.int64, "f16": np.float16, "boolean": np.bool_}[attrs["output_type"]]
    m = np.zeros((r, c), dt)
    for i in range(r):
        if 0 <= i + k < c:
            m[i, i + k] = 1
    return [np.broadcast_to(m, (*batch, r, c)).copy()]


def i64(v: Any) -> np.ndarray:
    return np.array(v, np.int64)


rng = table_rng("Eye-9")  # each table its own generator
EYE = OpTable("Eye", "opset9", reference=ref_eye, cases=[
    Case("square", [i64(3), i64(3), i64(0)], attrs={"output_type": "f32"}, const=(0, 1, 2)),
    Case("wide-shifted", [i64(2), i64(5), i64(2)], attrs={"output_type": "i8"}, const=(0, 1, 2)),
    Case("tall-negative-diag", [np.array([4], np.int32), np.array([2], np.int32), np.array([-1], np.int32)],
         attrs={"output_type": "i64"}, const=(0, 1, 2)),
    Case("diag-outside", [i64(2), i64(3), i64(5)], attrs={"output_type": "f16"}, const=(0, 1, 2)),
    Case("batch", [i64(2), i64(3), i64(0), i64([2, 1])], attrs={"output_type": "f32"}, const=(0, 1, 2, 3)),
    Case("zero-rows", [i64(0), i64(3), i64(0)], attrs={"output_type": "f32"}, const=(0, 1, 2)),
    Case("diag-param", [i64(3), i64(3), i64(-1)], attrs={"output_type": "f32"}, const=(0, 1)),
], errors=[
    ErrorCase("negative-rows", [i64(-1), i64(3), i64(0)], attrs={"output_type": "f32"}, const=(0, 1, 2), code="bad-value"),
    ErrorCase("rows-two-values", [i64([1, 2]), i64(3), i64(0)], attrs={"output_type": "f32"}, const=(0, 1, 2),
              code="bad-input-rank"),
    ErrorCase("rows-f32", [np.array(2.0, np.float32), i64(3), i64(0)], attrs={"output_type": "f32"}, const=(0, 1, 2),
              code="bad-input-type"),
    ErrorCase("negative-batch", [i64(2), i64(3), i64(0), i64([-2])], attrs={"output_type": "f32"}, const=(0, 1, 2, 3),
              code="bad-value",
              ov=OV_VALUE_UNCHECKED),
    ErrorCase("no-output-type", [i64(2), i64(3), i64(0)], const=(0, 1, 2), code="bad-attribute",
              ov=OV_READS_DEFAULT),
])

TABLES = [BUCKETIZE, UNIQUE, EYE]
test_conformance = conformance(TABLES)
