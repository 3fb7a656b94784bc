"""Conformance tables of ScaledDotProductAttention-13."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.attention.references import ref_sdpa
from conformance.harness import Case, ErrorCase, OpTable, Tol, conformance, table_rng


def rand(shape: tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return rng.integers(-20, 20, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def qkv(b: tuple[int, ...], bk: tuple[int, ...], L: int, S: int, E: int, Ev: int, dtype: Any = np.float32):
    return [rand((*b, L, E), dtype), rand((*bk, S, E), dtype), rand((*bk, S, Ev), dtype)]


rng = table_rng("ScaledDotProductAttention-13-mask")  # the boolean mask's own generator
masked = rng.random((5, 7)) > 0.3
masked[:, 0] = True

rng = table_rng("ScaledDotProductAttention-13")  # each table its own generator

SDPA = OpTable("ScaledDotProductAttention", "opset13", reference=ref_sdpa, tol=Tol(rtol=1e-5, atol=1e-6), cases=[
    Case("plain", qkv((2, 3), (2, 3), 5, 7, 8, 4), {"causal": False}),
    Case("causal", qkv((2, 3), (2, 3), 6, 6, 8, 8), {"causal": True}),
    Case("causal-rectangular", qkv((1, 2), (1, 2), 4, 6, 8, 3), {"causal": True}),
    Case("one-kv-head", qkv((2, 4), (2, 1), 5, 5, 8, 4), {"causal": True}),
    Case("bool-mask", [*qkv((2, 3), (2, 3), 5, 7, 8, 4), masked], {"causal": False}, const=(3,)),
    Case("float-mask-scale", [*qkv((2, 3), (2, 3), 5, 7, 8, 4), rand((2, 1, 5, 7)), np.array(0.3, np.float32)],
         {"causal": False}),
    Case("mask-ignored-when-causal", [*qkv((1,), (1,), 4, 4, 8, 4), rand((4, 4))], {"causal": True}),
    Case("rank-3", qkv((3,), (3,), 4, 9, 16, 5), {"causal": False}),
    Case("rank-5", qkv((2, 1, 2), (1, 3, 2), 3, 4, 4, 2), {"causal": False}),
    Case("all-masked-row", [*qkv((1,), (1,), 3, 4, 8, 4), np.array([[True] * 4, [False] * 4, [True, False] * 2])],
         {"causal": False}, const=(3,)),
])


rng = table_rng("ScaledDotProductAttention-13-f16")  # each table its own generator
SDPA_F16 = OpTable("ScaledDotProductAttention", "opset13", id="ScaledDotProductAttention-opset13-f16", reference=ref_sdpa,
                   tol=Tol(rtol=2e-3, atol=2e-3), cases=[
    Case("f16-causal", qkv((2, 2), (2, 2), 5, 5, 8, 4, np.float16), {"causal": True}),
], errors=[
    ErrorCase("rank-2", [rand((5, 8)), rand((7, 8)), rand((7, 4))], {"causal": False}, code="bad-input-rank"),
    ErrorCase("e-differs", qkv((2,), (2,), 5, 7, 8, 4)[:1] + [rand((2, 7, 6)), rand((2, 7, 4))], {"causal": False},
              code="incompatible-inputs"),
    ErrorCase("s-differs", [rand((2, 5, 8)), rand((2, 7, 8)), rand((2, 6, 4))], {"causal": False},
              code="incompatible-inputs"),
    ErrorCase("batch-differs", [rand((2, 5, 8)), rand((3, 7, 8)), rand((3, 7, 4))], {"causal": False},
              code="incompatible-inputs"),
    ErrorCase("mask-shape", [*qkv((2,), (2,), 5, 7, 8, 4), rand((5, 6))], {"causal": False}, code="incompatible-inputs"),
    ErrorCase("integer-query", [rand((2, 5, 8), np.int32), rand((2, 7, 8), np.int32), rand((2, 7, 4), np.int32)],
              {"causal": False}, code="bad-input-type"),
])

TABLES = [SDPA, SDPA_F16]
test_conformance = conformance(TABLES)
