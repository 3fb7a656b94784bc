"""Conformance table of Einsum-7."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, conformance, table_rng
from conformance.matmul.references import ACC, later_shapes_same, ref_einsum


def rand(*shape: int, dtype: Any = np.float32) -> np.ndarray:
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-5, 5, shape, endpoint=True).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


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

TABLES = [EINSUM]
test_conformance = conformance(TABLES)
