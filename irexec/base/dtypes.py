"""IR element types and their NumPy counterparts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from . import lowbit

# The types ml_dtypes holds (bf16 and the low-bit ones): their NumPy dtypes are made
# on first use, so a model without such tensors never imports ml_dtypes.
_ML_DTYPES_NAMES = {"bf16": "bfloat16", **lowbit.ML_DTYPES_NAMES}
_bf16: np.dtype | None = None


def bf16() -> np.dtype:
    global _bf16
    if _bf16 is None:
        _bf16 = lowbit.ml_dtype("bfloat16")
    return _bf16


def is_bf16(dtype: np.dtype) -> bool:
    """Whether ``dtype`` is ml_dtypes' bfloat16, without importing ml_dtypes (no
    array is bf16 until it is imported).  Hot paths call it: `dtype.name` is
    computed anew on every access (slow)."""
    return lowbit.ml_dtypes_loaded() and dtype == bf16()


def __getattr__(name: str) -> Any:
    if name == "BF16":  # the dtype itself, for callers that compare with it
        return bf16()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class ElementType:
    name: str  # canonical IR spelling, e.g. "f32"
    precision: str  # port precision spelling, e.g. "FP32"
    # None: valid IR type that irexec does not execute, or an ml_dtypes type not made yet
    known_dtype: np.dtype | None = field(compare=False, repr=False)
    bits: int

    @property
    def dtype(self) -> np.dtype | None:
        """The NumPy dtype, None for a type irexec does not execute; an ml_dtypes
        type is made (and ml_dtypes imported) on first access."""
        if self.known_dtype is None and self.name in _ML_DTYPES_NAMES:
            made = lowbit.DTYPES[self.name][0] if self.name in lowbit.DTYPES else bf16()
            object.__setattr__(self, "known_dtype", made.newbyteorder("<"))
        return self.known_dtype

    @property
    def supported(self) -> bool:
        return self.known_dtype is not None or self.name in _ML_DTYPES_NAMES

    @property
    def itemsize(self) -> int:
        return (self.bits + 7) // 8

    @property
    def is_integral(self) -> bool:
        """Integral *number* (boolean is not one, as in OpenVINO); u3 and u6 are
        storage only (see lowbit.py) and count as neither integral nor real."""
        return self.name in _INTEGRAL

    @property
    def is_real(self) -> bool:
        return self.name in _REAL

    @property
    def storage_only(self) -> bool:
        """u3, u6, nf4: held, moved and converted, never computed on (see lowbit.py)."""
        return self.name in ("u3", "u6", "nf4")

    @property
    def packed(self) -> bool:
        """Stored in the .bin in a layout of its own (see lowbit.py)."""
        return self.name in lowbit.DTYPES

    @property
    def is_string(self) -> bool:
        """OpenVINO's ``string``: held as a NumPy object array of ``bytes`` (see strings.py)."""
        return self.name == "string"

    @property
    def is_numeric(self) -> bool:
        return self.is_integral or self.is_real

    def __str__(self) -> str:
        return self.name


def _et(name: str, precision: str, dtype: npt.DTypeLike | None, bits: int) -> ElementType:
    """``dtype`` None for an ml_dtypes type (made on first use) or a type irexec does not execute."""
    return ElementType(name, precision, np.dtype(dtype).newbyteorder("<") if dtype is not None else None, bits)


# Executable types, little-endian as OpenVINO writes them.
_SUPPORTED = [
    _et("f64", "FP64", np.float64, 64),
    _et("f32", "FP32", np.float32, 32),
    _et("f16", "FP16", np.float16, 16),
    _et("bf16", "BF16", None, 16),
    _et("i8", "I8", np.int8, 8),
    _et("i16", "I16", np.int16, 16),
    _et("i32", "I32", np.int32, 32),
    _et("i64", "I64", np.int64, 64),
    _et("u8", "U8", np.uint8, 8),
    _et("u16", "U16", np.uint16, 16),
    _et("u32", "U32", np.uint32, 32),
    _et("u64", "U64", np.uint64, 64),
    _et("boolean", "BOOL", np.bool_, 8),
    *(_et(name, "BIN" if name == "u1" else name.upper(), lowbit.STRUCTURED_DTYPES.get(name), bits)
      for name, bits in lowbit.BITS.items()),
    # bits: sizeof(std::string) in OpenVINO, what an element costs in memory before its bytes
    _et("string", "STRING", object, 256),
]

