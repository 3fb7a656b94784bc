"""Conformance tables of ReduceSum-1, ReduceProd-1, ReduceMean-1, ReduceMax-1,
ReduceMin-1, ReduceL1-4, ReduceL2-4, ReduceLogicalAnd-1 and ReduceLogicalOr-1."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, Tol, conformance, table_rng
from conformance.matmul.references import F32_ACC
from conformance.reduction.references import ref_max, ref_min

TABLES: list[OpTable] = []

I64_CPU = "OpenVINO CPU narrows i64 to i32"


def rand(shape: tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        return rng.integers(0 if dtype.kind == "u" else -9, 9, shape, endpoint=True).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def reducer(fn: Any, *, exact: bool = False) -> Any:
    def ref(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
        data, axes = x
        rank = data.ndim
        ax = tuple(sorted({int(a) % rank for a in np.asarray(axes).reshape(-1).tolist()})) if rank else ()
        wide = data if exact or data.dtype.kind in "iub" else data.astype(np.float64)
        with np.errstate(all="ignore"):
            out = fn(wide, ax)
        out = np.asarray(out)
        if attrs.get("keep_dims"):
            out = np.expand_dims(out, ax) if ax else out
        return [out.astype(data.dtype)]
    return ref


def int_mean(d: np.ndarray, ax: tuple[int, ...]) -> np.ndarray:
    if d.dtype.kind in "iu":
        count = math.prod(d.shape[a] for a in ax)
        total = np.sum(d.astype(object), axis=ax)
        return np.vectorize(lambda t: int(t / count) if count else 0, otypes=[object])(total)  # truncates toward 0
    return np.mean(d, axis=ax) if math.prod(d.shape[a] for a in ax) else np.sum(d, axis=ax) / 0.0


def reduce_table(op: str, fn: Any, opset: str = "opset1", *, tol: Tol = F32_ACC, exact: bool = False,
                 types: tuple[Any, ...] = (np.float32, np.int32, np.float16), extra: list[Case] | None = None,
                 zero_ov: bool | str = True) -> OpTable:
    ax = np.array
    cases = [
        Case("last-keep", [rand((2, 3, 4), types[0]), ax([-1], np.int64)], attrs={"keep_dims": True}, const=(1,)),
        Case("two-axes", [rand((2, 3, 4), types[0]), ax([0, 2], np.int32)], const=(1,)),
        Case("scalar-axis", [rand((3, 5), types[1]), ax(0, np.int64)], const=(1,),
             ov=I64_CPU if np.dtype(types[1]) == np.int64 else True),
        Case("all-axes", [rand((2, 3), types[2]), ax([1, 0], np.int64)], const=(1,)),
        Case("empty-axes", [rand((2, 3), types[0]), np.zeros((0,), np.int64)], const=(1,),
             ov="OpenVINO CPU refuses empty axes without keep_dims"),
        Case("zero-size-kept", [rand((0, 3), types[0]), ax([1], np.int64)], const=(1,)),
        Case("zero-size-reduced", [rand((2, 0), types[0]), ax([1], np.int64)], attrs={"keep_dims": True}, const=(1,),
             ov=zero_ov),
    ]
    for c in cases[2:]:
        c.ov_shapes = "same shape inference as the first cases"
    return OpTable(op, opset, reference=reducer(fn, exact=exact), tol=tol, cases=cases + (extra or []), errors=[
        ErrorCase("axis-out-of-range", [rand((2, 3), types[0]), ax([2], np.int64)], const=(1,), code="axis-out-of-range"),
        ErrorCase("float-axes", [rand((2, 3), types[0]), ax([1.0], np.float32)], const=(1,), code="bad-input-type"),
    ])


EMPTY_OV = "OpenVINO CPU returns 0 for a reduction over a zero-size dim"


rng = table_rng("ReduceSum-1")  # each table its own generator
TABLES.append(reduce_table("ReduceSum", lambda d, a: np.sum(d, axis=a)))


rng = table_rng("ReduceProd-1")  # each table its own generator
TABLES.append(reduce_table("ReduceProd", lambda d, a: np.prod(d, axis=a)))


rng = table_rng("ReduceMean-1")  # each table its own generator
TABLES.append(reduce_table("ReduceMean", int_mean, zero_ov=EMPTY_OV))


rng = table_rng("ReduceMax-1")  # each table its own generator
TABLES.append(reduce_table("ReduceMax", ref_max, tol=Tol.EXACT, exact=True, zero_ov=EMPTY_OV))


rng = table_rng("ReduceMin-1")  # each table its own generator
TABLES.append(reduce_table("ReduceMin", ref_min, tol=Tol.EXACT, exact=True, zero_ov=EMPTY_OV, extra=[
    # ONNX's test_reduce_min_empty_set: axes known only at run time, where OpenVINO CPU runs its reference (+inf)
    Case("onnx-empty-set-runtime-axes", [rand((2, 0, 4)), np.array([1], np.int64)], attrs={"keep_dims": True}),
]))


rng = table_rng("ReduceL1-4")  # each table its own generator
TABLES.append(reduce_table("ReduceL1", lambda d, a: np.sum(np.abs(d), axis=a), "opset4"))


rng = table_rng("ReduceL2-4")  # each table its own generator
TABLES.append(reduce_table("ReduceL2", lambda d, a: np.sqrt(np.sum(d.astype(np.float64) ** 2, axis=a)), "opset4",
             types=(np.float32, np.float32, np.float16)))


rng = table_rng("ReduceLogicalAnd-1")  # each table its own generator
TABLES.append(reduce_table("ReduceLogicalAnd", lambda d, a: np.all(d, axis=a), tol=Tol.EXACT, types=(bool, bool, bool)))


rng = table_rng("ReduceLogicalOr-1")  # each table its own generator
TABLES.append(reduce_table("ReduceLogicalOr", lambda d, a: np.any(d, axis=a), tol=Tol.EXACT, types=(bool, bool, bool)))

test_conformance = conformance(TABLES)
