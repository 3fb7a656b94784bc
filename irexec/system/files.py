"""Which files irexec agrees to read, and how it opens them.

Two rules hold for every file irexec reads (the model XML, its weights, input
and reference ``.npz`` files), whether it is named on the command line or found
in a directory:

* Only regular files are read.  A FIFO, a device (``/dev/zero``), a socket or a
  directory is refused at once (``not-regular-file``); files are opened with
  ``O_NONBLOCK`` and checked with ``fstat``, so neither a pipe nobody writes
  to nor a device swapped in after the check can hang the reader.
* A symbolic link is followed only while its real path stays inside the real
  path of the folder the file is named in (``symlink-escape`` otherwise).  A
  pull request can add ``model.bin -> /home/ci/.ssh/id_rsa``; checking it must
  not read that file.  ``--follow-symlinks`` or ``IREXEC_FOLLOW_SYMLINKS=1``
  lifts this rule, e.g. for the Hugging Face hub cache, whose snapshot files
  are links into a sibling ``blobs/`` folder.
"""

from __future__ import annotations

import os
import stat
from typing import BinaryIO

from ..base.errors import IRExecError, ModelError

FOLLOW_ENV = "IREXEC_FOLLOW_SYMLINKS"
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
)


def follow_symlinks(flag: bool | None = None) -> bool:
    """The explicit choice, else ``IREXEC_FOLLOW_SYMLINKS`` (any value but empty or ``0`` allows)."""
    if flag is not None:
        return flag
    return os.environ.get(FOLLOW_ENV, "") not in ("", "0")


def kind_of(mode: int) -> str:
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def escaping_target(path: str) -> tuple[str, str] | None:
    """(real path, folder) when ``path`` resolves outside the folder it is named in.
    Links among the folder's own components resolve on both sides, so only a
    link in the file's last component (or a ``..`` after a link) can escape."""
    folder = os.path.realpath(os.path.dirname(os.path.abspath(path)))
    real = os.path.realpath(path)
    if real == folder or real.startswith(folder.rstrip(os.sep) + os.sep):
        return None
    return real, folder


def check_readable(path: str, what: str, follow: bool | None = None, error: type[IRExecError] = ModelError,
                   code: str = "not-regular-file", **where: object) -> None:
    """Refuse ``path`` when it is a link leaving its folder or exists and is not
    a regular file.  A path that does not exist is left to the caller."""
    if not follow_symlinks(follow):
        escape = escaping_target(path)
        if escape is not None:
            real, folder = escape
            raise error(f"{what} {path} leads through a symbolic link to {real}, outside the folder {folder} it is named in; "
                        f"irexec does not follow it unless told to (`follow_symlinks` or {FOLLOW_ENV}=1)",
                        code="symlink-escape", **{"file": path, **where})
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return
    if not stat.S_ISREG(mode):
        raise error(f"{what} {path} is {kind_of(mode)}; irexec reads regular files only", code=code,
                    **{"file": path, **where})


def open_regular(path: str, what: str = "file", error: type[IRExecError] = ModelError,
                 code: str = "not-regular-file") -> BinaryIO:
    """``open(path, "rb")`` that never blocks on a FIFO and refuses anything but a regular file."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise error(f"{what} {path} is {kind_of(mode)}; irexec reads regular files only", code=code, file=path)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_small_file(path: str, what: str, limit: int, follow: bool | None = None, error: type[IRExecError] = ModelError,
                    code: str = "not-regular-file") -> bytes:
    """The whole of a file irexec reads into memory (a JSON config, a prompt), under the two
    rules above and a size bound: ``symlink-escape``, ``code`` for a FIFO, device or directory
    and for more than ``limit`` bytes, ``code`` too for a file that cannot be opened."""
    check_readable(path, what, follow, error, code)
    try:
        with open_regular(path, what, error, code) as f:
            data = f.read(limit + 1)
    except OSError as e:
        raise error(f"cannot read the {what} {path}: {e.strerror or e}", code=code, file=path) from None
    if len(data) > limit:
        raise error(f"the {what} {path} is larger than {limit} bytes, more than any such file needs", code=code,
                    file=path)
    return data
