"""Conformance tables of GatherND, ScatterUpdate, ScatterElementsUpdate and
ScatterNDUpdate: exact, every element type.  The references walk the index
tuples one by one, in order, from the specs."""

from __future__ import annotations

import math
from typing import Any

import ml_dtypes
import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, conformance, i64, random_arrays, table_rng

BF16 = ml_dtypes.bfloat16


def idx(high: int, shape: tuple[int, ...], dtype: Any = np.int64, low: int | None = None) -> np.ndarray:
    return rng.integers(-high if low is None else low, high, shape).astype(dtype)


# ------------------------------------------------------------------ GatherND

def ref_gather_nd(version: int):
    def ref(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
        data, indices = x
        b = int(attrs.get("batch_dims", 0))
        k = indices.shape[-1]
        out = np.empty(indices.shape[:-1] + data.shape[b + k:], data.dtype)
        for pos in np.ndindex(*indices.shape[:-1]):
            tup = tuple(int(v) for v in indices[pos])
            out[pos] = data[pos[:b] + tup]  # negative entries count from the end
        if version == 5 and b:
            out = out.reshape((math.prod(out.shape[:b]),) + out.shape[b:])
        return [out]
    return ref


def gnd_cases() -> list[Case]:
    return [
        Case("elements", [rand((3, 4)), idx(3, (5, 2), low=0)]),
        Case("slices", [rand((3, 4, 2), np.int8), idx(3, (2, 1), np.int32, low=0)]),
        Case("negative", [rand((3, 4), np.float16), idx(3, (2, 2))]),
        Case("batch", [rand((2, 3, 4), BF16), idx(3, (2, 5, 1), low=0)], attrs={"batch_dims": 1}),
        Case("batch2", [rand((2, 3, 4, 2), np.int32), idx(2, (2, 3, 2, 2), low=0)], attrs={"batch_dims": 2}),
        Case("bool", [rand((4, 2), bool), idx(4, (3, 1), low=0)]),
    ]


def gnd_errors() -> list[ErrorCase]:
    return [
        ErrorCase("too-many", [rand((3, 4)), idx(3, (2, 3), low=0)], code="incompatible-inputs"),
        ErrorCase("batch-too-big", [rand((3, 4)), idx(3, (3, 1), low=0)], attrs={"batch_dims": 2}, code="bad-attribute"),
    ]


rng = table_rng("GatherND-8")  # each table its own generator
rand = random_arrays(rng)
GATHERND8 = OpTable("GatherND", "opset8", reference=ref_gather_nd(8), cases=gnd_cases(), errors=gnd_errors())
rng = table_rng("GatherND-5")  # each table its own generator
rand = random_arrays(rng)
GND5_CASES = gnd_cases()
GATHERND5 = OpTable("GatherND", "opset5", reference=ref_gather_nd(5), cases=GND5_CASES[:2] + GND5_CASES[3:5])


# ------------------------------------------------------------- ScatterUpdate

def ref_scatter_update(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, indices, updates, axis = x
    a = int(np.asarray(axis).reshape(-1)[0]) % data.ndim
    out = data.copy()
    for pos in np.ndindex(*indices.shape):
        i = int(indices[pos])
        for lead in np.ndindex(*data.shape[:a]):
            out[lead + (i,)] = updates[lead + pos]
    return [out]


rng = table_rng("ScatterUpdate-3")  # each table its own generator
rand = random_arrays(rng)
SCATTER_UPDATE = OpTable("ScatterUpdate", "opset3", reference=ref_scatter_update, cases=[
    Case("axis0", [rand((4, 3)), i64(2, 0), rand((2, 3)), np.array(0, np.int64)], const=(3,)),
    Case("axis1-2d-indices", [rand((2, 5), np.int16), idx(5, (2, 2), low=0), rand((2, 2, 2), np.int16), i64(-1)], const=(3,)),
    Case("duplicates", [rand((3,), np.float16), i64(1, 1), rand((2,), np.float16), np.array(0, np.int32)], const=(3,)),
    Case("negative", [rand((4, 2), BF16), i64(-1), rand((1, 2), BF16), np.array(0, np.int64)], const=(3,),
         ov="OpenVINO CPU refuses negative indices at run time"),
    Case("scalar-index", [rand((3, 2), bool), np.array(1, np.int32), rand((2,), bool), np.array(0, np.int64)], const=(3,),
         ov="OpenVINO CPU refuses scalar indices"),
], errors=[
    ErrorCase("updates-shape", [rand((4, 3)), i64(2, 0), rand((3, 3)), np.array(0, np.int64)], const=(3,),
              code="incompatible-inputs"),
    ErrorCase("axis", [rand((4, 3)), i64(2, 0), rand((2, 3)), np.array(2, np.int64)], const=(3,), code="axis-out-of-range"),
])


# ------------------------------------------------------ ScatterElementsUpdate

def ref_scatter_elements(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, indices, updates, axis = x
    a = int(axis) % data.ndim
    red = attrs.get("reduction", "none")
    init = attrs.get("use_init_val", True)
    out = data.copy()
    acc: dict[tuple[int, ...], list[Any]] = {}
    for pos in np.ndindex(*indices.shape):
        target = list(pos)
        target[a] = int(indices[pos]) % data.shape[a]
        acc.setdefault(tuple(target), []).append(updates[pos])
    for t, vals in acc.items():
        if red == "none":
            out[t] = vals[-1]
            continue
        items = ([data[t]] if init else []) + vals
        if red == "mean":
            if data.dtype.kind in "iu":
                total = sum(int(v) for v in items)
                out[t] = abs(total) // len(items) * (1 if total >= 0 else -1)  # truncated toward zero
            else:
                out[t] = sum(float(v) for v in items) / len(items)
            continue
        r = items[0]
        for v in items[1:]:
            r = {"sum": lambda p, q: p + q, "prod": lambda p, q: p * q, "min": min, "max": max}[red](r, v)
        out[t] = r
    return [out]


rng = table_rng("ScatterElementsUpdate-3")  # each table its own generator
rand = random_arrays(rng)
SEU3 = OpTable("ScatterElementsUpdate", "opset3", reference=ref_scatter_elements, cases=[
    Case("axis0", [rand((3, 3)), np.array([[1, 0, 2], [0, 2, 1]], np.int64), rand((2, 3)), np.array(0, np.int64)], const=(3,)),
    Case("axis1-negative", [rand((2, 4), np.int32), idx(4, (2, 2), np.int32), rand((2, 2), np.int32), np.array(-1, np.int64)],
         const=(3,)),
    Case("f16", [rand((4,), np.float16), i64(3, 1), rand((2,), np.float16), np.array(0, np.int32)], const=(3,)),
], errors=[ErrorCase("rank", [rand((3, 3)), i64(1, 0), rand((2,)), np.array(0, np.int64)], const=(3,),
                     code="incompatible-inputs")])


def seu12(red: str, init: bool, dtype: Any, cid: str, ov: bool | str = True) -> Case:
    data = rand((3, 4), dtype)
    indices = np.array([[0, 1, 1, 2], [0, 0, 1, 1]], np.int64)  # duplicates along axis 0 in several columns
    return Case(cid, [data, indices, rand((2, 4), dtype), np.array(0, np.int64)],
                attrs={"reduction": red, "use_init_val": init}, const=(3,), ov=ov)


rng = table_rng("ScatterElementsUpdate-12")  # each table its own generator
rand = random_arrays(rng)
SEU12 = OpTable("ScatterElementsUpdate", "opset12", reference=ref_scatter_elements, cases=[
    seu12("none", True, np.float32, "none"),
    seu12("sum", True, np.int32, "sum-i32"),
    seu12("prod", False, np.int16, "prod-no-init"),
    seu12("min", True, np.float32, "min"),
    seu12("max", False, np.int8, "max-no-init"),
    seu12("mean", True, np.int32, "mean-i32"),
    seu12("mean", False, np.float32, "mean-no-init"),
], errors=[ErrorCase("reduction", [rand((3,)), i64(0), rand((1,)), np.array(0, np.int64)],
                     attrs={"reduction": "avg"}, const=(3,), code="bad-attribute")])


# ----------------------------------------------------------- ScatterNDUpdate

def ref_scatter_nd(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, indices, updates = x
    red = attrs.get("reduction", "none")
    out = data.copy()
    ops = {"none": lambda p, q: q, "sum": lambda p, q: p + q, "sub": lambda p, q: p - q, "prod": lambda p, q: p * q,
           "min": np.minimum, "max": np.maximum}
    if out.dtype == bool:
        ops.update({"sum": np.logical_or, "sub": np.logical_xor, "prod": np.logical_and})
    for pos in np.ndindex(*indices.shape[:-1]):
        t = tuple(int(v) for v in indices[pos])
        with np.errstate(over="ignore"):
            out[t] = ops[red](out[t], updates[pos])
    return [out]


def snd_cases() -> list[Case]:
    return [
        Case("spec-example", [rand((8,)), np.array([[4], [3], [1], [7]], np.int64), rand((4,))]),
        Case("slices", [rand((4, 4, 4), np.int32), np.array([[0], [2]], np.int32), rand((2, 4, 4), np.int32)]),
        Case("elements-2d", [rand((3, 4), np.float16), idx(3, (2, 3, 2), low=0), rand((2, 3), np.float16)], const=(1,)),
        Case("duplicates", [rand((5,), BF16), i64(1, 1, 3).reshape(3, 1), rand((3,), BF16)], const=(1,)),
        Case("negative", [rand((4, 2), np.uint8), i64(-1, -4).reshape(2, 1), rand((2, 2), np.uint8)], const=(1,)),
        Case("bool", [rand((3, 2), bool), i64(2, 1).reshape(1, 2), rand((1,), bool)], const=(1,)),
        Case("zero-updates", [rand((3,)), np.zeros((0, 1), np.int64), rand((0,))], const=(1,), ov="OpenVINO CPU refuses empty inputs"),
    ]


def snd_errors() -> list[ErrorCase]:
    return [
        ErrorCase("updates-shape", [rand((4, 3)), i64(1, 2).reshape(2, 1), rand((2, 4))], code="incompatible-inputs"),
        ErrorCase("k-too-big", [rand((4,)), i64(1, 2).reshape(1, 2), rand((1,))], code="incompatible-inputs"),
    ]


rng = table_rng("ScatterNDUpdate-4")  # each table its own generator
rand = random_arrays(rng)
SND3 = OpTable("ScatterNDUpdate", "opset4", reference=ref_scatter_nd, cases=snd_cases(), errors=snd_errors())


def snd15(red: str, dtype: Any, cid: str, ov: bool | str = True) -> Case:
    return Case(cid, [rand((4, 3), dtype), i64(1, 3, 1, 0).reshape(4, 1), rand((4, 3), dtype)],
                attrs={"reduction": red}, const=(1,), ov=ov)


rng = table_rng("ScatterNDUpdate-15")  # each table its own generator
rand = random_arrays(rng)
SND15 = OpTable("ScatterNDUpdate", "opset15", reference=ref_scatter_nd, cases=[
    snd15("none", np.float32, "none"),
    snd15("sum", np.float32, "sum-f32"),
    snd15("sub", np.int32, "sub-i32"),
    snd15("prod", np.int8, "prod-i8-wraps"),
    snd15("min", np.float16, "min-f16"),
    snd15("max", np.int64, "max-i64", ov="OpenVINO CPU narrows i64 to i32"),
    snd15("sum", bool, "sum-bool"),
], errors=snd_errors()[:1])

TABLES = [GATHERND8, GATHERND5, SCATTER_UPDATE, SEU3, SEU12, SND3, SND15]
test_conformance = conformance(TABLES)
