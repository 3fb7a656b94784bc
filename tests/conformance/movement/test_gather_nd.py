"""Conformance tables of GatherND-8 and GatherND-5."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, conformance, random_arrays, table_rng
from conformance.movement.references import BF16, ref_gather_nd


def idx(high: int, shape: tuple[int, ...], dtype: Any = np.int64, low: int | None = None) -> np.ndarray:
    return rng.integers(-high if low is None else low, high, shape).astype(dtype)


def gnd_cases() -> list[Case]:
    return [
        Case("elements", [rand((3, 4)), idx(3, (5, 2), low=0)]),
        Case("slices", [rand((3, 4, 2), np.int8), idx(3, (2, 1), np.int32, low=0)]),
        Case("negative", [rand((3, 4), np.float16), idx(3, (2, 2))]),
        Case("batch", [rand((2, 3, 4), BF16), idx(3, (2, 5, 1), low=0)], attrs={"batch_dims": 1}),
        Case("batch2", [rand((2, 3, 4, 2), np.int32), idx(2, (2, 3, 2, 2), low=0)], attrs={"batch_dims": 2}),
        Case("bool", [rand((4, 2), bool), idx(4, (3, 1), low=0)]),
    ]


def gnd_errors() -> list[ErrorCase]:
    return [
        ErrorCase("too-many", [rand((3, 4)), idx(3, (2, 3), low=0)], code="incompatible-inputs"),
        ErrorCase("batch-too-big", [rand((3, 4)), idx(3, (3, 1), low=0)], attrs={"batch_dims": 2}, code="bad-attribute"),
    ]


rng = table_rng("GatherND-8")  # each table its own generator
rand = random_arrays(rng)
GATHERND8 = OpTable("GatherND", "opset8", reference=ref_gather_nd(8), cases=gnd_cases(), errors=gnd_errors())


rng = table_rng("GatherND-5")  # each table its own generator
rand = random_arrays(rng)
GND5_CASES = gnd_cases()


GATHERND5 = OpTable("GatherND", "opset5", reference=ref_gather_nd(5), cases=GND5_CASES[:2] + GND5_CASES[3:5])

TABLES = [GATHERND8, GATHERND5]
test_conformance = conformance(TABLES)
