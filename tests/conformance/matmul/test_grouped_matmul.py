"""Conformance table of GroupedMatMul-17.

OpenVINO 2026.4 reads the op and infers its shapes, but its CPU plugin has no
kernel for it and the op no evaluate: the values are checked against the loop
below alone, OpenVINO checks the shapes and the refusals."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from conformance.harness import OV_VALUE_UNCHECKED, Case, ErrorCase, OpTable, conformance, random_arrays, table_rng
from conformance.matmul.references import F32_ACC, ref_matmul
from irexec.model.builder import IRBuilder

NO_CPU_KERNEL = "OpenVINO 2026.4's CPU plugin has no GroupedMatMul kernel"


def ref_grouped_matmul(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    """One MatMul (transpose_b) per group: every group of a 3-D mat_a, or the
    rows offsets[g-1]..offsets[g] of a 2-D one; rows past the last offset are 0."""
    a, b = x[0], x[1]
    t = {"transpose_b": True}
    if a.ndim == 3:
        out = np.zeros((a.shape[0], a.shape[1], b.shape[1]), a.dtype)
        for g in range(a.shape[0]):
            out[g] = ref_matmul([a[g], b[g]], t)[0]
        return [out]
    out = np.zeros((a.shape[0], b.shape[1]), a.dtype)
    start = 0
    for g, end in enumerate(int(e) for e in x[2]):
        out[start:end] = ref_matmul([a[start:end], b[g]], t)[0]
        start = end
    return [out]


rng = table_rng("GroupedMatMul-17")
rand = random_arrays(rng)


def unit(shape: tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    """Unit-scale floats (F32_ACC's scale); integers from random_arrays."""
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    return rand(shape, dtype)


def ends(*values: int, dtype: Any = np.int64) -> np.ndarray:
    return np.array(values, dtype)


GROUPED_MATMUL = OpTable("GroupedMatMul", "opset17", reference=ref_grouped_matmul, tol=F32_ACC, cases=[
    Case("3d", [unit((3, 4, 5)), unit((3, 6, 5))], ov=NO_CPU_KERNEL),
    Case("3d-offsets-unread", [unit((2, 3, 4)), unit((2, 5, 4)), ends(1, 3)], ov=NO_CPU_KERNEL),
    Case("tokens", [unit((7, 4)), unit((3, 5, 4)), ends(2, 2, 6)], ov=NO_CPU_KERNEL),  # an empty group, a row past the end
    Case("tokens-const", [unit((6, 8)), unit((2, 3, 8)), ends(1, 6, dtype=np.int32)], const=(1, 2), ov=NO_CPU_KERNEL),
    Case("tokens-all-empty", [unit((3, 4)), unit((2, 5, 4)), ends(0, 0)], ov=NO_CPU_KERNEL),
    Case("f16", [unit((2, 3, 16), np.float16), unit((2, 2, 16), np.float16)], ov=NO_CPU_KERNEL),
    Case("i32", [unit((5, 3), np.int32), unit((2, 4, 3), np.int32), ends(3, 5)], ov=NO_CPU_KERNEL),
    Case("zero-k", [unit((2, 3, 0)), unit((2, 4, 0))], ov=NO_CPU_KERNEL),
    Case("zero-tokens", [unit((0, 4)), unit((2, 3, 4)), ends(0, 0)], ov=NO_CPU_KERNEL),
], errors=[
    ErrorCase("2d-2d", [unit((4, 7)), unit((5, 7)), ends(2, 4)], code="bad-input-rank"),
    ErrorCase("3d-2d", [unit((2, 3, 4)), unit((5, 4)), ends(1, 2)], code="bad-input-rank"),
    ErrorCase("4d-4d", [unit((1, 2, 3, 4)), unit((1, 2, 5, 4))], code="bad-input-rank"),
    ErrorCase("k-differs-3d", [unit((2, 3, 4)), unit((2, 5, 6))], code="incompatible-inputs"),
    ErrorCase("k-differs-tokens", [unit((7, 4)), unit((2, 5, 6)), ends(3, 7)], code="incompatible-inputs"),
    ErrorCase("groups-differ", [unit((2, 3, 4)), unit((3, 5, 4))], code="incompatible-inputs"),
    ErrorCase("groups-differ-interval", [unit((2, 3, 4)), unit((3, 5, 4))], shapes={0: ("1..2,3,4", "f32"), 1: ("3..5,5,4", "f32")},
              code="incompatible-inputs"),
    ErrorCase("tokens-without-offsets", [unit((7, 4)), unit((2, 5, 4))], code="incompatible-inputs"),
    ErrorCase("offsets-2d", [unit((7, 4)), unit((2, 5, 4)), np.array([[3, 7]], np.int64)], code="bad-input-rank"),
    ErrorCase("offsets-scalar", [unit((7, 4)), unit((2, 5, 4)), np.array(7, np.int64)], code="bad-input-rank"),
    ErrorCase("offsets-f32", [unit((7, 4)), unit((2, 5, 4)), np.array([3, 7], np.float32)], code="bad-input-type"),
    ErrorCase("types-differ", [unit((2, 3, 4)), unit((2, 5, 4), np.float16)], code="bad-input-type"),
    ErrorCase("offsets-decrease", [unit((7, 4)), unit((2, 5, 4)), ends(5, 3)], const=(2,), code="bad-value",
              ov=OV_VALUE_UNCHECKED),
    ErrorCase("offsets-past-rows", [unit((7, 4)), unit((2, 5, 4)), ends(3, 8)], const=(2,), code="bad-value",
              ov=OV_VALUE_UNCHECKED),
    ErrorCase("offsets-per-group", [unit((7, 4)), unit((2, 5, 4)), ends(3, 5, 7)], const=(2,), code="bad-value",
              ov=OV_VALUE_UNCHECKED),
])

TABLES = [GROUPED_MATMUL]
test_conformance = conformance(TABLES)


def _offsets_model(tmp_path: Any) -> str:
    b = IRBuilder(name="moe")
    ins = [b.parameter("a", "?,4"), b.parameter("b", "2,5,4"), b.parameter("offsets", "2", "i64")]
    b.result(b.layer("GroupedMatMul", "opset17", ins, {}, name="experts"), name="out")
    xml = tmp_path / "model.xml"
    b.write(xml)
    return str(xml)


@pytest.mark.parametrize("offsets, why", [((5, 3), "must not decrease"), ((3, 8), "past mat_a's 7 rows"),
                                          ((-1, 7), "is negative")])
def test_offsets_refused_at_run_time(tmp_path: Any, run_cli: Any, offsets: tuple[int, int], why: str) -> None:
    feeds = tmp_path / "in.npz"
    np.savez(feeds, a=unit((7, 4)), b=unit((2, 5, 4)), offsets=ends(*offsets))
    r = run_cli("run", _offsets_model(tmp_path), "--inputs", feeds)
    assert r.exit_code == 1, r.output
    assert "bad-value" in r.output and why in r.output and "experts" in r.output, r.output


def test_offsets_run_through_the_cli(tmp_path: Any, run_cli: Any) -> None:
    x = [unit((7, 4)), unit((2, 5, 4)), ends(3, 6)]
    np.savez(tmp_path / "in.npz", a=x[0], b=x[1], offsets=x[2])
    np.savez(tmp_path / "want.npz", out=ref_grouped_matmul(x, {})[0])
    r = run_cli("run", _offsets_model(tmp_path), "--inputs", tmp_path / "in.npz", "--compare", tmp_path / "want.npz",
                "--atol", "1e-5", "--rtol", "1e-5")
    assert r.exit_code == 0, r.output
