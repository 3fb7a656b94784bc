"""Element types narrower than a byte, and the 8- and 4-bit floats: how
OpenVINO packs them into bytes, and their values.

Layouts (OpenVINO's, verified against ``ov.op.Constant`` of packed bytes):

* u1: 8 elements a byte, the first in the most significant bit.
* u2: 4 elements a byte, the first in the least significant two bits.
* u4, i4, nf4, f4e2m1: 2 elements a byte, the first in the low nibble.
* u3: 8 elements in 3 bytes.  Bytes 0 and 1 hold the low two bits of
  elements 0-3 and 4-7, the first element in the most significant pair;
  byte 2 holds bit 2 (weight 4) of elements 0-7, the first in bit 7.
* u6: 4 elements in 3 bytes.  Bytes 0 and 1 hold the low four bits of
  elements 0-1 and 2-3, the first element in the high nibble; byte 2 holds
  bits 4-5 (weights 16, 32) of elements 0-3, the first in bits 6-7.
* f8e4m3, f8e5m2, f8e8m0: one byte each.

In memory irexec holds one element a byte: ml_dtypes' ``uint1``, ``uint2``,
``uint4``, ``int4``, ``float4_e2m1fn``, ``float8_e4m3fn``, ``float8_e5m2``,
``float8_e8m0fnu`` (their values and arithmetic are OpenVINO's, see
``from_float``), and for u3, u6 and nf4, which ml_dtypes lacks, a one-field
structured dtype over the uint8 value (the nf4 code): such arrays move
(Reshape, Concat, Gather...) and convert, and nothing computes on them, as
in OpenVINO's CPU plugin.  The last byte's unused bits are ignored on read
and written as zeros.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator, Mapping

import numpy as np

U3 = np.dtype([("u3", "u1")])
U6 = np.dtype([("u6", "u1")])
NF4 = np.dtype([("nf4", "u1")])
# the types ml_dtypes lacks, each held in one uint8 field
STRUCTURED_DTYPES: dict[str, np.dtype] = {"u3": U3, "u6": U6, "nf4": NF4}

# name -> bits, known without ml_dtypes
BITS: dict[str, int] = {"u1": 1, "u2": 2, "u3": 3, "u4": 4, "u6": 6, "i4": 4, "nf4": 4,
                        "f4e2m1": 4, "f8e4m3": 8, "f8e5m2": 8, "f8e8m0": 8}
# name -> the ml_dtypes type that holds it in memory
ML_DTYPES_NAMES: dict[str, str] = {"u1": "uint1", "u2": "uint2", "u4": "uint4", "i4": "int4",
                                   "f4e2m1": "float4_e2m1fn", "f8e4m3": "float8_e4m3fn", "f8e5m2": "float8_e5m2",
                                   "f8e8m0": "float8_e8m0fnu"}


def ml_dtypes_loaded() -> bool:
    """Whether ml_dtypes is imported: until it is, no array can be of its types,
    so a question about a dtype needs no import to answer no."""
    return "ml_dtypes" in sys.modules


def ml_dtype(type_name: str) -> np.dtype:
    """An ml_dtypes type by its ml_dtypes name, importing the package on first use
    (its import costs 0.1 to 0.6 s, which a model without such tensors never pays)."""
    import ml_dtypes
    return np.dtype(getattr(ml_dtypes, type_name))


class _DtypeTable(Mapping[str, tuple[np.dtype, int]]):
    """name -> (in-memory dtype, bits), built on first lookup of a dtype."""

    def __init__(self) -> None:
        self._table: dict[str, tuple[np.dtype, int]] | None = None

    def _get(self) -> dict[str, tuple[np.dtype, int]]:
        if self._table is None:
            self._table = {name: (STRUCTURED_DTYPES[name] if name in STRUCTURED_DTYPES else ml_dtype(ML_DTYPES_NAMES[name]), bits)
                           for name, bits in BITS.items()}
        return self._table

    def __getitem__(self, name: str) -> tuple[np.dtype, int]:
        return self._get()[name]

    def __contains__(self, name: object) -> bool:
        return name in BITS

    def __iter__(self) -> Iterator[str]:
        return iter(BITS)

    def __len__(self) -> int:
        return len(BITS)


DTYPES: Mapping[str, tuple[np.dtype, int]] = _DtypeTable()
# types held in one uint8 field (no ml_dtypes type)
STRUCTURED = {U3: "u3", U6: "u6", NF4: "nf4"}
# integer types narrower than a byte: bits, signed
NARROW_INTS: dict[str, tuple[int, bool]] = {"u1": (1, False), "u2": (2, False), "u3": (3, False), "u4": (4, False),
                                            "u6": (6, False), "i4": (4, True)}
SMALL_FLOATS = frozenset({"f4e2m1", "f8e4m3", "f8e5m2", "f8e8m0"})

# NormalFloat4's values (OpenVINO's ConvertNF4::dequantize), and the midpoints
# its quantize compares with: a value gets the code of the count of
# midpoints it exceeds.
NF4_VALUES = np.array([-1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453, -0.28444138169288635,
                       -0.18477343022823334, -0.09105003625154495, 0.0, 0.07958029955625534, 0.16093020141124725,
                       0.24611230194568634, 0.33791524171829224, 0.44070982933044434, 0.5626170039176941,
                       0.7229568362236023, 1.0], np.float32)
NF4_MIDPOINTS = np.array([-0.8480964004993439, -0.6106329262256622, -0.4599952697753906, -0.33967943489551544,
                          -0.23460740596055984, -0.13791173323988914, -0.045525018125772476, 0.03979014977812767,
                          0.1202552504837513, 0.2035212516784668, 0.2920137718319893, 0.3893125355243683,
                          0.5016634166240692, 0.6427869200706482, 0.8614784181118011], np.float32)


def packed_nbytes(count: int, name: str, bits: int) -> int:
    """Bytes OpenVINO stores ``count`` elements of type ``name`` in."""
    if name == "u3":
        return -(-count // 8) * 3
    if name == "u6":
        return -(-count // 4) * 3
    return -(-count * bits // 8)


def unpack(raw: np.ndarray, count: int, name: str) -> np.ndarray:
    """``count`` elements of type ``name`` (1-D, irexec's in-memory dtype) from
    the packed uint8 array ``raw`` (at least ``packed_nbytes`` long)."""
    dtype, bits = DTYPES[name]
    raw = np.asarray(raw, np.uint8)[: packed_nbytes(count, name, bits)]
    if bits == 8:
        return raw.view(dtype)[:count].copy()
    codes: np.ndarray
    if name == "u1":
        codes = np.unpackbits(raw, bitorder="big")
    elif name == "u2":
        codes = (raw[:, None] >> np.array([0, 2, 4, 6], np.uint8)) & 3
    elif bits == 4:
        codes = (raw[:, None] >> np.array([0, 4], np.uint8)) & 15
    elif name == "u3":
        g = raw.reshape(-1, 3)
        low: np.ndarray = (g[:, :2, None] >> np.array([6, 4, 2, 0], np.uint8)) & 3
        high: np.ndarray = np.unpackbits(g[:, 2:3], axis=1, bitorder="big")
        codes = low.reshape(-1, 8) | (high << 2)
    else:  # u6
        g = raw.reshape(-1, 3)
        low = (g[:, :2, None] >> np.array([4, 0], np.uint8)) & 15
        high = (g[:, 2:3] >> np.array([6, 4, 2, 0], np.uint8)) & 3
        codes = low.reshape(-1, 4) | (high << 4)
    codes = codes.reshape(-1)[:count]
    if name == "i4":
        return ((codes.astype(np.int8) ^ 8) - 8).astype(dtype)
    return from_codes(codes, name)


def from_codes(codes: np.ndarray, name: str) -> np.ndarray:
    """uint8 codes (the stored bits of each element) as the in-memory dtype."""
    dtype = DTYPES[name][0]
    codes = np.array(codes, np.uint8, order="C")  # (ascontiguousarray would make a 0-d array 1-d)
    if name == "i4":
        return ((codes.astype(np.int8) ^ 8) - 8).astype(dtype)
    return codes.view(dtype)


def codes_of(arr: np.ndarray, name: str) -> np.ndarray:
    """The stored bits of each element, as uint8."""
    arr = np.asarray(arr, order="C")
    if arr.dtype in STRUCTURED:
        return arr.view(np.uint8).reshape(arr.shape)
    if name == "i4":
        return (arr.astype(np.int8) & 15).astype(np.uint8)
    return arr.view(np.uint8).reshape(arr.shape) & np.uint8((1 << DTYPES[name][1]) - 1)


def pack(arr: np.ndarray, name: str) -> bytes:
    """The bytes OpenVINO stores the elements of ``arr`` (any shape) in."""
    bits = DTYPES[name][1]
    codes = codes_of(arr, name).reshape(-1)
    n = codes.size
    if bits == 8:
        return codes.tobytes()
    per = {"u3": 8, "u6": 4}.get(name, 8 // bits)
    padded = np.zeros(-(-n // per) * per, np.uint8)
    padded[:n] = codes
    out: np.ndarray
    if name == "u1":
        out = np.packbits(padded, bitorder="big")
    elif name == "u2":
        g = padded.reshape(-1, 4)
        out = g[:, 0] | g[:, 1] << 2 | g[:, 2] << 4 | g[:, 3] << 6
    elif bits == 4:
        g = padded.reshape(-1, 2)
        out = g[:, 0] | g[:, 1] << 4
    elif name == "u3":
        g = padded.reshape(-1, 8)
        low = g & 3
        b0 = low[:, 0] << 6 | low[:, 1] << 4 | low[:, 2] << 2 | low[:, 3]
        b1 = low[:, 4] << 6 | low[:, 5] << 4 | low[:, 6] << 2 | low[:, 7]
        b2 = np.packbits((g >> 2) & 1, axis=1, bitorder="big")[:, 0]
        out = np.stack([b0, b1, b2], axis=1)
    else:  # u6
        g = padded.reshape(-1, 4)
        low, high = g & 15, g >> 4
        out = np.stack([low[:, 0] << 4 | low[:, 1], low[:, 2] << 4 | low[:, 3],
                        high[:, 0] << 6 | high[:, 1] << 4 | high[:, 2] << 2 | high[:, 3]], axis=1)
    return np.ascontiguousarray(out, np.uint8).tobytes()


# ------------------------------------------------------------------ values

def to_number(arr: np.ndarray) -> np.ndarray:
    """A low-bit array as a NumPy number array holding the same values exactly:
    narrow integers as int8/uint8, nf4 and the small floats as float32."""
    dtype = arr.dtype
    name = STRUCTURED.get(dtype)
    if name is not None:
        # only the type's bits count (as codes_of and pack read them): a uint8 field may hold more
        codes = arr.view(np.uint8).reshape(arr.shape) & np.uint8((1 << DTYPES[name][1]) - 1)
        return NF4_VALUES[codes] if name == "nf4" else codes
    if dtype == DTYPES["i4"][0]:
        return arr.astype(np.int8)
    if dtype in (DTYPES["u1"][0], DTYPES["u2"][0], DTYPES["u4"][0]):
        return arr.astype(np.uint8)
    return arr.astype(np.float32)  # the small floats: exact (f8e8m0's 2^-127 is an f32 subnormal)


def name_of(dtype: np.dtype) -> str | None:
    """The low-bit type a dtype holds, or None."""
    structured = STRUCTURED.get(dtype)
    if structured is not None or not ml_dtypes_loaded():
        return structured
    for name, (d, _) in DTYPES.items():
        if d == dtype:
            return name
    return None


def from_integers(wide: np.ndarray, name: str) -> np.ndarray:
    """int64 values wrapped modulo 2^bits into a narrow integer type, as
    OpenVINO's reference Convert does."""
    bits, signed = NARROW_INTS[name]
    codes = (wide & ((1 << bits) - 1)).astype(np.uint8)
    return from_codes(codes, name)


def from_float(x: np.ndarray, name: str) -> np.ndarray:
    """float32 values rounded into a small float or nf4 as OpenVINO's reference
    Convert does.  f8e4m3 and f8e5m2 round the value to f16 first, then to
    nearest even (OpenVINO's float8 types go through float16: a direct cast,
    as ml_dtypes' from f32, differs on values near a tie); past the largest
    finite value f8e4m3 gives NaN, f8e5m2 infinity.  f4e2m1 is ml_dtypes'
    cast but NaN becomes 6 with NaN's sign (ml_dtypes gives 0); f8e8m0 and nf4
    are computed here (ml_dtypes' f8e8m0 differs on negative values,
    infinities and ties)."""
    x = np.asarray(x, np.float32)
    dtype = DTYPES[name][0]
    if name in ("f8e4m3", "f8e5m2"):
        with np.errstate(over="ignore", invalid="ignore"):
            return x.astype(np.float16).astype(dtype)
    if name == "f4e2m1":
        with np.errstate(over="ignore", invalid="ignore"):
            out = x.astype(dtype)
        nan = np.isnan(x)
        if nan.any():
            out[nan] = np.where(np.signbit(x[nan]), -6.0, 6.0).astype(dtype)
        return out
    if name == "f8e8m0":
        bits = x.view(np.uint32)
        exp = ((bits >> 23) & 0xFF).astype(np.int32)
        mant = bits & 0x7FFFFF
        up = (mant > 0x400000) | ((mant == 0x400000) & (exp & 1 == 1))
        codes = np.where(exp >= 0xFE, exp - np.isinf(x), exp + up)
        codes = np.where(np.signbit(x), 0, codes)
        return codes.astype(np.uint8).view(dtype)
    if name == "nf4":
        codes = np.searchsorted(NF4_MIDPOINTS, x, side="left")  # a NumPy scalar, not an array, for 0-d x
        # NaN: every comparison false, OpenVINO's last branch
        return np.asarray(np.where(np.isnan(x), 0, codes), np.uint8).view(NF4)
    raise AssertionError(name)


def count(shape: tuple[int, ...]) -> int:
    return math.prod(int(d) for d in shape)
