"""Tensors in .npz and .npy files: loaded without pickle, written atomically.

Every tensor irexec reads from a file the user names (inputs, references,
state, token files) is read here, by one rule: a regular file, not a link out
of its folder (irexec/system/files.py), its arrays' sizes taken from their headers
and held to the memory limit before anything is allocated or inflated.

NumPy's .npy format has no name for the ml_dtypes types (bf16, u1, u2, u4, i4,
f4e2m1 and the 8-bit floats): irexec writes each as raw bytes of its width
(``|V2`` for bf16, ``|V1`` for the others: the ml_dtypes byte, one element a
byte), which ``np.load`` reads, and ``as_dtype`` turns such bytes back into
the type the model declares for the tensor.  u3, u6 and nf4 are one-field
structured arrays (see lowbit.py), which .npy files hold as they are."""

from __future__ import annotations

import os
import struct
import zipfile
import zlib
from collections.abc import Mapping
from typing import IO, BinaryIO

import numpy as np

from ..base import limits, lowbit, strings
from ..base.errors import InputError, ModelError, shorten
from . import files
from .atomic import atomic_file, cannot_write

MAX_ZIP_NAME = 0xFFFF

_raw: frozenset[np.dtype] | None = None


def _is_raw(dtype: np.dtype) -> bool:
    """Whether .npy files hold ``dtype`` as raw bytes of its width: the ml_dtypes
    types, which no array has until ml_dtypes is imported (so this never imports it)."""
    global _raw
    if not lowbit.ml_dtypes_loaded():
        return False
    if _raw is None:
        _raw = frozenset([lowbit.ml_dtype("bfloat16"), *(lowbit.ml_dtype(n) for n in lowbit.ML_DTYPES_NAMES.values())])
    return dtype in _raw


def storable(arr: np.ndarray) -> np.ndarray:
    """The array as .npz files hold it: an ml_dtypes type as raw bytes of its width."""
    return arr.view(f"V{arr.dtype.itemsize}") if _is_raw(arr.dtype) else arr


def as_dtype(arr: np.ndarray, dtype: np.dtype | None) -> np.ndarray | None:
    """A loaded array as ``dtype`` when it holds exactly that type (raw bytes of an
    ml_dtypes type included, uint16 bits for bf16, unicode or bytes for string), else None."""
    if dtype is None:
        return None  # a type NumPy cannot hold
    if dtype.kind == "O":  # string: unicode or bytes in a file, bytes objects in memory
        return strings.from_numpy(arr) if strings.is_text(arr) else None
    if arr.dtype == dtype:
        return arr
    if _is_raw(dtype) and arr.dtype.kind == "V" and arr.dtype.names is None and arr.dtype.itemsize == dtype.itemsize:
        return arr.view(dtype)
    if arr.dtype == np.uint16 and _is_raw(dtype) and dtype == lowbit.ml_dtype("bfloat16"):
        return arr.view(dtype)
    return None


def load_npz(path: str, max_memory: int | None = None, *, follow_symlinks: bool | None = None) -> dict[str, np.ndarray]:
    """Every array in an .npz; object arrays are refused, never unpickled.

    The headers are read first, so arrays whose shapes add up to more than
    ``max_memory`` bytes (default: limits.default_max_memory()) are refused
    before anything is allocated or decompressed.  Like a model file, it must
    be a regular file and may not be a symbolic link out of its folder (see
    irexec/system/files.py)."""
    try:
        files.check_readable(path, "input file", follow_symlinks, InputError, "bad-input-file")
        with files.open_regular(path, "input file", InputError, "bad-input-file") as f:
            _check_headers(f, path, limits.resolve(max_memory))
            f.seek(0)
            with np.load(f, allow_pickle=False) as data:
                if not isinstance(data, np.lib.npyio.NpzFile):
                    raise InputError(f"{path} is a single .npy array, not an .npz archive of named tensors",
                                     code="bad-input-file", file=path)
                return {key: data[key] for key in data.files}
    except InputError:
        raise
    except FileNotFoundError:
        raise InputError(f"input file {path} does not exist", code="bad-input-file", file=path) from None
    except ValueError as e:
        if "allow_pickle" in str(e) or "Object arrays" in str(e):
            raise InputError(f"{path} holds object arrays, which irexec refuses to unpickle", code="bad-input-file", file=path) from None
        raise InputError(f"{path} is not a readable .npz file: {e}", code="bad-input-file", file=path) from None
    except (OSError, zipfile.BadZipFile, EOFError, KeyError, NotImplementedError, RuntimeError, zlib.error, struct.error) as e:
        # RuntimeError: an encrypted entry; NotImplementedError: an unknown compression method
        raise InputError(f"{path} is not a readable .npz file: {e}", code="bad-input-file", file=path) from None