# Valid IR types that irexec reads but does not execute.
_UNSUPPORTED = [
    _et("undefined", "UNSPECIFIED", None, 0),
    _et("dynamic", "UNSPECIFIED", None, 0),
]

_INTEGRAL = frozenset({"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "u1", "u2", "u4", "i4"})
_REAL = frozenset({"f16", "f32", "f64", "bf16", "f8e4m3", "f8e5m2", "f4e2m1", "f8e8m0"})

ELEMENT_TYPES: dict[str, ElementType] = {t.name: t for t in _SUPPORTED + _UNSUPPORTED}

# Every spelling OpenVINO's element::Type(string) accepts (case matters there too).
_SPELLINGS: dict[str, ElementType] = {}
for _t in _SUPPORTED + _UNSUPPORTED:
    _SPELLINGS[_t.name] = _t
    _SPELLINGS.setdefault(_t.precision, _t)
    _SPELLINGS.setdefault(_t.name.upper(), _t)
_SPELLINGS["bin"] = ELEMENT_TYPES["u1"]
_SPELLINGS["BIN"] = ELEMENT_TYPES["u1"]
_SPELLINGS["UNSPECIFIED"] = ELEMENT_TYPES["undefined"]

# an object array is a string tensor (its elements bytes, see strings.py)
_BY_DTYPE: dict[np.dtype, ElementType] = {t.known_dtype: t for t in _SUPPORTED if t.known_dtype is not None}
_ml_dtypes_indexed = False


def _index_ml_dtypes() -> None:
    """Adds the ml_dtypes types to the dtype index, once ml_dtypes is imported."""
    global _ml_dtypes_indexed
    for t in _SUPPORTED:
        if t.name in _ML_DTYPES_NAMES and t.dtype is not None:
            _BY_DTYPE[t.dtype] = t
    _ml_dtypes_indexed = True


def lookup(spelling: str) -> ElementType | None:
    """The element type for an IR spelling (``f32``, ``FP32``, ``BOOL``...), or None."""
    return _SPELLINGS.get(spelling)


def get(name: str) -> ElementType:
    return ELEMENT_TYPES[name]


def from_dtype(dtype: np.dtype) -> ElementType | None:
    """The element type a NumPy dtype holds exactly, or None."""
    dtype = np.dtype(dtype)
    if dtype.byteorder == ">":
        return None
    found = _BY_DTYPE.get(dtype.newbyteorder("<")) or _BY_DTYPE.get(dtype)
    if found is None and not _ml_dtypes_indexed and lowbit.ml_dtypes_loaded():
        _index_ml_dtypes()
        return from_dtype(dtype)
    return found


# Every type with floating-point values: NaN and infinity counters, ``--check-finite``,
# the stats and the reports treat them alike (nf4 is a code book with neither NaN nor
# infinity, and u3/u6 are integers: none of them is here).
def is_float_dtype(dtype: np.dtype) -> bool:
    """Whether a tensor of ``dtype`` holds floating-point values (any width, ml_dtypes too)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return True
    et = from_dtype(dtype)
    return et is not None and et.name in _REAL


def iinfo(dtype: np.dtype) -> Any:
    """The integer limits of ``dtype``: NumPy's for its own integers, ml_dtypes'
    for int4/uint4 (and ml_dtypes is imported only then)."""
    if dtype.kind in "iu":
        return np.iinfo(dtype)
    import ml_dtypes
    return ml_dtypes.iinfo(dtype)


def finfo(dtype: np.dtype) -> Any:
    """The float limits of ``dtype``: NumPy's for f16/f32/f64, ml_dtypes' for bf16
    and the small floats (and ml_dtypes is imported only then)."""
    if dtype.type in (np.float16, np.float32, np.float64, np.longdouble):
        return np.finfo(dtype)
    import ml_dtypes
    return ml_dtypes.finfo(dtype)


def as_float(arr: np.ndarray) -> np.ndarray:
    """A float tensor in a type NumPy computes on: f16/f32/f64 as they are, bf16 and the
    8- and 4-bit floats widened to f32 (exactly: each of their values is an f32)."""
    if arr.dtype.kind == "f" and arr.dtype.type in (np.float16, np.float32, np.float64, np.longdouble):
        return arr
    return arr.astype(np.float32)


def supported_names() -> list[str]:
    return [t.name for t in _SUPPORTED]
