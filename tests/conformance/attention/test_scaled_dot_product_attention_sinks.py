"""Conformance table of ScaledDotProductAttention-13 with its sixth input, the
attention sinks: one more softmax column per row, neither scaled nor masked,
whose weight is dropped (as OpenVINO computes it)."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.attention.references import ref_sdpa_sinks
from conformance.harness import Case, ErrorCase, OpTable, Tol, conformance, random_arrays, table_rng

rng = table_rng("ScaledDotProductAttention-13-sinks")  # each table its own generator
rand = random_arrays(rng)


def qkv(b: tuple[int, ...], L: int, S: int, E: int, Ev: int, dtype: Any = np.float32) -> list[np.ndarray]:
    return [rand((*b, L, E), dtype) / 10, rand((*b, S, E), dtype) / 10, rand((*b, S, Ev), dtype) / 10]


def scale(value: float, dtype: Any = np.float32) -> np.ndarray:
    return np.array(value, dtype)


masked = rng.random((5, 7)) > 0.3
masked[:, 0] = True
none_kept = np.ones((5, 7), bool)
none_kept[2] = False  # a row whose every key is masked: the sink alone takes the weight, the output is 0
SDPA_SINKS = OpTable("ScaledDotProductAttention", "opset13", id="ScaledDotProductAttention-opset13-sinks",
                     reference=ref_sdpa_sinks, tol=Tol(rtol=1e-5, atol=1e-6), cases=[
    Case("per-head", [*qkv((2, 3), 5, 7, 8, 4), rand((5, 7)), scale(0.4), rand((1, 3, 1, 1)) / 3], {"causal": False}),
    Case("per-row", [*qkv((2, 3), 5, 7, 8, 4), rand((5, 7)), scale(0.4), rand((2, 3, 5, 1)) / 3], {"causal": False}),
    Case("causal", [*qkv((1, 4), 6, 6, 8, 8), rand((6, 6)), scale(0.35), rand((1, 4, 1, 1)) / 3], {"causal": True}),
    Case("bool-mask", [*qkv((2, 3), 5, 7, 8, 4), masked, scale(0.3), rand((1, 3, 1, 1)) / 3], {"causal": False}),
    Case("row-all-masked", [*qkv((1, 2), 5, 7, 8, 4), none_kept, scale(0.3), rand((1, 2, 1, 1)) / 3], {"causal": False}),
    Case("one-sink", [*qkv((2, 3), 5, 7, 8, 4), rand((1, 7)), scale(0.3), rand((1, 1, 1, 1)) / 3], {"causal": False}),
    Case("rank-3", [*qkv((3,), 4, 9, 16, 5), rand((4, 9)), scale(0.25), rand((3, 1, 1)) / 3], {"causal": False}),
    Case("minus-inf-sink", [*qkv((1, 2), 3, 4, 8, 4), rand((3, 4)), scale(0.3), np.full((1, 2, 1, 1), -np.inf, np.float32)],
         {"causal": False}),
    Case("large-sink", [*qkv((1, 2), 3, 4, 8, 4), rand((3, 4)), scale(0.3), np.full((1, 2, 1, 1), 60, np.float32)],
         {"causal": False}),
    Case("const-sink", [*qkv((1, 2), 4, 4, 8, 4), rand((4, 4)), scale(0.3), rand((1, 2, 1, 1)) / 3], {"causal": True},
         const=(3, 4, 5)),
], errors=[
    ErrorCase("sink-rank", [*qkv((2, 3), 5, 7, 8, 4), rand((5, 7)), scale(0.4), rand((3,))], {"causal": False},
              code="bad-input-rank"),
    ErrorCase("sink-scalar", [*qkv((2, 3), 5, 7, 8, 4), rand((5, 7)), scale(0.4), scale(1.0)], {"causal": False},
              code="bad-input-rank"),
    ErrorCase("sink-last-dim", [*qkv((2, 3), 5, 7, 8, 4), rand((5, 7)), scale(0.4), rand((1, 3, 1, 2))],
              {"causal": False}, code="incompatible-inputs"),
    ErrorCase("sink-rows", [*qkv((2, 3), 5, 7, 8, 4), rand((5, 7)), scale(0.4), rand((1, 3, 6, 1))],
              {"causal": False}, code="incompatible-inputs"),
    ErrorCase("sink-heads", [*qkv((2, 3), 5, 7, 8, 4), rand((5, 7)), scale(0.4), rand((1, 2, 1, 1))],
              {"causal": False}, code="incompatible-inputs"),
    ErrorCase("sink-widens", [*qkv((1, 3), 5, 7, 8, 4), rand((5, 7)), scale(0.4), rand((2, 3, 1, 1))],
              {"causal": False}, code="incompatible-inputs",
              ov="OpenVINO's shape inference keeps the output narrow; its CPU plugin refuses to compile it"),
    ErrorCase("sink-type", [*qkv((2, 3), 5, 7, 8, 4), rand((5, 7)), scale(0.4), rand((1, 3, 1, 1), np.float16)],
              {"causal": False}, code="bad-input-type"),
])

test_conformance = conformance([SDPA_SINKS])