def _check_headers(fobj: BinaryIO, path: str, limit: int) -> None:
    if not zipfile.is_zipfile(fobj):
        # never handed to np.load: a lone .npy would be read whole, unchecked
        fobj.seek(0)
        if fobj.read(6) == b"\x93NUMPY":
            raise InputError(f"{path} is a single .npy array, not an .npz archive of named tensors; save it under the "
                             f"tensor's name, e.g. python -c \"import numpy as np; np.savez('in.npz', NAME=np.load('{path}'))\" "
                             f"(`irexec inspect MODEL` lists the input and output names)", code="bad-input-file", file=path)
        raise InputError(f"{path} is not a zip archive, not an .npz archive of named tensors", code="bad-input-file",
                         file=path)
    fobj.seek(0)
    total = 0
    with zipfile.ZipFile(fobj) as zf:
        for info in zf.infolist():
            if not info.filename.endswith(".npy"):  # np.load would hand back its raw bytes, of any size
                raise InputError(f"{path}: entry {info.filename!r} is not an .npy array", code="bad-input-file", file=path)
            key = info.filename[:-4]
            with zf.open(info) as f:
                total = _check_header(f, path, key, total, limit)


def _check_header(f: IO[bytes], path: str, key: str | None, total: int, limit: int) -> int:
    """Read one .npy header; refuse object arrays, negative dims, and an array
    that brings the ``total`` bytes read so far past ``limit``.  The new total."""
    version = np.lib.format.read_magic(f)
    if version == (1, 0):
        shape, _, dtype = np.lib.format.read_array_header_1_0(f)
    else:
        shape, _, dtype = np.lib.format.read_array_header_2_0(f)
    what = f"{path}: array {key!r}" if key is not None else f"{path}: the array"
    if any(d < 0 for d in shape):  # would also offset the running total below
        raise InputError(f"{what} has a negative dim in its shape {list(shape)}", code="bad-input-file", file=path)
    if dtype.hasobject:
        raise InputError(f"{what} holds Python objects, which irexec refuses to unpickle", code="bad-input-file", file=path)
    total += limits.nbytes(shape, dtype.itemsize)
    why = limits.over_limit(total, limit)
    if why:
        raise InputError(f"{what} of shape {list(shape)} {dtype} brings the inputs to a size that {why}",
                         code="memory-limit", file=path)
    return total


def load_npy(path: str, max_memory: int | None = None, *, follow_symlinks: bool | None = None,
             what: str = "input file") -> np.ndarray:
    """The one array of an .npy file, by the rules of ``load_npz``: a regular
    file, no link out of its folder, its header's size held to ``max_memory``
    before the array is allocated, never unpickled."""
    try:
        files.check_readable(path, what, follow_symlinks, InputError, "bad-input-file")
        with files.open_regular(path, what, InputError, "bad-input-file") as f:
            if f.read(6) != b"\x93NUMPY":
                raise InputError(f"{path} is not an .npy array", code="bad-input-file", file=path)
            f.seek(0)
            need = _check_header(f, path, None, 0, limits.resolve(max_memory))
            if os.fstat(f.fileno()).st_size - f.tell() < need:
                raise InputError(f"{path} is shorter than the {need} bytes its header declares", code="bad-input-file",
                                 file=path)
            f.seek(0)
            return np.lib.format.read_array(f, allow_pickle=False)
    except InputError:
        raise
    except FileNotFoundError:
        raise InputError(f"{what} {path} does not exist", code="bad-input-file", file=path) from None
    except (OSError, ValueError, EOFError) as e:
        raise InputError(f"{path} is not a readable .npy array: {e}", code="bad-input-file", file=path) from None


def save_npz(path: str, arrays: Mapping[str, np.ndarray]) -> None:
    """Write ``arrays`` to ``path`` via a temporary file and a rename, so a
    failure leaves neither a partial file nor the temporary behind."""
    for key in arrays:
        size = len(key.encode("utf-8", "surrogatepass")) + 4
        if size > MAX_ZIP_NAME:  # a zip member name is at most 65,535 bytes
            raise ModelError(f"cannot write {path}: tensor name {shorten(key)} is {size - 4} bytes long; an .npz entry name "
                             f"holds at most {MAX_ZIP_NAME - 4}", code="tensor-name-too-long", file=path)
    try:
        # written entry by entry (not np.savez) so any key works, even "file"
        with atomic_file(path, ".npz.tmp") as f:
            zf = zipfile.ZipFile(f, "w", zipfile.ZIP_STORED, allowZip64=True)
            try:
                for key, value in arrays.items():
                    with zf.open(key + ".npy", "w", force_zip64=True) as entry:
                        np.lib.format.write_array(entry, strings.to_numpy(storable(np.asarray(value))), allow_pickle=False)
            except BaseException:
                # abandoned, not closed: a Ctrl-C or SIGTERM can land between zf.open() and its `with`, and
                # close() would then replace that exit with "an open writing handle"; the temporary goes anyway
                zf.fp = None
                raise
            zf.close()
    except OSError as e:  # a missing directory, no permission, a full disk: not a bug
        raise cannot_write(path, e) from None
