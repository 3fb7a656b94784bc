"""Conformance tables of the shape and data-movement ops: ShapeOf, Reshape,
Squeeze, Unsqueeze, Range, Broadcast, Transpose, Slice, VariadicSplit,
GatherElements and Select.  Every one is exact: the references are NumPy
written from the specs."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, conformance, i64, random_arrays, table_rng

BF16 = ml_dtypes.bfloat16


# ------------------------------------------------------------------ ShapeOf

def ref_shapeof(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    return [np.array(x[0].shape, np.int32 if attrs.get("output_type") == "i32" else np.int64)]


rng = table_rng("ShapeOf-3")  # each table its own generator
rand = random_arrays(rng)
SHAPEOF3 = OpTable("ShapeOf", "opset3", reference=ref_shapeof, cases=[
    Case("f32-i64", [rand((2, 3, 4))], attrs={"output_type": "i64"}),
    Case("i8-i32", [rand((5, 1), np.int8)], attrs={"output_type": "i32"}),
    Case("scalar", [np.array(1.5, np.float32)], attrs={"output_type": "i64"}),
    Case("zero-size", [rand((0, 3), np.float16)], attrs={"output_type": "i32"}),
    Case("boolean", [rand((4,), bool)], attrs={"output_type": "i64"}),
], errors=[ErrorCase("bad-type", [rand((2,))], attrs={"output_type": "f32"}, code="bad-attribute")])

rng = table_rng("ShapeOf-1")  # each table its own generator
rand = random_arrays(rng)
SHAPEOF1 = OpTable("ShapeOf", "opset1", reference=ref_shapeof, cases=[
    Case("bf16", [rand((2, 7), BF16)]),
    Case("u64-rank4", [rand((1, 2, 1, 3), np.uint64)]),
])


# ------------------------------------------------------------------ Reshape

def ref_reshape(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, pattern = x
    target = [int(v) for v in np.asarray(pattern).reshape(-1)]
    if attrs["special_zero"]:
        target = [data.shape[i] if v == 0 else v for i, v in enumerate(target)]
    if np.asarray(pattern).ndim == 0:
        target = []
    return [data.reshape(target)]


rng = table_rng("Reshape-1")  # each table its own generator
rand = random_arrays(rng)
RESHAPE = OpTable("Reshape", "opset1", reference=ref_reshape, cases=[
    Case("spec-example", [rand((2, 5, 5, 0)), i64(0, 4)], attrs={"special_zero": False}, const=(1,),
         ov="OpenVINO CPU refuses a zero-size input"),
    Case("minus-one", [rand((2, 3, 4)), i64(-1, 4)], attrs={"special_zero": False}, const=(1,)),
    Case("special-zero", [rand((2, 3, 64), np.float16), i64(0, 0, 4, -1)], attrs={"special_zero": True}, const=(1,)),
    Case("zero-is-zero", [rand((0, 3), np.int32), i64(0, 5)], attrs={"special_zero": False}, const=(1,),
         ov="OpenVINO CPU refuses a zero-size input"),
    Case("to-scalar", [rand((1, 1), np.int64), np.zeros(0, np.int64)], attrs={"special_zero": False}, const=(1,)),
    Case("from-scalar", [np.array(3, np.uint8), i64(1, 1, 1)], attrs={"special_zero": False}, const=(1,)),
    Case("i32-pattern-bf16", [rand((6, 2), BF16), np.array([3, -1, 2], np.int32)], attrs={"special_zero": True}, const=(1,)),
    Case("flatten", [rand((2, 3, 4), bool), i64(-1)], attrs={"special_zero": False}, const=(1,)),
], errors=[
    ErrorCase("two-minus-one", [rand((2, 3)), i64(-1, -1)], attrs={"special_zero": False}, const=(1,), code="bad-value"),
    ErrorCase("count", [rand((2, 3)), i64(4, 2)], attrs={"special_zero": False}, const=(1,), code="incompatible-inputs"),
    ErrorCase("indivisible", [rand((2, 3)), i64(4, -1)], attrs={"special_zero": False}, const=(1,), code="incompatible-inputs"),
    ErrorCase("negative", [rand((2, 3)), i64(-2, 3)], attrs={"special_zero": False}, const=(1,), code="bad-value"),
    ErrorCase("zero-out-of-range", [rand((6,)), i64(1, 0)], attrs={"special_zero": True}, const=(1,), code="bad-value"),
    ErrorCase("scalar-pattern", [rand((1,)), np.array(1, np.int64)], attrs={"special_zero": False}, const=(1,),
              code="bad-input-rank"),
    ErrorCase("float-pattern", [rand((6,)), np.array([6.0], np.float32)], attrs={"special_zero": True}, const=(1,),
              code="bad-input-type"),
])


# ------------------------------------------------------------ Squeeze/Unsqueeze

def ref_squeeze(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    if len(x) == 1 or np.asarray(x[1]).size == 0:
        return [np.squeeze(x[0])]
    # a named axis whose dim is not 1 is kept, as OpenVINO does
    return [np.squeeze(x[0], axis=tuple(int(a) for a in np.asarray(x[1]).reshape(-1) if x[0].shape[int(a)] == 1))]


rng = table_rng("Squeeze-1")  # each table its own generator
rand = random_arrays(rng)
SQUEEZE1 = OpTable("Squeeze", "opset1", reference=ref_squeeze, cases=[
    Case("axes", [rand((1, 3, 1, 2)), i64(0, 2)], const=(1,)),
    Case("negative-axis", [rand((2, 1), np.int8), np.array(-1, np.int64)], const=(1,)),
    Case("no-axes", [rand((1, 3, 1), np.uint16)]),
    Case("empty-axes", [rand((1, 2, 1), BF16), np.zeros(0, np.int64)], const=(1,)),
    Case("to-scalar", [rand((1,), np.float64), i64(0)], const=(1,), ov="OpenVINO CPU rounds f64 data to f32"),
    Case("zero-size", [rand((0, 1)), np.array([1], np.int32)], const=(1,), ov="OpenVINO CPU refuses a zero-size input"),
    Case("not-one-kept", [rand((2, 3)), i64(0)], const=(1,)),
    Case("not-one-kept-among", [rand((1, 3, 1)), i64(0, 1)], const=(1,)),
    Case("real-axes", [rand((1, 1, 3)), np.array([0.7, -1.5], np.float32)], const=(1,)),
], errors=[
    ErrorCase("axis-range", [rand((1, 3)), i64(2)], const=(1,), code="axis-out-of-range"),
])

rng = table_rng("Squeeze-15")  # each table its own generator
rand = random_arrays(rng)
SQUEEZE15 = OpTable("Squeeze", "opset15", reference=None, cases=[
    Case("skip", [rand((1, 3, 1)), i64(0, 1)], attrs={"allow_axis_skip": True}, const=(1,),
         expect=None),
    Case("no-skip", [rand((1, 3, 1), np.int32), i64(-1)], attrs={"allow_axis_skip": False}, const=(1,)),
    Case("no-skip-not-one-kept", [rand((1, 3, 1)), i64(0, 1)], attrs={"allow_axis_skip": False}, const=(1,)),
])
SQUEEZE15.reference = lambda x, a: [np.squeeze(x[0], axis=tuple(
    int(v) for v in np.asarray(x[1]).reshape(-1) if x[0].shape[int(v)] == 1))]


def ref_unsqueeze(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    raw = [int(a) for a in np.asarray(x[1]).reshape(-1)]
    rank = x[0].ndim + len(set(raw))  # a repeated axis inserts one dim, as OpenVINO does
    return [np.expand_dims(x[0], tuple(sorted({a % rank for a in raw})))]


rng = table_rng("Unsqueeze-1")  # each table its own generator
rand = random_arrays(rng)
UNSQUEEZE = OpTable("Unsqueeze", "opset1", reference=ref_unsqueeze, cases=[
    Case("spec-example", [rand((2, 3)), i64(0, 3)], const=(1,)),
    Case("scalar", [np.array(7, np.int64), np.array(0, np.int64)], const=(1,)),
    Case("negative", [rand((2, 3), np.float16), i64(-1, 1)], const=(1,)),
    Case("bool", [rand((4,), bool), np.array([1], np.int32)], const=(1,)),
    Case("zero-size", [rand((0,)), i64(0)], const=(1,), ov="OpenVINO CPU refuses a zero-size input"),
    Case("repeated", [rand((2,)), i64(0, 0)], const=(1,)),
    Case("repeated-negative", [rand((3,)), i64(-1, -1, 0)], const=(1,)),
    Case("same-after-normalising", [rand((3,)), i64(0, -2)], const=(1,)),
    Case("real-axes", [rand((3,)), np.array([1.9, -0.5], np.float32)], const=(1,)),
], errors=[
    ErrorCase("range", [rand((2,)), i64(3)], const=(1,), code="axis-out-of-range"),
])


# -------------------------------------------------------------------- Range

_NP = {"f32": np.float32, "f16": np.float16, "i32": np.int32, "i64": np.int64, "u8": np.uint8, "bf16": BF16,
       "f64": np.float64, "i8": np.int8}


def ref_range(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    t = np.dtype(_NP[attrs["output_type"]]) if "output_type" in attrs else x[0].dtype
    start, stop, step = (float(np.asarray(v)) for v in x)
    if t.kind in "iu":
        start, stop, step = (float(np.trunc(v)) for v in (start, stop, step))
        n = max(int(np.ceil((stop - start) / step)), 0)
        return [(int(start) + int(step) * np.arange(n, dtype=np.int64)).astype(t)]
    n = max(int(np.ceil((stop - start) / step)), 0)
    s, d = np.asarray(start).astype(t), np.asarray(step).astype(t)
    return [(s + np.arange(n).astype(t) * d).astype(t)]  # T(i) * step, + start, each rounded in T


rng = table_rng("Range-4")  # each table its own generator
rand = random_arrays(rng)
RANGE4 = OpTable("Range", "opset4", reference=ref_range, cases=[
    Case("i64", [i64(0).reshape(()), i64(10).reshape(()), i64(3).reshape(())], attrs={"output_type": "i64"}, const=(0, 1, 2)),
    Case("f32-step", [np.array(1.0, np.float32), np.array(2.0, np.float32), np.array(0.1, np.float32)],
         attrs={"output_type": "f32"}, const=(0, 1, 2)),
    Case("negative-step", [np.array(5, np.int32), np.array(-3, np.int32), np.array(-2, np.int32)],
         attrs={"output_type": "i32"}, const=(0, 1, 2)),
    Case("empty", [np.array(5, np.int64), np.array(1, np.int64), np.array(1, np.int64)], attrs={"output_type": "i64"},
         const=(0, 1, 2), ov="OpenVINO CPU refuses an empty output"),
    Case("float-to-int", [np.array(0.5, np.float32), np.array(4.7, np.float32), np.array(1.5, np.float32)],
         attrs={"output_type": "i32"}, const=(0, 1, 2)),
    Case("f16", [np.array(-1, np.int64), np.array(1, np.int64), np.array(0.25, np.float32)],
         attrs={"output_type": "f16"}, const=(0, 1, 2)),
], errors=[
    ErrorCase("zero-step", [np.array(0, np.int64), np.array(3, np.int64), np.array(0, np.int64)],
              attrs={"output_type": "i64"}, const=(0, 1, 2), code="bad-value"),
    ErrorCase("not-scalar", [i64(0), np.array(3, np.int64), np.array(1, np.int64)],
              attrs={"output_type": "i64"}, const=(0, 1, 2), code="bad-input-rank"),
])

rng = table_rng("Range-1")  # each table its own generator
rand = random_arrays(rng)
RANGE1 = OpTable("Range", "opset1", reference=ref_range, cases=[
    Case("i32", [np.array(2, np.int32), np.array(11, np.int32), np.array(3, np.int32)], const=(0, 1, 2)),
    Case("f32", [np.array(0, np.float32), np.array(1, np.float32), np.array(0.3, np.float32)], const=(0, 1, 2)),
], errors=[ErrorCase("types-differ", [np.array(0, np.int32), np.array(3, np.int64), np.array(1, np.int32)],
                     const=(0, 1, 2), code="bad-input-type")])


# ---------------------------------------------------------------- Broadcast

def ref_broadcast(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, target = x[0], [int(v) for v in x[1]]
    mode = attrs.get("mode", "numpy")
    if mode == "bidirectional":
        return [data * np.ones(target, data.dtype) if data.dtype != bool else np.logical_and(data, np.ones(target, bool))]
    if mode == "explicit":
        view = [1] * len(target)
        for k, a in enumerate(x[2]):
            view[int(a)] = data.shape[k]
        data = data.reshape(view)
    return [np.broadcast_to(data, target).copy()]


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


# ---------------------------------------------------------------- Transpose

def ref_transpose(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    order = [int(v) for v in x[1]]
    return [np.transpose(x[0], order or None).copy()]


rng = table_rng("Transpose-1")  # each table its own generator
rand = random_arrays(rng)
TRANSPOSE = OpTable("Transpose", "opset1", reference=ref_transpose, cases=[
    Case("f32", [rand((2, 3, 4)), i64(2, 0, 1)], const=(1,)),
    Case("empty-order", [rand((2, 3, 4), np.int16), np.zeros(0, np.int64)], const=(1,),
         ov_shapes="OpenVINO infers a scalar for data of dynamic rank with an empty order"),
    Case("i32-order", [rand((5, 2), BF16), np.array([1, 0], np.int32)], const=(1,)),
    Case("rank-1", [rand((3,), bool), i64(0)], const=(1,)),
    Case("u64", [rand((2, 1, 3), np.uint64), i64(1, 2, 0)], const=(1,), ov="OpenVINO CPU narrows u64 to i32"),
    Case("zero-size", [rand((0, 2)), i64(1, 0)], const=(1,), ov="OpenVINO CPU refuses a zero-size input"),
], errors=[
    ErrorCase("not-permutation", [rand((2, 3)), i64(0, 0)], const=(1,), code="bad-value"),
    ErrorCase("wrong-length", [rand((2, 3)), i64(0, 1, 2)], const=(1,), code="bad-value"),
])


# -------------------------------------------------------------------- Slice

def ref_slice(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data = x[0]
    start, stop, step = ([int(v) for v in a] for a in x[1:4])
    axes = [int(v) for v in x[4]] if len(x) > 4 else list(range(len(start)))
    index = [slice(None)] * data.ndim
    big = 1 << 40
    for s, e, t, a in zip(start, stop, step, axes):
        index[a] = slice(max(min(s, big), -big), max(min(e, big), -big), t)
    return [data[tuple(index)].copy()]


rng = table_rng("Slice-8")  # each table its own generator
rand = random_arrays(rng)
SLICE = OpTable("Slice", "opset8", reference=ref_slice, cases=[
    Case("basic", [rand((10,)), i64(1), i64(8), i64(2)], const=(1, 2, 3)),
    Case("negative-step", [rand((10,), np.int32), i64(9), i64(-11), i64(-3)], const=(1, 2, 3)),
    Case("clamped", [rand((4, 5), np.float16), i64(-100, 2), i64(100, 2**62), i64(1, 1)], const=(1, 2, 3)),
    Case("axes", [rand((3, 4, 5), BF16), i64(1, -2), i64(3, 0), i64(1, -1), i64(2, 0)], const=(1, 2, 3, 4)),
    Case("negative-axes", [rand((3, 4), np.int64), i64(0), i64(-1), i64(1), i64(-1)], const=(1, 2, 3, 4)),
    Case("empty-result", [rand((5,)), i64(3), i64(1), i64(1)], const=(1, 2, 3), ov="OpenVINO CPU refuses an empty output"),
    Case("int64-max", [rand((6, 2), np.uint8), i64(-1), i64(-(2**63)), i64(-1)], const=(1, 2, 3)),
    Case("i32-params", [rand((4, 4)), np.array([1], np.int32), np.array([3], np.int32), np.array([1], np.int32)],
         const=(1, 2, 3)),
], errors=[
    ErrorCase("zero-step", [rand((5,)), i64(0), i64(5), i64(0)], const=(1, 2, 3), code="bad-value"),
    ErrorCase("repeated-axes", [rand((5, 5)), i64(0, 0), i64(2, 2), i64(1, 1), i64(0, 0)], const=(1, 2, 3, 4),
              code="bad-value"),
    ErrorCase("lengths", [rand((5, 5)), i64(0, 0), i64(2), i64(1)], const=(1, 2, 3), code="incompatible-inputs"),
])


# ------------------------------------------------------------ VariadicSplit

def ref_vsplit(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, axis, lengths = x[0], int(np.asarray(x[1]).reshape(-1)[0]), [int(v) for v in x[2]]
    dim = data.shape[axis]
    if -1 in lengths:
        lengths[lengths.index(-1)] = dim - (sum(lengths) + 1)
    return [p.copy() for p in np.split(data, np.cumsum(lengths)[:-1], axis=axis)]


rng = table_rng("VariadicSplit-1")  # each table its own generator
rand = random_arrays(rng)
VSPLIT = OpTable("VariadicSplit", "opset1", reference=ref_vsplit, cases=[
    Case("basic", [rand((6, 4)), np.array(0, np.int64), i64(1, 2, 3)], const=(1, 2)),
    Case("minus-one", [rand((2, 10), np.int32), np.array(-1, np.int64), i64(4, -1, 2)], const=(1, 2)),
    Case("zero-length", [rand((3, 5), BF16), np.array(1, np.int32), np.array([0, 5], np.int32)], const=(1, 2),
         ov="OpenVINO CPU refuses an empty output"),
    Case("gpt2-qkv", [rand((1, 4, 24), np.float16), np.array(2, np.int64), i64(8, 8, 8)], const=(1, 2)),
    Case("axis-1d", [rand((4, 6)), np.array([1], np.int64), i64(2, 4)], const=(1, 2)),
    Case("axis-real", [rand((4, 6)), np.array(1.7, np.float32), i64(2, 4)], const=(1, 2)),
], errors=[
    ErrorCase("axis-two-values", [rand((4, 6)), i64(0, 1), i64(2, 4)], const=(1, 2), code="bad-input-rank"),
    ErrorCase("sum", [rand((6,)), np.array(0, np.int64), i64(1, 2)], const=(1, 2), code="incompatible-inputs"),
    ErrorCase("two-minus-one", [rand((6,)), np.array(0, np.int64), i64(-1, -1)], const=(1, 2), code="bad-value"),
])


# ----------------------------------------------------------- GatherElements

def ref_gather_elements(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, idx = x
    axis = attrs["axis"] % data.ndim
    idx = np.where(idx < 0, idx + data.shape[axis], idx)
    return [np.take_along_axis(data, idx.astype(np.int64), axis)]


rng = table_rng("GatherElements-6")  # each table its own generator
rand = random_arrays(rng)
GATHER_ELEMENTS = OpTable("GatherElements", "opset6", reference=ref_gather_elements, cases=[
    Case("spec-example", [np.array([[1, 2], [3, 4]], np.int32), np.array([[0, 0], [1, 0]], np.int32)], attrs={"axis": 1},
         expect=[np.array([[1, 1], [4, 3]], np.int32)]),
    Case("axis0", [rand((3, 4)), rng.integers(0, 3, (2, 4)).astype(np.int64)], attrs={"axis": 0}),
    Case("negative-axis", [rand((2, 3, 4), np.float16), rng.integers(0, 4, (2, 3, 6)).astype(np.int32)], attrs={"axis": -1}),
    Case("negative-index", [rand((2, 5), np.int64), np.array([[-1, -5], [0, -2]], np.int64)], attrs={"axis": 1}),
    Case("bool", [rand((4, 2), bool), rng.integers(0, 4, (1, 2)).astype(np.int64)], attrs={"axis": 0}),
], errors=[
    ErrorCase("rank", [rand((2, 3)), np.zeros((2,), np.int64)], attrs={"axis": 0}, code="incompatible-inputs"),
    ErrorCase("axis", [rand((2, 3)), np.zeros((2, 3), np.int64)], attrs={"axis": 2}, code="axis-out-of-range"),
    ErrorCase("dims", [rand((2, 3)), np.zeros((2, 4), np.int64)], attrs={"axis": 0}, code="incompatible-inputs"),
])


# ------------------------------------------------------------------- Select

def ref_select(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    c, a, b = x
    return [np.where(c, a, b).astype(a.dtype)]


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

TABLES = [SHAPEOF3, SHAPEOF1, RESHAPE, SQUEEZE1, SQUEEZE15, UNSQUEEZE, RANGE4, RANGE1, BROADCAST3, BROADCAST1, TRANSPOSE,
          SLICE, VSPLIT, GATHER_ELEMENTS, SELECT]
test_conformance = conformance(TABLES)
