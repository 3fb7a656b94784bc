"""Tensors in .npz files: loaded without pickle, written atomically."""

from __future__ import annotations

import os
import tempfile
import zipfile
from typing import Mapping

import numpy as np

from .errors import InputError


def load_npz(path: str) -> dict[str, np.ndarray]:
    """Every array in an .npz; object arrays are refused, never unpickled."""
    try:
        with np.load(path, allow_pickle=False) as data:
            if not isinstance(data, np.lib.npyio.NpzFile):
                raise InputError(f"{path} is a single .npy array, not an .npz archive of named tensors", code="bad-input-file", file=path)
            return {key: data[key] for key in data.files}
    except InputError:
        raise
    except FileNotFoundError:
        raise InputError(f"input file {path} does not exist", code="bad-input-file", file=path) from None
    except ValueError as e:
        if "allow_pickle" in str(e) or "Object arrays" in str(e):
            raise InputError(f"{path} holds object arrays, which irexec refuses to unpickle", code="bad-input-file", file=path) from None
        raise InputError(f"{path} is not a readable .npz file: {e}", code="bad-input-file", file=path) from None
    except (OSError, zipfile.BadZipFile, EOFError, KeyError) as e:
        raise InputError(f"{path} is not a readable .npz file: {e}", code="bad-input-file", file=path) from None


def save_npz(path: str, arrays: Mapping[str, np.ndarray]) -> None:
    """Write ``arrays`` to ``path`` via a temporary file and a rename, so a
    failure leaves neither a partial file nor the temporary behind."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".irexec-", suffix=".npz.tmp", dir=directory)
    try:
        # written entry by entry (not np.savez) so any key works, even "file"
        with os.fdopen(fd, "wb") as f, zipfile.ZipFile(f, "w", zipfile.ZIP_STORED, allowZip64=True) as zf:
            for key, value in arrays.items():
                with zf.open(key + ".npy", "w", force_zip64=True) as entry:
                    np.lib.format.write_array(entry, np.asarray(value), allow_pickle=False)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
