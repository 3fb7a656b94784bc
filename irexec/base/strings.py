"""The ``string`` element type: its packing in a .bin, and its NumPy forms.

In memory a string tensor is a NumPy object array whose elements are ``bytes``:
OpenVINO's strings are byte strings (a tokenizer may hold invalid UTF-8, NUL bytes
and trailing NULs), which neither NumPy's ``U`` nor ``S`` dtype holds exactly.
In .npz files they are ``U`` (unicode) or ``S`` (bytes) arrays, never pickled
objects."""

from __future__ import annotations

import sys

import numpy as np

from .errors import InputError, ModelError

OBJECT = np.dtype(object)

# What an element of a string tensor holds beside its characters: the object
# array's pointer and the header of the ``bytes`` object it points to.
ELEMENT_OVERHEAD = np.dtype(object).itemsize + sys.getsizeof(b"")


def held_bytes(count: int, chars: int) -> int:
    """Memory a string tensor of ``count`` elements and ``chars`` characters in all holds."""
    return count * ELEMENT_OVERHEAD + chars


def array_bytes(arr: np.ndarray) -> int:
    """Memory an array holds, a string (object) array's characters included."""
    if arr.dtype != OBJECT:
        return arr.nbytes
    return held_bytes(arr.size, sum(len(x) for x in arr.reshape(-1) if isinstance(x, (bytes, str))))


def packed_header(count: int) -> int:
    """Bytes before the characters in a packed Const: an i32 count and count + 1 i32 offsets."""
    return 4 * (count + 2)


def packed_chars(raw: memoryview | bytes, shape: tuple[int, ...]) -> int:
    """The characters' length of a packed string Const, from its count and
    offsets alone (checked): what unpacking it will hold, known before it is done."""
    count = int(np.prod(shape, dtype=np.int64)) if shape else 1
    return 0 if count == 0 else int(_offsets(raw, shape, count)[-1])


def _offsets(raw: memoryview | bytes, shape: tuple[int, ...], count: int) -> np.ndarray:
    head = packed_header(count)
    if len(raw) < head:
        raise ModelError(f"a string Const of {count} elements needs at least {head} bytes for its count and offsets, "
                         f"the blob has {len(raw)}", code="bad-string-const")
    header = np.frombuffer(raw, dtype="<i4", count=count + 2)
    if int(header[0]) != count:
        raise ModelError(f"the string Const's blob holds {int(header[0])} strings but its shape {list(shape)} has {count}",
                         code="bad-string-const")
    offsets = header[1:].astype(np.int64)
    ends = offsets[1:]
    if offsets[0] != 0 or np.any(ends < offsets[:-1]) or head + int(ends[-1]) > len(raw):
        raise ModelError(f"the string Const's offsets {_some(offsets)} are not increasing from 0 within its "
                         f"{len(raw) - head} bytes of characters", code="bad-string-const")
    return offsets


def unpack(raw: memoryview | bytes, shape: tuple[int, ...]) -> np.ndarray:
    """A string Const's value from its bytes in the .bin: i32 count, count + 1
    i32 offsets (the first 0), then the characters (as ov::AttributeAdapter<std::string> writes)."""
    count = int(np.prod(shape, dtype=np.int64)) if shape else 1
    out = np.empty(shape, dtype=OBJECT)
    if count == 0:
        return out
    offsets = (_offsets(raw, shape, count) + packed_header(count)).tolist()
    view = memoryview(raw)  # each element copied once, straight from the map
    flat = out.reshape(-1)
    for i in range(count):
        flat[i] = bytes(view[offsets[i]:offsets[i + 1]])
    return out


def pack(arr: np.ndarray) -> bytes:
    """The .bin bytes of a string tensor (the inverse of ``unpack``)."""
    items = [bytes(x) for x in arr.reshape(-1)]
    offsets = np.zeros(len(items) + 1, dtype="<i4")
    offsets[1:] = np.cumsum([len(x) for x in items]) if items else []
    return np.array([len(items)], "<i4").tobytes() + offsets.tobytes() + b"".join(items)


def _some(values: np.ndarray) -> str:
    shown = ", ".join(str(int(v)) for v in values[:6])
    return f"[{shown}{', ...' if len(values) > 6 else ''}]"


def is_text(arr: np.ndarray) -> bool:
    """Whether an array can feed a string input: NumPy unicode, bytes, or an
    object array of str/bytes (the Python API's forms)."""
    if arr.dtype.kind in "US":
        return True
    return arr.dtype == OBJECT and all(isinstance(x, (str, bytes)) for x in arr.reshape(-1))


def from_numpy(arr: np.ndarray) -> np.ndarray:
    """An input array as the object array of bytes irexec computes on; str is
    encoded as UTF-8 (a lone surrogate cannot be, and is refused)."""
    if arr.dtype == OBJECT and all(isinstance(x, bytes) for x in arr.reshape(-1)):
        return arr
    out = np.empty(arr.shape, dtype=OBJECT)
    flat, src = out.reshape(-1), arr.reshape(-1)
    for i, x in enumerate(src):
        if isinstance(x, (bytes, np.bytes_)):
            flat[i] = bytes(x)
        else:
            try:
                flat[i] = str(x).encode("utf-8")
            except UnicodeEncodeError as e:
                raise InputError(f"string element {i} cannot be encoded as UTF-8: {e.reason}", code="input-mismatch") from None
    return out


def to_numpy(arr: np.ndarray) -> np.ndarray:
    """A string result as an array an .npz holds without pickle: unicode when every
    element is valid UTF-8 (NumPy drops trailing NUL characters of either kind), else bytes."""
    if arr.dtype != OBJECT:
        return arr
    items = [bytes(x) for x in arr.reshape(-1)]
    try:
        texts = [x.decode("utf-8") for x in items]
    except UnicodeDecodeError:
        return np.array(items, dtype=np.bytes_).reshape(arr.shape) if items else np.empty(arr.shape, "S1")
    return np.array(texts, dtype=np.str_).reshape(arr.shape) if texts else np.empty(arr.shape, "U1")


def show(x: bytes | str, limit: int = 60) -> str:
    """One string element as short readable text: its UTF-8 text quoted, else its bytes literal."""
    if isinstance(x, bytes):
        try:
            x = x.decode("utf-8")
        except UnicodeDecodeError:
            pass
    text = repr(x)
    return text if len(text) <= limit else text[:limit] + "..." + text[-1]  # the literal's own closing quote


def as_bytes(arr: np.ndarray) -> np.ndarray:
    """Any string form (unicode, bytes, object) as an object array of bytes, for comparing."""
    return from_numpy(arr) if arr.dtype.kind in "USO" else arr
