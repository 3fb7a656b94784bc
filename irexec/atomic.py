"""Files that appear whole or not at all: written under a temporary name in the
target's directory and renamed over it, so a failure (or a reader racing the
writer) never sees a partial file and no temporary is left behind."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from typing import BinaryIO


@contextlib.contextmanager
def atomic_file(path: str, suffix: str = ".tmp") -> Iterator[BinaryIO]:
    """A binary file to write; it becomes ``path`` when the block ends without error."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".irexec-", suffix=suffix, dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_atomically(path: str, data: bytes | str) -> None:
    """``data`` (text is written as UTF-8 with the newlines it has) as the file ``path``."""
    with atomic_file(path) as f:
        f.write(data.encode("utf-8") if isinstance(data, str) else data)
