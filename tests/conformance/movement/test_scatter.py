"""Conformance tables of ScatterUpdate-3, ScatterElementsUpdate-3,
ScatterElementsUpdate-12, ScatterNDUpdate-3 and ScatterNDUpdate-15."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, conformance, i64, random_arrays, table_rng
from conformance.movement.references import BF16, ref_scatter_elements, ref_scatter_nd, ref_scatter_update


def idx(high: int, shape: tuple[int, ...], dtype: Any = np.int64, low: int | None = None) -> np.ndarray:
    return rng.integers(-high if low is None else low, high, shape).astype(dtype)


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

TABLES = [SCATTER_UPDATE, SEU3, SEU12, SND3, SND15]
test_conformance = conformance(TABLES)
