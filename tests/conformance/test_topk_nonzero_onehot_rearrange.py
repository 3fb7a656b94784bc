"""Conformance tables of TopK-1/3/11, NonZero-3, OneHot-1, ConvertLike-1,
Reverse-1, DepthToSpace-1, SpaceToDepth-1, ShuffleChannels-1, Identity-16:
all exact (they select and move values)."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, conformance, table_rng

BF16 = ml_dtypes.bfloat16


def rand(shape: tuple[int, ...], dtype: Any = np.float32, lo: int = -100, hi: int = 100) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return rng.integers(0 if dtype.kind == "u" else lo, hi, shape).astype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    return rng.standard_normal(shape).astype(dtype)


def i64(v: Any) -> np.ndarray:
    return np.array(v, np.int64)


# ------------------------------------------------------------------ TopK


def ref_topk(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    """Per slice: pairs (value, index) ordered as the spec says, ties by index."""
    data, k = x[0], int(x[1])
    axis = attrs["axis"] % data.ndim
    moved = np.moveaxis(data, axis, -1)
    vals = np.empty(moved.shape[:-1] + (k,), data.dtype)
    idxs = np.empty(moved.shape[:-1] + (k,), np.int64)
    for pos in np.ndindex(*moved.shape[:-1]):
        row = [(v, j) for j, v in enumerate(moved[pos].tolist())]
        if attrs["mode"] == "max":  # NaN is larger than every number
            chosen = sorted(row, key=lambda p: (p[0] == p[0], -p[0] if p[0] == p[0] else 0, p[1]))[:k]
        else:
            chosen = sorted(row, key=lambda p: (p[0] != p[0], p[0] if p[0] == p[0] else 0, p[1]))[:k]
        if attrs["sort"] == "index":
            chosen.sort(key=lambda p: p[1])
        idxs[pos] = [j for _, j in chosen]
        vals[pos] = moved[pos][[j for _, j in chosen]]
    itype = np.int64 if attrs.get("index_element_type") == "i64" else np.int32
    return [np.moveaxis(vals, -1, axis), np.moveaxis(idxs, -1, axis).astype(itype)]


def topk_cases(v: int) -> list[Case]:
    ties = np.array([[3, 1, 3, 2, 1, 3], [0, 0, 0, 0, 0, 0]], np.float32)
    cases = [
        Case("max-value", [rand((3, 7)), i64(3)], attrs={"axis": 1, "mode": "max", "sort": "value"}, const=(1,)),
        Case("min-index-axis0", [rand((6, 4), np.int32), np.array(2, np.int32)],
             attrs={"axis": 0, "mode": "min", "sort": "index"}, const=(1,)),
        Case("ties", [ties, i64(4)], attrs={"axis": -1, "mode": "max", "sort": "value"}, const=(1,)),
        Case("ties-min", [ties, i64(3)], attrs={"axis": -1, "mode": "min", "sort": "value"}, const=(1,)),
        Case("i64-indices", [rand((2, 3, 5)), i64(5)],
             attrs={"axis": -1, "mode": "min", "sort": "value", "index_element_type": "i64"}, const=(1,)),
        Case("f16", [rand((4, 5), np.float16), i64(2)], attrs={"axis": 1, "mode": "max", "sort": "index"}, const=(1,)),
        Case("u8", [rand((5, 3), np.uint8), i64(1)], attrs={"axis": 0, "mode": "max", "sort": "value"}, const=(1,)),
        Case("k-runtime", [rand((3, 8)), i64(5)], attrs={"axis": 1, "mode": "max", "sort": "value"}),
        Case("sort-none", [rand((3, 6)), i64(6)], attrs={"axis": 1, "mode": "max", "sort": "none"}, const=(1,)),
        Case("i64-data", [rand((3, 4), np.int64), i64(2)], attrs={"axis": 1, "mode": "min", "sort": "value"},
             const=(1,)),
        Case("bf16", [rand((2, 6), BF16), i64(3)], attrs={"axis": 1, "mode": "max", "sort": "value"}, const=(1,)),
    ]
    cases += [
        Case("many-ties-small-k", [rand((5, 40), np.int32, -3, 3), i64(4)],
             attrs={"axis": 1, "mode": "max" if v != 3 else "min", "sort": "value"}, const=(1,)),
        Case("small-k-axis0", [rand((50, 3)), i64(5)], attrs={"axis": 0, "mode": "min", "sort": "index"}, const=(1,)),
        Case("nan", [np.array([[1, np.nan, 3, np.nan, 2]], np.float32), i64(3)],
             attrs={"axis": 1, "mode": "max" if v != 3 else "min", "sort": "value"}, const=(1,),
             ov="OpenVINO CPU orders NaN arbitrarily; irexec counts it larger than every number"),
        Case("i64-wide", [np.array([[2**40, 5, -2**40, 2**33 + 1]], np.int64), i64(2)],
             attrs={"axis": 1, "mode": "max", "sort": "value"}, const=(1,), ov="OpenVINO CPU narrows i64 to i32"),
    ]
    if v == 11:
        cases.append(Case("stable", [ties, i64(5)], attrs={"axis": 1, "mode": "min", "sort": "value", "stable": True},
                          const=(1,)))
    return cases


def topk_errors() -> list[ErrorCase]:
    return [
        ErrorCase("axis", [rand((2, 3)), i64(1)], attrs={"axis": 2, "mode": "max", "sort": "value"}, const=(1,),
                  code="axis-out-of-range"),
        ErrorCase("k-negative", [rand((2, 3)), i64(-1)], attrs={"axis": 1, "mode": "max", "sort": "value"}, const=(1,),
                  code="bad-value"),
        ErrorCase("k-too-big", [rand((2, 3)), i64(4)], attrs={"axis": 1, "mode": "max", "sort": "value"}, const=(1,),
                  code="bad-value",
              ov="OpenVINO's shape inference passes k through; its CPU plugin refuses k past the dim"),
        ErrorCase("k-1d", [rand((2, 3)), i64([1])], attrs={"axis": 1, "mode": "max", "sort": "value"}, const=(1,),
                  code="bad-input-rank"),
        ErrorCase("scalar-data", [np.float32(1), i64(1)], attrs={"axis": 0, "mode": "max", "sort": "value"}, const=(1,),
                  code="bad-input-rank"),
    ]


TABLES: list[OpTable] = []
for _v in (1, 3, 11):
    rng = table_rng(f"TopK-{_v}")  # each table its own generator
    TABLES.append(OpTable("TopK", f"opset{_v}", cases=topk_cases(_v), reference=ref_topk, errors=topk_errors()))


# --------------------------------------------------------------- NonZero


def ref_nonzero(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data = x[0]
    shaped = data.reshape(1) if data.ndim == 0 else data
    found = [pos for pos in np.ndindex(*shaped.shape) if float(shaped[pos]) != 0.0]
    out = np.array(found, np.int64).reshape(len(found), shaped.ndim).T
    return [out.astype(np.int32 if attrs.get("output_type") == "i32" else np.int64)]


def sparse(shape: tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    return (rand(shape, np.float32) * (rng.random(shape) < 0.4)).astype(dtype)


rng = table_rng("NonZero-3")  # each table its own generator
TABLES.append(OpTable("NonZero", "opset3", reference=ref_nonzero, cases=[
    Case("f32", [sparse((3, 4))]),
    Case("i32-out", [sparse((2, 3, 4), np.int32)], attrs={"output_type": "i32"}),
    Case("bool", [rand((5,), bool)]),
    Case("f16-signed-zero-nan", [np.array([0.0, -0.0, np.nan, 1.0, 0.0], np.float16)]),
    Case("bf16", [sparse((4, 2), BF16)]),
    Case("u8-all-zero", [np.zeros((2, 3), np.uint8)]),
    Case("i64", [sparse((6,), np.int64)]),
    Case("zero-size", [np.zeros((0, 3), np.float32)], ov="OpenVINO CPU refuses a zero-size input"),
    Case("scalar", [np.float32(2.5)], ov_shapes="OpenVINO infers [?,?] for a scalar, irexec [1,..1]"),
    Case("spec-example", [np.array([[1, 0], [0, 1]], np.int32)],
         expect=[np.array([[0, 1], [0, 1]], np.int64)]),
], errors=[ErrorCase("output-type", [rand((3,))], attrs={"output_type": "f32"}, code="bad-attribute")]))


# ---------------------------------------------------------------- OneHot


def ref_onehot(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    indices, depth, on, off = x[0], int(np.reshape(x[1], -1)[0]), x[2], x[3]
    axis = attrs["axis"] % (indices.ndim + 1)
    out = np.empty(indices.shape + (depth,), on.dtype)
    for pos in np.ndindex(*indices.shape):
        for j in range(depth):
            out[pos + (j,)] = on if int(indices[pos]) == j else off
    return [np.moveaxis(out, -1, axis)]


ON, OFF = np.float32(2.5), np.float32(-1.0)
rng = table_rng("OneHot-1")  # each table its own generator
TABLES.append(OpTable("OneHot", "opset1", reference=ref_onehot, cases=[
    Case("last-axis", [np.array([0, 2, 1, 3], np.int64), i64(4), ON, OFF], attrs={"axis": -1}, const=(1, 2, 3)),
    Case("axis0-i32", [rand((2, 3), np.int32, 0, 5), np.array(5, np.int32), np.int32(7), np.int32(0)],
         attrs={"axis": 0}, const=(1, 2, 3)),
    Case("out-of-range", [np.array([[-1, 5], [4, 0]], np.int32), i64(5), ON, OFF], attrs={"axis": 1},
         const=(1, 2, 3)),
    Case("f16", [np.array([1, 0], np.int64), i64(2), np.float16(1), np.float16(0)], attrs={"axis": -1},
         const=(1, 2, 3)),
    Case("bool", [np.array([2, 0, 1], np.int64), i64(3), np.bool_(True), np.bool_(False)], attrs={"axis": -2},
         const=(1, 2, 3)),
    Case("depth-runtime", [np.array([[1, 3]], np.int32), i64(4), ON, OFF], attrs={"axis": 1}, const=(2, 3)),
    Case("on-off-runtime", [np.array([0, 1, 2], np.int64), i64(3), ON, OFF], attrs={"axis": 0}, const=(1,)),
    Case("depth-0", [np.array([1, 0], np.int64), i64(0), ON, OFF], attrs={"axis": -1}, const=(1, 2, 3),
         ov="OpenVINO CPU refuses a zero-size output"),
    Case("spec-example", [np.array([0, 3, 1, 2], np.int64), i64(3), np.int64(1), np.int64(0)], attrs={"axis": -1},
         const=(1, 2, 3),
         expect=[np.array([[1, 0, 0], [0, 0, 0], [0, 1, 0], [0, 0, 1]], np.int64)]),
], errors=[
    ErrorCase("axis", [np.array([0, 1], np.int64), i64(3), ON, OFF], attrs={"axis": 2}, const=(1, 2, 3),
              code="axis-out-of-range"),
    ErrorCase("depth-negative", [np.array([0, 1], np.int64), i64(-3), ON, OFF], attrs={"axis": 1}, const=(1, 2, 3),
              code="bad-value"),
    ErrorCase("on-off-types", [np.array([0, 1], np.int64), i64(3), ON, np.int32(0)], attrs={"axis": 1},
              const=(1, 2, 3), code="bad-input-type"),
    ErrorCase("depth-1d", [np.array([1, 0], np.int64), i64([2]), ON, OFF], attrs={"axis": -1}, const=(1, 2, 3),
              code="bad-input-rank"),
    ErrorCase("float-indices", [np.array([0, 1], np.float32), i64(3), ON, OFF], attrs={"axis": 1}, const=(1, 2, 3),
              code="bad-input-type"),
    ErrorCase("on-not-scalar", [np.array([0, 1], np.int64), i64(3), np.ones(2, np.float32), OFF], attrs={"axis": 1},
              const=(1, 2, 3), code="bad-input-rank"),
]))


# ----------------------------------------------------------- ConvertLike


def ref_convert_like(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, like = x
    if data.dtype.kind == "f" and like.dtype.kind in "iu":
        bits = like.dtype.itemsize * 8
        t = np.nan_to_num(np.trunc(data.astype(np.float64)), nan=0.0, posinf=0.0, neginf=0.0)
        return [np.array([int(v) % (1 << bits) for v in t.reshape(-1)], np.uint64).astype(like.dtype).reshape(data.shape)]
    return [data.astype(like.dtype)]


rng = table_rng("ConvertLike-1")  # each table its own generator
TABLES.append(OpTable("ConvertLike", "opset1", reference=ref_convert_like, cases=[
    Case("f32-to-f16", [rand((3, 4)), np.zeros((1,), np.float16)]),
    Case("f32-to-i32", [rand((5,)) * 100, np.zeros((2, 2), np.int32)], const=(1,)),
    Case("i32-to-f32", [rand((2, 3), np.int32), np.zeros((), np.float32)]),
    Case("f32-to-bf16", [rand((4,)), np.zeros((1,), BF16)], ov="OpenVINO CPU truncates f32 to bf16; irexec rounds to nearest even"),
    Case("u8-to-i8", [np.arange(250, 256, dtype=np.uint8), np.zeros((1,), np.int8)]),
    Case("to-bool", [np.array([0.0, -0.0, 2.0, 0.5], np.float32), np.zeros((1,), bool)]),
    Case("nan-to-bool", [np.array([np.nan, 1.0], np.float32), np.zeros((1,), bool)],
         ov="OpenVINO CPU converts NaN to false; irexec to true (NaN != 0), as Convert does"),
    Case("zero-size", [np.zeros((0, 2), np.float32), np.zeros((1,), np.int64)],
         ov="OpenVINO CPU refuses a zero-size input"),
]))

test_conformance = conformance(TABLES)


# --------------------------------------------------------------- Reverse


def ref_reverse(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, axis = x
    if attrs["mode"] == "mask":
        flipped = {a for a, on in enumerate(axis.tolist()) if on}
    else:
        flipped = {int(a) % data.ndim for a in axis.tolist()}
    out = np.empty_like(data)
    for pos in np.ndindex(*data.shape):
        out[pos] = data[tuple(data.shape[a] - 1 - p if a in flipped else p for a, p in enumerate(pos))]
    return [out]


rng = table_rng("Reverse-1")  # each table its own generator
TABLES.append(OpTable("Reverse", "opset1", reference=ref_reverse, cases=[
    Case("index", [rand((3, 4, 2)), i64([0, 2])], attrs={"mode": "index"}, const=(1,)),
    Case("index-negative-i32", [rand((2, 5), np.int32), np.array([-1], np.int32)], attrs={"mode": "index"}, const=(1,)),
    Case("mask", [rand((3, 4), np.uint8), np.array([False, True])], attrs={"mode": "mask"}, const=(1,)),
    Case("mask-all", [rand((2, 3, 2), np.float16), np.array([True, True, True])], attrs={"mode": "mask"}, const=(1,)),
    Case("empty-axes", [rand((4,)), np.zeros((0,), np.int64)], attrs={"mode": "index"}, const=(1,)),
    Case("repeated-axis", [rand((3, 2)), i64([0, 0])], attrs={"mode": "index"}, const=(1,)),
    Case("bf16", [rand((2, 3), BF16), i64([1])], attrs={"mode": "index"}, const=(1,)),
    Case("bool", [rand((5,), bool), i64([0])], attrs={"mode": "index"}, const=(1,)),
    Case("axes-runtime", [rand((3, 3)), i64([1])], attrs={"mode": "index"}),
    Case("zero-size", [np.zeros((0, 3), np.float32), i64([1])], attrs={"mode": "index"}, const=(1,),
         ov="OpenVINO CPU refuses a zero-size input"),
], errors=[
    ErrorCase("axis-range", [rand((2, 3)), i64([2])], attrs={"mode": "index"}, const=(1,), code="axis-out-of-range"),
    ErrorCase("mask-length", [rand((2, 3)), np.array([True])], attrs={"mode": "mask"}, const=(1,),
              code="incompatible-inputs"),
    ErrorCase("mask-type", [rand((2, 3)), i64([1, 0])], attrs={"mode": "mask"}, const=(1,), code="bad-input-type"),
    ErrorCase("index-type", [rand((2, 3)), np.array([True, False])], attrs={"mode": "index"}, const=(1,),
              code="bad-input-type"),
    ErrorCase("mode", [rand((2, 3)), i64([1])], attrs={"mode": "axes"}, const=(1,), code="bad-attribute"),
]))


# ------------------------------------------------ DepthToSpace, SpaceToDepth


def _block_offsets(bs: int, k: int) -> list[tuple[int, ...]]:
    return list(np.ndindex(*([bs] * k)))


def ref_depth_to_space(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data = x[0]
    bs = attrs.get("block_size", 1)
    n, c, *space = data.shape
    k = len(space)
    cc = c // bs**k
    out = np.empty((n, cc, *(d * bs for d in space)), data.dtype)
    for pos in np.ndindex(*out.shape):
        b, rest = pos[0], pos[2:]
        block = tuple(p % bs for p in rest)
        flat = int(np.ravel_multi_index(block, (bs,) * k)) if k else 0
        src_c = flat * cc + pos[1] if attrs["mode"] == "blocks_first" else pos[1] * bs**k + flat
        out[pos] = data[(b, src_c) + tuple(p // bs for p in rest)]
    return [out]


def ref_space_to_depth(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data = x[0]
    bs = attrs.get("block_size", 1)
    n, c, *space = data.shape
    k = len(space)
    out = np.empty((n, c * bs**k, *(d // bs for d in space)), data.dtype)
    for pos in np.ndindex(*data.shape):
        rest = pos[2:]
        block = tuple(p % bs for p in rest)
        flat = int(np.ravel_multi_index(block, (bs,) * k)) if k else 0
        dst_c = flat * c + pos[1] if attrs["mode"] == "blocks_first" else pos[1] * bs**k + flat
        out[(pos[0], dst_c) + tuple(p // bs for p in rest)] = data[pos]
    return [out]


def block_cases(to_space: bool) -> list[Case]:
    def shp(c: int, *space: int, bs: int) -> tuple[int, ...]:
        return (1, c * bs ** len(space), *space) if to_space else (1, c, *(d * bs for d in space))

    return [
        Case("bf-2d", [rand(shp(3, 2, 3, bs=2))], attrs={"mode": "blocks_first", "block_size": 2}),
        Case("df-2d", [rand(shp(3, 2, 3, bs=2), np.int32)], attrs={"mode": "depth_first", "block_size": 2}),
        Case("bf-1d", [rand(shp(2, 4, bs=3), np.uint8)], attrs={"mode": "blocks_first", "block_size": 3}),
        Case("df-3d", [rand(shp(1, 2, 1, 2, bs=2), np.float16)], attrs={"mode": "depth_first", "block_size": 2}),
        Case("bs1", [rand(shp(4, 2, 2, bs=1))], attrs={"mode": "depth_first", "block_size": 1}),
        Case("default-block-size", [rand(shp(2, 3, bs=1))], attrs={"mode": "blocks_first"},
             ov="OpenVINO reads a missing block_size as 0 and refuses it; the spec's default is 1",
             ov_shapes="OpenVINO reads a missing block_size as 0 and refuses it; the spec's default is 1"),
        Case("bf16-batch2", [np.concatenate([rand(shp(2, 2, 1, bs=2), BF16)] * 2)],
             attrs={"mode": "blocks_first", "block_size": 2}),
        Case("i64", [rand(shp(1, 1, 2, bs=2), np.int64)], attrs={"mode": "depth_first", "block_size": 2}),
    ]


BLOCK_ERRORS = [
    ErrorCase("rank2", [rand((4, 4))], attrs={"mode": "blocks_first", "block_size": 2}, code="bad-input-rank"),
    ErrorCase("block-0", [rand((1, 4, 2, 2))], attrs={"mode": "blocks_first", "block_size": 0}, code="bad-attribute"),
    ErrorCase("mode", [rand((1, 4, 2, 2))], attrs={"mode": "first", "block_size": 2}, code="bad-attribute"),
]
rng = table_rng("DepthToSpace-1")  # each table its own generator
TABLES.append(OpTable("DepthToSpace", "opset1", reference=ref_depth_to_space, cases=block_cases(True), errors=[
    *BLOCK_ERRORS,
    ErrorCase("channels", [rand((1, 6, 2, 2))], attrs={"mode": "blocks_first", "block_size": 2}, code="incompatible-inputs")]))
rng = table_rng("SpaceToDepth-1")  # each table its own generator
TABLES.append(OpTable("SpaceToDepth", "opset1", reference=ref_space_to_depth, cases=block_cases(False), errors=[
    *BLOCK_ERRORS,
    ErrorCase("spatial", [rand((1, 2, 3, 2))], attrs={"mode": "blocks_first", "block_size": 2}, code="incompatible-inputs")]))


# -------------------------------------------------------- ShuffleChannels


def ref_shuffle(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data = x[0]
    axis, group = attrs.get("axis", 1) % data.ndim, attrs.get("group", 1)
    n = data.shape[axis]
    out = np.empty_like(data)
    for pos in np.ndindex(*data.shape):
        i = pos[axis]
        src = (i % group) * (n // group) + i // group  # output i = j * group + g reads input g * (n/group) + j
        out[pos] = data[pos[:axis] + (src,) + pos[axis + 1 :]]
    return [out]


rng = table_rng("ShuffleChannels-3")  # each table its own generator
TABLES.append(OpTable("ShuffleChannels", "opset3", reference=ref_shuffle, cases=[
    Case("default", [rand((1, 6, 2))], attrs={"group": 3}),
    Case("axis-neg", [rand((2, 3, 8), np.int32)], attrs={"axis": -1, "group": 4}),
    Case("axis0-1d", [rand((6,), np.uint8)], attrs={"axis": 0, "group": 2}),
    Case("group1", [rand((2, 4), np.float16)], attrs={"axis": 1, "group": 1}),
    Case("group-all", [rand((1, 5, 1, 2), BF16)], attrs={"axis": 1, "group": 5}),
    Case("i64", [rand((1, 4, 2), np.int64)], attrs={"group": 2}),
], errors=[
    ErrorCase("group", [rand((1, 5, 2))], attrs={"group": 2}, code="incompatible-inputs"),
    ErrorCase("axis", [rand((1, 4))], attrs={"axis": 2, "group": 2}, code="axis-out-of-range"),
    ErrorCase("scalar", [np.float32(1)], attrs={"axis": 0}, code="bad-input-rank"),
    ErrorCase("group-0", [rand((1, 4))], attrs={"group": 0}, code="bad-attribute"),
]))


# --------------------------------------------------------------- Identity


rng = table_rng("Identity-16")  # each table its own generator
TABLES.append(OpTable("Identity", "opset16", reference=lambda x, attrs: [x[0].copy()], cases=[
    Case("f32", [rand((2, 3))]),
    Case("i8-scalar", [np.int8(-5)]),
    Case("bool", [rand((4,), bool)]),
    Case("bf16", [rand((3, 1), BF16)]),
    Case("f16-signed-zero", [np.array([-0.0, 0.0, np.inf], np.float16)]),
]))
