"""Files that appear whole or not at all: written under a temporary name in the
target's directory and renamed over it, so a failure (or a reader racing the
writer) never sees a partial file and no temporary is left behind.

Every file irexec writes goes through here, so every output follows the same
rules: missing parent folders are created (and removed again if the write
fails), the file gets the permissions the umask gives a new file (as ``open``
would), and a failure is one coded error, ``cannot-write-output`` (see
``cannot_write``).

Only a regular file (or nothing) is ever replaced: a character device or a
named pipe the user names on purpose (``-o /dev/stdout``) is written to
directly, and anything else (a socket, a block device, a directory) is refused.
The temporary is removed also when the process is interrupted (SIGINT) or
terminated (SIGTERM: the command line turns it into an exception)."""

from __future__ import annotations

import contextlib
import errno
import io
import os
import secrets
import stat
from collections.abc import Iterator
from typing import BinaryIO

from ..base.errors import IRExecError
from . import files


def cannot_write(path: str, e: OSError | str) -> IRExecError:
    """The one error for an output that cannot be written (exit status 1)."""
    why = e if isinstance(e, str) else (e.strerror or str(e))
    return IRExecError(f"cannot write {path}: {why}", code="cannot-write-output", file=path)


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
    try:
        mode: int | None = os.stat(path).st_mode
    except (OSError, ValueError):
        mode = None  # nothing there yet (or a broken link, which the rename replaces)
    if mode is not None and not stat.S_ISREG(mode):
        if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
            with open(path, "wb") as direct:  # e.g. /dev/stdout; never renamed over
                yield _Stream(direct)  # type: ignore[misc]
            return
        raise OSError(errno.EEXIST, f"{files.kind_of(mode)} is there, and irexec replaces only regular files")
    directory = os.path.dirname(os.path.abspath(path))
    created = _make_parents(directory)
    tmp = None
    try:
        # the name is known before the file exists: a Ctrl-C or SIGTERM at any point removes it
        for _ in range(100):
            tmp = os.path.join(directory, f".irexec-{secrets.token_hex(6)}{suffix}")
            try:
                # 0666: the kernel takes the umask off, as for any new file (mkstemp would give 0600)
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
                break
            except FileExistsError:
                continue
        else:
            raise FileExistsError(errno.EEXIST, "no unused temporary name", directory)
        with os.fdopen(fd, "wb") as f:
            yield f
        os.replace(tmp, path)
    except BaseException:
        if tmp is not None:
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


class _Stream:
    """A device or pipe written in order: no seek, no tell (a zip archive then
    describes its entries after their data instead of going back)."""

    def __init__(self, f: BinaryIO):
        self._f = f

    def write(self, data: bytes) -> int:
        return self._f.write(data)

    def flush(self) -> None:
        self._f.flush()

    def seekable(self) -> bool:
        return False

    def tell(self) -> int:
        raise io.UnsupportedOperation("a stream has no position")

    def seek(self, *args: object) -> int:
        raise io.UnsupportedOperation("a stream cannot seek")


def write_atomically(path: str, data: bytes | str) -> None:
    """``data`` (text is written as UTF-8 with the newlines it has) as the file ``path``."""
    with atomic_file(path) as f:
        write_all(f, data.encode("utf-8") if isinstance(data, str) else data)


CHUNK = 1 << 30  # one write(2) moves at most 2 GiB - 4 KiB on Linux


def write_all(f: BinaryIO, data: bytes) -> None:
    """Every byte of ``data``, in chunks, or an OSError: a short write is never silent."""
    view = memoryview(data)
    while view:
        n = f.write(view[:CHUNK])
        if n is None or n <= 0:
            raise OSError(errno.EIO, "the file system accepted no more bytes")
        view = view[n:]
