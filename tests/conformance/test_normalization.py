"""Conformance tables of Einsum, BatchNormInference, GroupNormalization,
NormalizeL2 and LRN: float64 references written from the specs."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from conformance.harness import OV_READS_DEFAULT, Case, ErrorCase, OpTable, Tol, conformance, table_rng

ACC = Tol(rtol=1e-5, atol=1e-5)
SAME = "same shape inference as the first cases"
F16_CPU = "OpenVINO CPU rounds f16 intermediate results"


def rand(*shape: int, dtype: Any = np.float32) -> np.ndarray:
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-5, 5, shape, endpoint=True).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def later_shapes_same(cases: list[Case]) -> list[Case]:
    for c in cases[2:]:
        if c.ov_shapes is True:
            c.ov_shapes = SAME
    return cases


# ------------------------------------------------------------------ Einsum

def ref_einsum(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    wide = [a.astype(np.float64) if a.dtype.kind == "f" else a.astype(object) for a in x]
    out = np.einsum(attrs["equation"], *wide) if x[0].dtype.kind == "f" else np.einsum(attrs["equation"], *wide, dtype=object)
    return [np.asarray(out).astype(x[0].dtype)]


rng = table_rng("Einsum-7")  # each table its own generator
EINSUM = OpTable("Einsum", "opset7", reference=ref_einsum, tol=ACC, cases=later_shapes_same([
    Case("matmul", [rand(2, 3), rand(3, 4)], attrs={"equation": "ij,jk->ik"}),
    Case("implicit", [rand(2, 3), rand(3, 4)], attrs={"equation": "ij,jk"}),
    Case("batch-ellipsis", [rand(5, 1, 2, 3), rand(4, 3, 2)], attrs={"equation": "...ij,...jk->...ik"}),
    Case("transpose", [rand(2, 3, 4)], attrs={"equation": "abc->cab"}),
    Case("trace", [rand(3, 3)], attrs={"equation": "ii->"}),
    Case("diagonal", [rand(4, 4)], attrs={"equation": "ii->i"}),
    Case("three-inputs", [rand(2, 3), rand(3, 4), rand(4)], attrs={"equation": "ij,jk,k->i"}),
    Case("outer", [rand(3), rand(2)], attrs={"equation": "i,j->ij"}),
    Case("i32", [rand(2, 3, dtype=np.int32), rand(3, 2, dtype=np.int32)], attrs={"equation": "ij,jk->ik"},
         ov="OpenVINO CPU multiplies integers through f32"),
    Case("uppercase", [rand(2, 3), rand(3, 2)], attrs={"equation": "Ab,bC->AC"}),
]), errors=[
    ErrorCase("dims-differ", [rand(2, 3), rand(4, 4)], attrs={"equation": "ij,jk->ik"}, code="incompatible-inputs"),
    ErrorCase("rank-differs", [rand(2, 3, 4), rand(3, 4)], attrs={"equation": "ij,jk->ik"}, code="bad-input-rank"),
    ErrorCase("bad-equation", [rand(2, 3)], attrs={"equation": "i1->i"}, code="bad-attribute"),
    ErrorCase("unknown-output-label", [rand(2, 3)], attrs={"equation": "ij->k"}, code="bad-attribute"),
    ErrorCase("input-count", [rand(2, 3)], attrs={"equation": "ij,jk->ik"}, code="incompatible-inputs"),
])

# ------------------------------------------------------------------ BatchNormInference


def ref_bn(order: tuple[int, ...]) -> Any:
    def ref(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
        data, gamma, beta, mean, var = (x[i].astype(np.float64) for i in order)
        shape = (-1,) + (1,) * (data.ndim - 2)
        out = gamma.reshape(shape) * (data - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + attrs["epsilon"])
        return [(out + beta.reshape(shape)).astype(x[order[0]].dtype)]
    return ref


def bn_cases(v5: bool) -> list[Case]:
    def case(name: str, data: np.ndarray, **kw: Any) -> Case:
        c = data.shape[1]
        params = [rand(c), rand(c), rand(c), np.abs(rand(c)) + 0.1]
        params = [p.astype(data.dtype) for p in params]
        ins = [data] + params if v5 else params[:2] + [data] + params[2:]
        return Case(name, ins, attrs={"epsilon": 1e-3}, const=(1, 2, 3, 4) if v5 else (0, 1, 3, 4), **kw)
    return later_shapes_same([case("nchw", rand(2, 3, 4, 4)), case("nc", rand(4, 5)),
                              case("f16", rand(2, 3, 2, dtype=np.float16), ov=F16_CPU), case("zero-batch", rand(0, 3, 2))])


BATCHNORM: list[OpTable] = []
rng = table_rng("BatchNormInference-5")  # each table its own generator
BATCHNORM.append(OpTable("BatchNormInference", "opset5", reference=ref_bn((0, 1, 2, 3, 4)), tol=Tol(ulps=1), ov_tol=ACC,
        cases=bn_cases(True), errors=[
            ErrorCase("epsilon-missing", [rand(2, 3), rand(3), rand(3), rand(3), rand(3)], code="bad-attribute",
              ov=OV_READS_DEFAULT),
            ErrorCase("channels-differ", [rand(2, 3), rand(4), rand(4), rand(4), rand(4)], attrs={"epsilon": 1e-3},
                      code="incompatible-inputs")]))
rng = table_rng("BatchNormInference-1")  # each table its own generator
BATCHNORM.append(OpTable("BatchNormInference", "opset1", reference=ref_bn((2, 0, 1, 3, 4)), tol=Tol(ulps=1), ov_tol=ACC,
        cases=bn_cases(False)))

# ------------------------------------------------------------------ GroupNormalization


def ref_gn(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, scale, bias = (a.astype(np.float64) for a in x)
    n, c = data.shape[:2]
    g = attrs["num_groups"]
    grouped = data.reshape(n, g, c // g * math.prod(data.shape[2:]))
    mean = grouped.mean(axis=2, keepdims=True) if grouped.size else grouped.sum(axis=2, keepdims=True)
    var = ((grouped - mean) ** 2).mean(axis=2, keepdims=True) if grouped.size else mean
    normed = ((grouped - mean) / np.sqrt(var + attrs["epsilon"])).reshape(data.shape)
    shape = (-1,) + (1,) * (data.ndim - 2)
    return [(normed * scale.reshape(shape) + bias.reshape(shape)).astype(x[0].dtype)]


rng = table_rng("GroupNormalization-12")  # each table its own generator
GROUPNORM = OpTable("GroupNormalization", "opset12", reference=ref_gn, tol=ACC, ov_tol=Tol(rtol=1e-4, atol=1e-5),
                    cases=later_shapes_same([
                        Case("two-groups", [rand(2, 4, 3, 3), rand(4), rand(4)], attrs={"num_groups": 2, "epsilon": 1e-5}),
                        Case("per-channel", [rand(2, 3, 5), rand(3), rand(3)], attrs={"num_groups": 3, "epsilon": 1e-5}),
                        Case("one-group", [rand(1, 6, 2, 2), rand(6), rand(6)], attrs={"num_groups": 1, "epsilon": 1e-3},
                             const=(1, 2)),
                        Case("f16", [rand(2, 4, 4, dtype=np.float16), rand(4, dtype=np.float16), rand(4, dtype=np.float16)],
                             attrs={"num_groups": 2, "epsilon": 1e-5}, ov=F16_CPU),
                        Case("zero-batch", [rand(0, 4, 3), rand(4), rand(4)], attrs={"num_groups": 2, "epsilon": 1e-5}),
                    ]), errors=[
                        ErrorCase("groups-do-not-divide", [rand(2, 4, 3), rand(4), rand(4)],
                                  attrs={"num_groups": 3, "epsilon": 1e-5}, code="incompatible-inputs"),
                        ErrorCase("zero-groups", [rand(2, 4, 3), rand(4), rand(4)], attrs={"num_groups": 0, "epsilon": 1e-5},
                                  code="bad-attribute"),
                    ])

# ------------------------------------------------------------------ NormalizeL2


def ref_l2(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, axes = x
    d = data.astype(np.float64)
    ax = tuple(sorted({int(a) % data.ndim for a in np.asarray(axes).reshape(-1).tolist()}))
    if not ax:
        return [(data != 0).astype(data.dtype)]
    s = (d * d).sum(axis=ax, keepdims=True)
    s = s + attrs["eps"] if attrs["eps_mode"] == "add" else np.maximum(s, attrs["eps"])
    return [(d / np.sqrt(s)).astype(data.dtype)]


rng = table_rng("NormalizeL2-1")  # each table its own generator
NORML2 = OpTable("NormalizeL2", "opset1", reference=ref_l2, tol=Tol(ulps=1), ov_tol=ACC, cases=later_shapes_same([
    Case("channels", [rand(2, 3, 4), np.array([1], np.int64)], attrs={"eps": 1e-10, "eps_mode": "add"}, const=(1,)),
    Case("spatial-max", [rand(2, 3, 4, 4), np.array([2, 3], np.int64)], attrs={"eps": 1e-6, "eps_mode": "max"}, const=(1,)),
    Case("scalar-axis", [rand(3, 5), np.array(-1, np.int32)], attrs={"eps": 1e-6, "eps_mode": "add"}, const=(1,)),
    Case("zeros-max", [np.zeros((2, 3), np.float32), np.array([1], np.int64)], attrs={"eps": 1e-6, "eps_mode": "max"}, const=(1,)),
    Case("empty-axes", [np.array([[0.0, 2.0], [-3.0, 0.0]], np.float32), np.zeros((0,), np.int64)],
         attrs={"eps": 1e-6, "eps_mode": "add"}, const=(1,), ov="OpenVINO CPU refuses empty axes"),
    Case("f16", [rand(2, 4, dtype=np.float16), np.array([1], np.int64)], attrs={"eps": 1e-6, "eps_mode": "add"}, const=(1,)),
]), errors=[
    ErrorCase("axis-out-of-range", [rand(2, 3), np.array([2], np.int64)], attrs={"eps": 1e-6, "eps_mode": "add"},
              const=(1,), code="axis-out-of-range"),
    ErrorCase("bad-eps-mode", [rand(2, 3), np.array([1], np.int64)], attrs={"eps": 1e-6, "eps_mode": "mul"},
              const=(1,), code="bad-attribute"),
])

# ------------------------------------------------------------------ LRN


def ref_lrn(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, axes = x
    d = data.astype(np.float64)
    ax = sorted(int(a) % data.ndim for a in axes.reshape(-1).tolist())
    size, half = attrs["size"], (attrs["size"] - 1) // 2
    out = np.empty_like(d)
    for idx in itertools.product(*(range(n) for n in d.shape)):
        window = tuple(slice(max(0, i - half), min(n, i + half + 1)) if a in ax else slice(i, i + 1)
                       for a, (i, n) in enumerate(zip(idx, d.shape)))
        sq = float((d[window] ** 2).sum())
        out[idx] = d[idx] / math.pow(attrs["bias"] + attrs["alpha"] / size ** len(ax) * sq, attrs["beta"])
    return [out.astype(data.dtype)]


LRN_ATTRS = {"alpha": 1e-4, "beta": 0.75, "bias": 1.0, "size": 5}
rng = table_rng("LRN-1")  # each table its own generator
LRN = OpTable("LRN", "opset1", reference=ref_lrn, tol=Tol(ulps=1), ov_tol=ACC, cases=later_shapes_same([
    Case("channels", [rand(2, 7, 3, 3) * 10, np.array([1], np.int64)], attrs=LRN_ATTRS, const=(1,)),
    Case("spatial", [rand(1, 2, 5, 5) * 10, np.array([2, 3], np.int64)], attrs={**LRN_ATTRS, "size": 3, "alpha": 0.01},
         const=(1,)),
    Case("even-size", [rand(1, 6, 2) * 10, np.array([1], np.int64)], attrs={**LRN_ATTRS, "size": 4, "alpha": 0.1}, const=(1,)),
    Case("f16", [rand(1, 4, 2, 2, dtype=np.float16), np.array([1], np.int64)], attrs=LRN_ATTRS, const=(1,)),
]), errors=[
    ErrorCase("axis-out-of-range", [rand(1, 2, 3), np.array([3], np.int64)], attrs=LRN_ATTRS, const=(1,),
              code="axis-out-of-range"),
    ErrorCase("size-missing", [rand(1, 2, 3), np.array([1], np.int64)], attrs={"alpha": 1e-4, "beta": 0.75, "bias": 1.0},
              const=(1,), code="bad-attribute",
              ov=OV_READS_DEFAULT),
])

test_conformance = conformance([EINSUM, *BATCHNORM, GROUPNORM, NORML2, LRN])
