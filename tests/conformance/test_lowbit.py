"""Conformance tables of the low-bit element types (u1, u2, u3, u4, u6, i4,
nf4, f4e2m1, f8e4m3, f8e5m2, f8e8m0): Convert from each (packed Consts of
odd and even counts, every code) and into each (rounding, saturation, NaN,
wrap-around), data movement, and arithmetic on u4/i4.  The reference is
OpenVINO's own reference Convert (``Node.evaluate``), which the ``openvino-values``
aspect then checks against what the CPU plugin computes from the same file."""

from __future__ import annotations

from typing import Any

import numpy as np
from oracle import reference_convert

from conformance.harness import Case, ErrorCase, OpTable, conformance, table_rng
from irexec.base import lowbit

TYPES = list(lowbit.DTYPES)
INTS = [t for t in TYPES if t in lowbit.NARROW_INTS]
CPU_NO_CONVERT = "OpenVINO CPU has no Convert from this type at run time (compiled from a Const it folds it)"


def codes(etype: str, n: int) -> np.ndarray:
    """Every code of the type once, then random ones: ``n`` elements."""
    bits = lowbit.DTYPES[etype][1]
    every = np.arange(1 << bits, dtype=np.uint8)
    more = rng.integers(0, 1 << bits, max(n - every.size, 0)).astype(np.uint8)
    return lowbit.from_codes(np.concatenate([every, more])[:n] if n >= every.size else rng.permutation(every)[:n], etype)


