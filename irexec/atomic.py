"""Files that appear whole or not at all: written under a temporary name in the
target's directory and renamed over it, so a failure (or a reader racing the
writer) never sees a partial file and no temporary is left behind.

Every file irexec writes goes through here, so every output follows the same
rules: missing parent folders are created (and removed again if the write
fails), the file gets the permissions the umask gives a new file (as ``open``
would, not ``mkstemp``'s 0600), and a failure is one coded error,
``cannot-write-output`` (see ``cannot_write``)."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from typing import BinaryIO

from .errors import IRExecError


def cannot_write(path: str, e: OSError | str) -> IRExecError:
    """The one error for an output that cannot be written (exit status 1)."""
    why = e if isinstance(e, str) else (e.strerror or str(e))
    return IRExecError(f"cannot write {path}: {why}", code="cannot-write-output", file=path)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _make_parents(directory: str) -> list[str]:
    """Create ``directory`` and its missing ancestors; return those created, deepest first."""
    created: list[str] = []
    d = directory
    while d and not os.path.exists(d):
        created.append(d)
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    for c in reversed(created):
        os.mkdir(c)
    return created


@contextlib.contextmanager
def atomic_file(path: str, suffix: str = ".tmp") -> Iterator[BinaryIO]:
    """A binary file to write; it becomes ``path`` when the block ends without error."""
    directory = os.path.dirname(os.path.abspath(path))
    created = _make_parents(directory)
    try:
        fd, tmp = tempfile.mkstemp(prefix=".irexec-", suffix=suffix, dir=directory)
    except BaseException:
        _remove_dirs(created)
        raise
    try:
        with contextlib.suppress(OSError, AttributeError):  # no fchmod on Windows
            os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as f:
            yield f
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        _remove_dirs(created)
        raise


def _remove_dirs(created: list[str]) -> None:
    for d in created:  # deepest first; stops at one that is no longer empty
        try:
            os.rmdir(d)
        except OSError:
            break


def write_atomically(path: str, data: bytes | str) -> None:
    """``data`` (text is written as UTF-8 with the newlines it has) as the file ``path``."""
    with atomic_file(path) as f:
        f.write(data.encode("utf-8") if isinstance(data, str) else data)
