"""Conformance tables of MatMul, the reductions and the normalisations
(MVN, SoftMax, LogSoftmax): float64 references, tolerances as promised in
the README's accuracy table."""

from __future__ import annotations

import math
from typing import Any

import ml_dtypes
import numpy as np

from conformance.harness import (
    OV_READS_DEFAULT,
    OV_TYPE_UNCHECKED,
    OV_VALUE_UNCHECKED,
    Case,
    ErrorCase,
    OpTable,
    Tol,
    conformance,
    table_rng,
)

BF16 = np.dtype(ml_dtypes.bfloat16)
F32_ACC = Tol(rtol=1e-5, atol=1e-5)  # f32 accumulation of unit-scale data
F16_ACC = Tol(rtol=2e-3, atol=2e-3)  # one f16 rounding of an f32 accumulation
I64_CPU = "OpenVINO CPU narrows i64 to i32"


def rand(shape: tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        return rng.integers(0 if dtype.kind == "u" else -9, 9, shape, endpoint=True).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def is_float(a: np.ndarray) -> bool:
    return a.dtype.kind == "f" or a.dtype == BF16


# ------------------------------------------------------------------ MatMul

def ref_matmul(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    a, b = x
    if attrs.get("transpose_a") and a.ndim > 1:
        a = np.swapaxes(a, -1, -2)
    if attrs.get("transpose_b") and b.ndim > 1:
        b = np.swapaxes(b, -1, -2)
    if is_float(a):
        return [np.matmul(a.astype(np.float64), b.astype(np.float64)).astype(a.dtype)]
    wide = np.matmul(a.astype(object), b.astype(object))  # exact, then wrapped to the type
    bits = a.dtype.itemsize * 8
    wrapped = np.vectorize(lambda v: ((int(v) + (1 << (bits - 1))) % (1 << bits)) - (1 << (bits - 1)), otypes=[object])
    return [np.asarray(wrapped(wide) if np.ndim(wide) else wrapped(np.array(wide, object)), a.dtype)]


rng = table_rng("MatMul-1")  # each table its own generator
MATMUL = OpTable("MatMul", "opset1", reference=ref_matmul, tol=F32_ACC, cases=[
    Case("2d", [rand((3, 4)), rand((4, 5))]),
    Case("transpose-a", [rand((4, 3)), rand((4, 5))], attrs={"transpose_a": True}),
    Case("transpose-b-const", [rand((2, 3, 4)), rand((5, 4))], attrs={"transpose_b": True}, const=(1,)),
    Case("batch-broadcast", [rand((2, 1, 3, 4)), rand((3, 4, 2))]),
    Case("1d-a", [rand((4,)), rand((2, 4, 3))], attrs={"transpose_a": True}),
    Case("1d-b", [rand((2, 3, 4)), rand((4,))]),
    Case("1d-both", [rand((4,)), rand((4,))]),
    Case("i32", [rand((3, 4), np.int32), rand((4, 2), np.int32)], ov="OpenVINO CPU multiplies integers through f32"),
    Case("f16", [rand((3, 8), np.float16), rand((8, 2), np.float16)]),
    Case("zero-k", [rand((3, 0)), rand((0, 2))], ov="OpenVINO CPU leaves the output of an empty product unwritten"),
    Case("zero-batch", [rand((0, 3, 4)), rand((4, 2))]),
], errors=[
    ErrorCase("k-differs", [rand((3, 4)), rand((5, 2))], code="incompatible-inputs"),
    ErrorCase("batch-differs", [rand((2, 3, 4)), rand((3, 4, 2))], code="incompatible-inputs"),
    ErrorCase("scalar", [np.array(1.0, np.float32), rand((2,))], code="bad-input-rank"),
    ErrorCase("types-differ", [rand((2, 2)), rand((2, 2), np.float16)], code="bad-input-type"),
    ErrorCase("bad-transpose", [rand((2, 2)), rand((2, 2))], attrs={"transpose_a": "yes"}, code="bad-attribute",
              ov=OV_READS_DEFAULT),
])

# ------------------------------------------------------------------ reductions


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


def ref_max(d: np.ndarray, ax: tuple[int, ...]) -> np.ndarray:
    low = -float(ml_dtypes.finfo(d.dtype).max) if is_float(d) else np.iinfo(d.dtype).min
    out = np.full(np.delete(np.array(d.shape, int), ax).tolist(), low, np.float64 if is_float(d) else object)
    it = np.moveaxis(d, ax, list(range(d.ndim - len(ax), d.ndim))) if ax else d[..., None]
    flat = it.reshape(out.shape + (math.prod(d.shape[a] for a in ax),))
    for idx in np.ndindex(out.shape):
        for v in flat[idx].tolist():
            if out[idx] < v:  # std::max: NaN never replaces the running value
                out[idx] = v
    return out


def ref_min(d: np.ndarray, ax: tuple[int, ...]) -> np.ndarray:
    if is_float(d) and math.prod(d.shape[a] for a in ax) == 0:
        # OpenVINO's reference starts ReduceMin from +inf (ReduceMax from the lowest finite value)
        return np.full(np.delete(np.array(d.shape, int), ax).tolist(), np.inf)
    return -ref_max(-d, ax) if is_float(d) else np.negative(ref_max(-d.astype(np.int64), ax))


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
TABLES: list[OpTable] = []
TABLES.append(MATMUL)
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
TABLES.append(reduce_table("ReduceLogicalAnd", lambda d, a: np.all(d, axis=a), types=(bool, bool, bool)))
rng = table_rng("ReduceLogicalOr-1")  # each table its own generator
TABLES.append(reduce_table("ReduceLogicalOr", lambda d, a: np.any(d, axis=a), types=(bool, bool, bool)))

# ------------------------------------------------------------------ normalisations


def mvn_ref(x64: np.ndarray, axes: tuple[int, ...], nv: bool, eps: float, inside: bool) -> np.ndarray:
    d = x64 - x64.mean(axis=axes, keepdims=True)
    if not nv:
        return d
    var = (d * d).mean(axis=axes, keepdims=True)
    return d / (np.sqrt(var + eps) if inside else np.sqrt(var) + eps)


def ref_mvn6(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, axes = x
    ax = tuple(sorted({int(a) % data.ndim for a in axes.reshape(-1).tolist()}))
    out = mvn_ref(data.astype(np.float64), ax, attrs["normalize_variance"], attrs["eps"], attrs["eps_mode"] == "inside_sqrt")
    return [out.astype(data.dtype)]


def ref_mvn1(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data = x[0]
    if attrs.get("reduction_axes") is not None:
        ax = tuple(sorted(int(a) % data.ndim for a in attrs["reduction_axes"]))
    else:
        ax = tuple(range(1 if attrs.get("across_channels") else 2, data.ndim))
    return [mvn_ref(data.astype(np.float64), ax, attrs.get("normalize_variance", False), attrs["eps"], True).astype(data.dtype)]


MVN_ACC = Tol(rtol=1e-5, atol=3e-6)
rng = table_rng("MVN-6")  # each table its own generator
MVN6 = OpTable("MVN", "opset6", reference=ref_mvn6, tol=MVN_ACC, ov_tol=Tol(rtol=1e-4, atol=1e-5), cases=[
    Case("last-axis", [rand((2, 3, 8)) * 5 + 3, np.array([-1], np.int64)],
         attrs={"normalize_variance": True, "eps": 1e-5, "eps_mode": "inside_sqrt"}, const=(1,)),
    Case("outside", [rand((2, 3, 4, 4)), np.array([2, 3], np.int32)],
         attrs={"normalize_variance": True, "eps": 1e-3, "eps_mode": "outside_sqrt"}, const=(1,)),
    Case("inner-axes", [rand((2, 3, 4)), np.array([0, 2], np.int64)],
         attrs={"normalize_variance": True, "eps": 1e-9, "eps_mode": "inside_sqrt"}, const=(1,)),
    Case("mean-only", [rand((3, 5)), np.array([1], np.int64)],
         attrs={"normalize_variance": False, "eps": 1e-9, "eps_mode": "inside_sqrt"}, const=(1,)),
    Case("f16", [rand((2, 16), np.float16), np.array([1], np.int64)], const=(1,),
         attrs={"normalize_variance": True, "eps": 1e-5, "eps_mode": "inside_sqrt"}),
    Case("constant-rows", [np.ones((2, 4), np.float32), np.array([1], np.int64)], const=(1,),
         attrs={"normalize_variance": True, "eps": 1e-5, "eps_mode": "outside_sqrt"}),
    Case("zero-size", [rand((0, 4)), np.array([1], np.int64)], const=(1,),
         attrs={"normalize_variance": True, "eps": 1e-5, "eps_mode": "inside_sqrt"}),
], errors=[
    ErrorCase("axis-out-of-range", [rand((2, 3)), np.array([2], np.int64)], const=(1,),
              attrs={"normalize_variance": True, "eps": 1e-5, "eps_mode": "inside_sqrt"}, code="axis-out-of-range",
              ov=OV_VALUE_UNCHECKED),
    ErrorCase("bad-eps-mode", [rand((2, 3)), np.array([1], np.int64)], const=(1,),
              attrs={"normalize_variance": True, "eps": 1e-5, "eps_mode": "middle"}, code="bad-attribute"),
    ErrorCase("integer-data", [rand((2, 3), np.int32), np.array([1], np.int64)], const=(1,),
              attrs={"normalize_variance": True, "eps": 1e-5, "eps_mode": "inside_sqrt"}, code="bad-input-type",
              ov=OV_TYPE_UNCHECKED),
])
rng = table_rng("MVN-2")  # each table its own generator
MVN1 = OpTable("MVN", "opset2", reference=ref_mvn1, tol=MVN_ACC, ov_tol=Tol(rtol=1e-4, atol=1e-5), cases=[
    Case("per-channel", [rand((2, 3, 4, 4))], attrs={"normalize_variance": True, "eps": 1e-9, "across_channels": False}),
    Case("across", [rand((2, 3, 4))], attrs={"normalize_variance": True, "eps": 1e-5, "across_channels": True}),
    Case("axes", [rand((2, 3, 4))], attrs={"normalize_variance": True, "eps": 1e-5, "reduction_axes": (1, 2)}),
    Case("axes-not-suffix", [rand((2, 3, 4))], attrs={"normalize_variance": True, "eps": 1e-5, "reduction_axes": (1,)},
         ov="OpenVINO CPU normalises from the first reduction axis to the last dim"),
    Case("mean-only", [rand((2, 3, 4))], attrs={"eps": 1e-5}),
], errors=[ErrorCase("eps-missing", [rand((2, 3))], code="bad-attribute",
              ov=OV_READS_DEFAULT)])


def ref_softmax(log: bool) -> Any:
    def ref(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
        d = x[0].astype(np.float64)
        axis = int(attrs.get("axis", 1))
        if d.size == 0:
            return [x[0].copy()]
        s = d - d.max(axis=axis, keepdims=True)
        e = np.exp(s)
        out = s - np.log(e.sum(axis=axis, keepdims=True)) if log else e / e.sum(axis=axis, keepdims=True)
        return [out.astype(x[0].dtype)]
    return ref


def softmax_table(op: str, opset: str, log: bool, negative: bool) -> OpTable:
    cases = [
        Case("axis-1", [rand((2, 5, 3)) * 4], attrs={"axis": 1}),
        Case("last", [rand((3, 7)) * 4], attrs={"axis": -1 if negative else 1}),
        Case("axis-0", [rand((4, 3))], attrs={"axis": 0}),
        Case("f16", [rand((2, 6), np.float16)], attrs={"axis": 1}),
        Case("large", [np.array([[1000.0, 0.0, -1000.0], [-np.inf, 0.0, 1.0]], np.float32)], attrs={"axis": 1}),
        Case("zero-size", [rand((0, 4))], attrs={"axis": 1}),
    ]
    for c in cases[2:]:
        c.ov_shapes = "same shape inference as the first cases"
    return OpTable(op, opset, reference=ref_softmax(log), tol=Tol(rtol=2e-6, atol=1e-7) if not log else Tol(rtol=2e-6, atol=2e-6),
                   ov_tol=Tol(rtol=1e-5, atol=1e-6) if not log else Tol(rtol=1e-5, atol=1e-5), cases=cases, errors=[
        ErrorCase("axis-out-of-range", [rand((2, 3))], attrs={"axis": 2}, code="axis-out-of-range"),
        ErrorCase("integer", [rand((2, 3), np.int32)], attrs={"axis": 1}, code="bad-input-type",
              ov=OV_TYPE_UNCHECKED),
    ])


TABLES.append(MVN6)
TABLES.append(MVN1)
rng = table_rng("SoftMax-1")  # each table its own generator
TABLES.append(softmax_table("SoftMax", "opset1", False, False))
rng = table_rng("SoftMax-8")  # each table its own generator
TABLES.append(softmax_table("SoftMax", "opset8", False, True))
rng = table_rng("LogSoftmax-5")  # each table its own generator
TABLES.append(softmax_table("LogSoftmax", "opset5", True, True))

test_conformance = conformance(TABLES)
