"""Conformance tables of SoftMax-1, SoftMax-8, LogSoftmax-5, MVN-6, MVN-1,
BatchNormInference-5, BatchNormInference-1, GroupNormalization-12, NormalizeL2-1 and
LRN-1."""

from __future__ import annotations

from typing import Any

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
from conformance.matmul.references import ACC, later_shapes_same
from conformance.normalization.references import ref_bn, ref_gn, ref_l2, ref_lrn, ref_mvn1, ref_mvn6, ref_softmax

TABLES: list[OpTable] = []


def rand(shape: tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        return rng.integers(0 if dtype.kind == "u" else -9, 9, shape, endpoint=True).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


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


rng = table_rng("SoftMax-1")  # each table its own generator
TABLES.append(softmax_table("SoftMax", "opset1", False, False))


rng = table_rng("SoftMax-8")  # each table its own generator
TABLES.append(softmax_table("SoftMax", "opset8", False, True))


rng = table_rng("LogSoftmax-5")  # each table its own generator
TABLES.append(softmax_table("LogSoftmax", "opset5", True, True))


F16_CPU = "OpenVINO CPU rounds f16 intermediate results"


def rand(*shape: int, dtype: Any = np.float32) -> np.ndarray:
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-5, 5, shape, endpoint=True).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


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

TABLES.append(MVN6)
TABLES.append(MVN1)
TABLES.extend(BATCHNORM)
TABLES.append(GROUPNORM)
TABLES.append(NORML2)
TABLES.append(LRN)
test_conformance = conformance(TABLES)
