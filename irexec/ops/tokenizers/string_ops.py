"""EqualStr, StringToHashBucket, ContribStringJoin and ContribStringSplit
(openvino_tokenizers): comparisons, hashes, joins and splits of decomposed string
tensors (begins, ends, bytes), as converted from TensorFlow and ONNX string ops."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base import dtypes
from ...base.shapes import DYNAMIC, Dim, PartialShape
from ..framework.base import Attr, In, Inference, Op, OpError, TensorInfo, require
from ..framework.registry import register
from .ragged import ET_I32, ET_U8, EXTENSION, FLAT, I32, U8, i32, pattern_input, text_of

ET_I64 = dtypes.get("i64")


def _string(prefix: str) -> tuple[In, ...]:
    return In(f"{prefix}begins", I32), In(f"{prefix}ends", I32), In(f"{prefix}chars", U8)


def _strings_of(begins: np.ndarray, ends: np.ndarray, chars: np.ndarray, port: int) -> list[bytes]:
    b, e, raw = text_of(begins, ends, chars, port)
    return [raw[x:y] for x, y in zip(b, e)]


def _pack(items: list[bytes], shape: tuple[int, ...]) -> list[np.ndarray]:
    """begins, ends (shaped) and the bytes of a list of strings, one after the other."""
    lengths = np.fromiter((len(s) for s in items), np.int64, len(items))
    ends = np.cumsum(lengths)
    return [i32(ends - lengths).reshape(shape), i32(ends).reshape(shape), np.frombuffer(b"".join(items), np.uint8).copy()]


@register
class EqualStr(Op):
    type, version = "EqualStr", 1
    family = "tokenizers"
    extension = EXTENSION
    summary = "1 where two string lists hold equal strings, else 0 (i32); a one-string list is compared with every string"
    inputs = (*_string("a_"), *_string("b_"))

    def infer(self, *infos: TensorInfo) -> Inference:
        return Inference([TensorInfo(FLAT, ET_I32)])  # as the extension declares it, whatever the inputs' shapes

    def compute(self, plan: None, *arrays: np.ndarray) -> Sequence[np.ndarray]:
        a = _strings_of(arrays[0], arrays[1], arrays[2], 0)
        b = _strings_of(arrays[3], arrays[4], arrays[5], 3)
        n = 0 if not a or not b else max(len(a), len(b))
        # the extension's broadcast: an index past a list's end reads its first string
        return [i32([a[k if k < len(a) else 0] == b[k if k < len(b) else 0] for k in range(n)])]


# FarmHash's Fingerprint64, which the extension and TensorFlow's StringToHashBucketFast use.
_K0, _K1, _K2 = 0xC3A5C85C97CB3127, 0xB492B66FBE98F273, 0x9AE16A3B2F90404F
_M = (1 << 64) - 1


def _rot(v: int, s: int) -> int:
    return v if s == 0 else ((v >> s) | (v << (64 - s))) & _M


def _f64(s: bytes, i: int) -> int:
    return int.from_bytes(s[i:i + 8], "little")


def _f32(s: bytes, i: int) -> int:
    return int.from_bytes(s[i:i + 4], "little")


def _mix(v: int) -> int:
    return v ^ (v >> 47)


def _len16(u: int, v: int, mul: int) -> int:
    a = ((u ^ v) * mul) & _M
    a ^= a >> 47
    b = ((v ^ a) * mul) & _M
    b ^= b >> 47
    return (b * mul) & _M


def _len0_16(s: bytes) -> int:
    n = len(s)
    if n >= 8:
        mul = _K2 + n * 2
        a = (_f64(s, 0) + _K2) & _M
        b = _f64(s, n - 8)
        c = (_rot(b, 37) * mul + a) & _M
        d = ((_rot(a, 25) + b) * mul) & _M
        return _len16(c, d, mul)
    if n >= 4:
        return _len16(n + (_f32(s, 0) << 3), _f32(s, n - 4), _K2 + n * 2)
    if n > 0:
        y = (s[0] + (s[n >> 1] << 8)) & 0xFFFFFFFF
        z = (n + (s[n - 1] << 2)) & 0xFFFFFFFF
        return (_mix(((y * _K2) ^ (z * _K0)) & _M) * _K2) & _M
    return _K2


def _len17_32(s: bytes) -> int:
    n = len(s)
    mul = _K2 + n * 2
    a = (_f64(s, 0) * _K1) & _M
    b = _f64(s, 8)
    c = (_f64(s, n - 8) * mul) & _M
    d = (_f64(s, n - 16) * _K2) & _M
    return _len16((_rot((a + b) & _M, 43) + _rot(c, 30) + d) & _M, (a + _rot((b + _K2) & _M, 18) + c) & _M, mul)


def _len33_64(s: bytes) -> int:
    n = len(s)
    mul = _K2 + n * 2
    a = (_f64(s, 0) * _K2) & _M
    b = _f64(s, 8)
    c = (_f64(s, n - 8) * mul) & _M
    d = (_f64(s, n - 16) * _K2) & _M
    y = (_rot((a + b) & _M, 43) + _rot(c, 30) + d) & _M
    z = _len16(y, (a + _rot((b + _K2) & _M, 18) + c) & _M, mul)
    e = (_f64(s, 16) * mul) & _M
    f = _f64(s, 24)
    g = ((y + _f64(s, n - 32)) * mul) & _M
    h = ((z + _f64(s, n - 24)) * mul) & _M
    return _len16((_rot((e + f) & _M, 43) + _rot(g, 30) + h) & _M, (e + _rot((f + a) & _M, 18) + g) & _M, mul)


def _weak32(s: bytes, i: int, a: int, b: int) -> tuple[int, int]:
    w, x, y, z = _f64(s, i), _f64(s, i + 8), _f64(s, i + 16), _f64(s, i + 24)
    a = (a + w) & _M
    b = _rot((b + a + z) & _M, 21)
    c = a
    a = (a + x + y) & _M
    b = (b + _rot(a, 44)) & _M
    return (a + z) & _M, (b + c) & _M


def fingerprint64(s: bytes) -> int:
    n = len(s)
    if n <= 16:
        return _len0_16(s)
    if n <= 32:
        return _len17_32(s)
    if n <= 64:
        return _len33_64(s)
    seed = 81
    x = seed
    y = (seed * _K1 + 113) & _M
    z = (_mix((y * _K2 + 113) & _M) * _K2) & _M
    v = (0, 0)
    w = (0, 0)
    x = (x * _K2 + _f64(s, 0)) & _M
    end = ((n - 1) // 64) * 64
    last64 = end + ((n - 1) & 63) - 63
    p = 0
    while True:
        x = (_rot((x + y + v[0] + _f64(s, p + 8)) & _M, 37) * _K1) & _M
        y = (_rot((y + v[1] + _f64(s, p + 48)) & _M, 42) * _K1) & _M
        x ^= w[1]
        y = (y + v[0] + _f64(s, p + 40)) & _M
        z = (_rot((z + w[0]) & _M, 33) * _K1) & _M
        v = _weak32(s, p, (v[1] * _K1) & _M, (x + w[0]) & _M)
        w = _weak32(s, p + 32, (z + w[1]) & _M, (y + _f64(s, p + 16)) & _M)
        z, x = x, z
        p += 64
        if p == end:
            break
    mul = _K1 + ((z & 0xFF) << 1)
    p = last64
    w = ((w[0] + ((n - 1) & 63)) & _M, w[1])
    v = ((v[0] + w[0]) & _M, v[1])
    w = ((w[0] + v[0]) & _M, w[1])
    x = (_rot((x + y + v[0] + _f64(s, p + 8)) & _M, 37) * mul) & _M
    y = (_rot((y + v[1] + _f64(s, p + 48)) & _M, 42) * mul) & _M
    x ^= (w[1] * 9) & _M
    y = (y + v[0] * 9 + _f64(s, p + 40)) & _M
    z = (_rot((z + w[0]) & _M, 33) * mul) & _M
    v = _weak32(s, p, (v[1] * mul) & _M, (x + w[0]) & _M)
    w = _weak32(s, p + 32, (z + w[1]) & _M, (y + _f64(s, p + 16)) & _M)
    z, x = x, z
    return _len16((_len16(v[0], w[0], mul) + _mix(y) * _K0 + z) & _M, (_len16(v[1], w[1], mul) + x) & _M, mul)


@register
class StringToHashBucket(Op):
    type, version = "StringToHashBucket", 1
    family = "tokenizers"
    extension = EXTENSION
    summary = "each string's FarmHash Fingerprint64 modulo num_buckets (i64), as TensorFlow's StringToHashBucketFast"
    inputs = _string("")
    attributes = {"num_buckets": Attr("int", 0, required=True, doc="the number of buckets, positive")}

    def validate(self) -> list:
        if self.num_buckets <= 0:
            return [OpError(f"num_buckets={self.num_buckets} must be positive", code="bad-attribute")]
        return []

    def infer(self, begins: TensorInfo, ends: TensorInfo, chars: TensorInfo) -> Inference:
        return Inference([TensorInfo(begins.shape, ET_I64)])

    def compute(self, plan: None, begins: np.ndarray, ends: np.ndarray, chars: np.ndarray) -> Sequence[np.ndarray]:
        items = _strings_of(begins, ends, chars, 0)
        out = np.fromiter((fingerprint64(s) % self.num_buckets for s in items), np.int64, len(items))
        return [out.reshape(begins.shape)]


def _axis(value: np.ndarray, rank: int, port: int) -> int:
    require(value.size == 1, "bad-value", f"the axis holds {value.size} values, not one", port)
    axis = int(value.reshape(-1)[0])
    if rank == 0:
        return 0
    require(-rank <= axis < rank, "axis-out-of-range", f"axis {axis} is outside [{-rank}, {rank - 1}]", port)
    return axis % rank


@register
class ContribStringJoin(Op):
    type, version = "ContribStringJoin", 1
    family = "tokenizers"
    extension = EXTENSION
    summary = "the strings along an axis joined with a separator (ONNX Runtime extensions' StringJoin)"
    inputs = (*_string(""), In("separator", U8), In("axis", ("i32", "i64"), value=True))
    outputs = 3

    def infer(self, begins: TensorInfo, ends: TensorInfo, chars: TensorInfo, sep: TensorInfo, axis: TensorInfo) -> Inference:
        pattern_input(sep, 3)
        dims = begins.shape.dims
        if dims is None:
            shape = PartialShape(None)
        elif len(dims) <= 1:
            shape = PartialShape(())
        else:
            value = axis.value() if axis.is_constant else None
            if value is None:
                shape = PartialShape.dynamic(len(dims) - 1)
            else:
                a = _axis(value, len(dims), 4)
                shape = PartialShape(tuple(d for k, d in enumerate(dims) if k != a))
        return Inference([TensorInfo(shape, ET_I32), TensorInfo(shape, ET_I32), TensorInfo(FLAT, ET_U8)])

    def compute(self, plan: None, begins: np.ndarray, ends: np.ndarray, chars: np.ndarray, sep: np.ndarray,
                axis: np.ndarray) -> Sequence[np.ndarray]:
        a = _axis(axis, begins.ndim, 4)
        items = _strings_of(begins, ends, chars, 0)
        if begins.ndim == 0:
            return _pack(items, ())
        flat = np.empty(len(items), dtype=object)
        flat[:] = items
        grid: np.ndarray = np.moveaxis(flat.reshape(begins.shape), a, -1)
        out_shape: tuple[int, ...] = tuple(grid.shape[:-1])
        along = int(grid.shape[-1])
        count = int(np.prod(out_shape, dtype=np.int64))
        if along == 0:  # nothing to join: empty strings
            return _pack([b""] * count, out_shape)
        separator = sep.tobytes()
        return _pack([separator.join(row) for row in grid.reshape(count, along).tolist()], out_shape)


@register
class ContribStringSplit(Op):
    type, version = "ContribStringSplit", 1
    family = "tokenizers"
    extension = EXTENSION
    summary = ("each string split at a delimiter (at every byte when it is empty), as a sparse tensor: "
               "indices, values, dense shape (ONNX Runtime extensions' StringSplit)")
    inputs = (*_string(""), In("delimiter", U8), In("skip_empty", ("boolean", "u8", "i8")))
    outputs = 5

    def infer(self, begins: TensorInfo, ends: TensorInfo, chars: TensorInfo, delim: TensorInfo,
              skip: TensorInfo) -> Inference:
        pattern_input(delim, 3)
        rank = begins.shape.rank
        out_rank = Dim.of(rank + 1) if rank is not None else DYNAMIC
        return Inference([TensorInfo(PartialShape((DYNAMIC, out_rank)), ET_I64), TensorInfo(FLAT, ET_I32),
                          TensorInfo(FLAT, ET_I32), TensorInfo(FLAT, ET_U8), TensorInfo(PartialShape((out_rank,)), ET_I64)])

    def compute(self, plan: None, begins: np.ndarray, ends: np.ndarray, chars: np.ndarray, delim: np.ndarray,
                skip: np.ndarray) -> Sequence[np.ndarray]:
        require(skip.size == 1, "bad-value", f"skip_empty holds {skip.size} values, not one", 4)
        skip_empty = bool(skip.reshape(-1)[0])
        items = _strings_of(begins, ends, chars, 0)
        d = delim.tobytes()
        coords = (np.indices(begins.shape).reshape(begins.ndim, -1).T if begins.ndim else np.zeros((len(items), 0), np.int64))
        indices: list[list[int]] = []
        values: list[bytes] = []
        most = 0
        for k, s in enumerate(items):
            tokens = [s[i:i + 1] for i in range(len(s))] if not d else s.split(d)
            for position, token in enumerate(tokens):
                if not skip_empty or token:
                    indices.append([*coords[k].tolist(), position])
                    values.append(token)
            most = max(most, len(tokens))
        out_rank = begins.ndim + 1
        b, e, raw = _pack(values, (len(values),))
        return [np.array(indices, np.int64).reshape(len(values), out_rank), b, e, raw,
                np.array([*begins.shape, most], np.int64)]