def ref_convert(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    out = reference_convert(x[0], attrs["destination_type"])
    assert out is not None
    return [out]


CPU_FTZ = "OpenVINO CPU flushes f8e8m0's code 0 (2^-127, an f32 subnormal) to 0; its reference and irexec do not"


def finite(a: np.ndarray) -> np.ndarray:
    """Without NaN and infinities: to an integer type irexec's Convert gives 0 for
    them (ops/convert.py), OpenVINO's reference the C cast's INT_MIN."""
    return a[np.isfinite(lowbit.to_number(a).astype(np.float32))]


def from_cases(dst: str) -> list[Case]:
    cases = []
    for etype in TYPES:
        if etype == dst or reference_convert(codes(etype, 2), dst) is None:
            continue  # OpenVINO has no such Convert (f8e8m0, nf4, f4e2m1 -> i32): irexec truncates the f32 value
        ov = CPU_FTZ if (etype, dst) == ("f8e8m0", "f32") else True
        keep = finite if dst in ("i32", "u8") else (lambda a: a)
        for n in (5, 13, 64 + 7):
            cases.append(Case(f"{etype}[{n}]", [keep(codes(etype, n))], {"destination_type": dst}, const=(0,), ov=ov))
        cases.append(Case(f"{etype}-2d", [codes(etype, 12).reshape(3, 4)], {"destination_type": dst}, const=(0,), ov=ov))
    return cases


FLOATS = np.array([0.0, -0.0, 0.3, -0.3, 0.25, 0.75, 1.5, 2.5, 3.0, 3.5, 5.0, 6.5, 7.0, 12.0, 0.375, 1e-3, 0.1,
                   1.3126, 1.4371, 1.5626, -1.3126,  # f8e4m3: a tie once rounded to f16, as OpenVINO rounds them
                   448, 449, 464, 465, 480, 500, 57344, 61440, 65504, 1e9, -1e9, 1e-39, 3e38,
                   np.inf, -np.inf, np.nan, -0.9, 0.04, -0.05], np.float32)
NO_NF4_MIDPOINTS = "irexec follows nf4.cpp's f32 comparisons; OpenVINO CPU differs within an ulp of the 15 midpoints"
CPU_NO_WRAP = "OpenVINO CPU keeps u4/i4 results out of the type's range (the reference wraps modulo 16, as irexec)"
CPU_U1_OUT = "OpenVINO CPU cannot return a u1 output (its output byte size check fails)"
CPU_CRASH = "OpenVINO CPU's run-time Convert into u1/u2/u3/u6 is missing or crashes (free(): invalid pointer)"


def into_cases(dst: str) -> list[Case]:
    finite = (rng.standard_normal(61) * 4).astype(np.float32)
    ints = np.array([-300, -20, -9, -8, -1, 0, 1, 3, 5, 7, 8, 15, 16, 17, 63, 64, 300], np.int32)
    wrapped = dst in INTS
    cpu_f32 = CPU_CRASH if dst in ("u1", "u2", "u3", "u6") else CPU_NO_WRAP if wrapped else True
    cases = [
        Case("f32-special", [FLOATS], {"destination_type": dst}, const=(0,), ov=CPU_U1_OUT if dst == "u1" else True),
        Case("f32-param", [finite if dst == "nf4" else np.concatenate([FLOATS, finite])], {"destination_type": dst},
             ov=cpu_f32),
        Case("f16", [np.concatenate([FLOATS, finite]).astype(np.float16)], {"destination_type": dst}, const=(0,),
             ov=CPU_U1_OUT if dst == "u1" else True),
    ]
    if wrapped:
        cases.append(Case("i32", [ints], {"destination_type": dst}, const=(0,), ov=CPU_U1_OUT if dst == "u1" else True))
    return cases


TABLES: list[OpTable] = []
for _dst in ("f32", "f16", "i32", "u8"):
    rng = table_rng(f"Convert-from-lowbit-to-{_dst}")  # each table its own generator
    TABLES.append(OpTable("Convert", "opset1", reference=ref_convert, cases=from_cases(_dst),
                          id=f"Convert-from-lowbit-to-{_dst}"))
for _dst in TYPES:
    rng = table_rng(f"Convert-f32-to-{_dst}")  # each table its own generator
    TABLES.append(OpTable("Convert", "opset1", reference=ref_convert, cases=into_cases(_dst), id=f"Convert-f32-to-{_dst}"))


def ref_wrap(fn: Any) -> Any:
    def ref(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
        a, b = (v.astype(np.int64) for v in x)
        etype = lowbit.name_of(x[0].dtype)
        assert etype is not None
        return [lowbit.from_integers(fn(a, b), etype)]
    return ref


U4, I4 = lowbit.DTYPES["u4"][0], lowbit.DTYPES["i4"][0]


def nibbles(dtype: Any, shape: tuple[int, ...]) -> np.ndarray:
    lo, hi = (0, 15) if dtype == U4 else (-8, 7)
    return rng.integers(lo, hi, shape, endpoint=True).astype(dtype)


CPU_U4_SUBTRACT = "OpenVINO CPU gives 0 where a u4 Subtract goes below 0; irexec wraps modulo 16 as its Add does"
for name, fn in (("Add", np.add), ("Subtract", np.subtract), ("Multiply", np.multiply), ("Maximum", np.maximum)):
    rng = table_rng(f"{name}-4bit")  # each table its own generator
    TABLES.append(OpTable(name, "opset1", reference=ref_wrap(fn), id=f"{name}-4bit", cases=[
        Case("u4", [nibbles(U4, (3, 5)), nibbles(U4, (5,))], ov=CPU_U4_SUBTRACT if name == "Subtract" else True),
        Case("u4-const", [nibbles(U4, (2, 7)), nibbles(U4, (2, 7))], const=(1,),
             ov=CPU_U4_SUBTRACT if name == "Subtract" else True),
        Case("i4", [nibbles(I4, (4, 3)), nibbles(I4, (4, 1))]),
        Case("u4-scalar", [np.array(9, U4), np.array(11, U4)], const=(1,), ov=CPU_U4_SUBTRACT if name == "Subtract" else True),
    ], errors=[ErrorCase("u4-with-i4", [nibbles(U4, (2,)), nibbles(I4, (2,))], code="bad-input-type")]))


def ref_reshape(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    return [x[0].reshape(tuple(int(d) for d in x[1]))]


MOVABLE = ["u4", "i4", "nf4", "f4e2m1", "f8e4m3", "f8e5m2", "f8e8m0", "u2"]
rng = table_rng("Reshape-lowbit")  # each table its own generator
TABLES.append(OpTable("Reshape", "opset1", reference=ref_reshape, id="Reshape-lowbit", cases=[
    Case(etype, [codes(etype, 12).reshape(3, 4), np.array([2, 6], np.int64)], {"special_zero": False}, const=(1,))
    for etype in MOVABLE
] + [Case(f"{etype}-const", [codes(etype, 15).reshape(5, 3), np.array([15], np.int64)], {"special_zero": False},
          const=(0, 1), ov=CPU_U1_OUT if etype == "u1" else True) for etype in ("u1", "u3", "u6")]))

test_conformance = conformance(TABLES)
