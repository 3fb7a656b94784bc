"""A bounded store of small JSON entries in the user's cache folder, as ruff and
mypy keep theirs: ``$XDG_CACHE_HOME/irexec`` (an absolute XDG_CACHE_HOME only,
as the XDG specification says), else ``~/.cache/irexec``.

Only the environment of the user running irexec decides where it lives: never
a command-line path, never a project file found in the tree being read, so a
checked tree can neither move the cache nor plant entries through it.  Every
entry is written under a temporary name and renamed; one that cannot be read,
is too large, or is not the JSON object its caller expects is a miss, never an
error.  The folder is bounded: after a write, the least recently used entries
beyond ``MAX_ENTRIES`` or ``MAX_TOTAL_BYTES`` are removed."""

from __future__ import annotations

import json
import os
import stat
from typing import Any

from . import files
from .atomic import write_atomically

MAX_ENTRY_BYTES = 8 << 20  # an entry is a file's findings, which are capped; a larger file is not ours
MAX_ENTRIES = 20_000
MAX_TOTAL_BYTES = 256 << 20
SUFFIX = ".json"


def cache_root() -> str | None:
    """The user's irexec cache folder (not created here), or None when no home is known."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if xdg and os.path.isabs(xdg):  # a relative one would land in the working directory: ignored, as XDG says
        return os.path.join(xdg, "irexec")
    home = os.path.expanduser("~")
    if not home or home == "~" or not os.path.isabs(home):
        return None
    return os.path.join(home, ".cache", "irexec")


class UserCache:
    """Entries named by a hex key in one sub-folder (``kind``) of the cache root."""

    def __init__(self, kind: str, root: str | None = None):
        base = root if root is not None else cache_root()
        self.folder = os.path.join(base, kind) if base else None
        self.written = 0

    def _path(self, key: str) -> str | None:
        if self.folder is None or not key.isalnum():
            return None
        return os.path.join(self.folder, key + SUFFIX)

    def get(self, key: str) -> dict[str, Any] | None:
        """The JSON object stored under ``key``, or None (missing, unreadable, too
        large, not JSON, not an object: all the same to the caller)."""
        path = self._path(key)
        if path is None:
            return None
        try:
            with files.open_regular(path, "cache entry") as f:  # never blocks on a FIFO planted there
                if os.fstat(f.fileno()).st_size > MAX_ENTRY_BYTES:
                    return None
                data = f.read(MAX_ENTRY_BYTES + 1)
            entry = json.loads(data)
        except Exception:  # noqa: BLE001 - any broken entry (unreadable, not JSON, too deep) is a miss
            return None
        if not isinstance(entry, dict):
            return None
        try:
            os.utime(path)  # recently used: kept longest when the folder is trimmed
        except OSError:
            pass
        return entry

    def put(self, key: str, entry: dict[str, Any]) -> bool:
        """Store ``entry`` under ``key``; False when it could not be (no cache folder,
        a read-only one, an entry too large): the caller carries on without it."""
        path = self._path(key)
        if path is None or self.folder is None:
            return False
        try:
            data = json.dumps(entry, separators=(",", ":"), allow_nan=False).encode("utf-8")
        except (TypeError, ValueError, RecursionError):
            return False
        if len(data) > MAX_ENTRY_BYTES:
            return False
        try:
            os.makedirs(self.folder, mode=0o700, exist_ok=True)
            write_atomically(path, data)
        except Exception:  # noqa: BLE001 - a cache that cannot be written is no cache, not a failure
            return False
        self.written += 1
        return True

    def trim(self) -> None:
        """Remove the least recently used entries beyond the bounds (and stale temporaries)."""
        if self.folder is None or not self.written:
            return
        found: list[tuple[float, int, str]] = []
        try:
            with os.scandir(self.folder) as it:
                for e in it:
                    try:
                        st = e.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    if not stat.S_ISREG(st.st_mode) or not e.name.endswith(SUFFIX):
                        continue
                    found.append((st.st_mtime, st.st_size, e.path))
        except OSError:
            return
        total = sum(size for _, size, _ in found)
        if len(found) <= MAX_ENTRIES and total <= MAX_TOTAL_BYTES:
            return
        found.sort()
        count = len(found)
        for _, size, path in found:
            if count <= MAX_ENTRIES and total <= MAX_TOTAL_BYTES:
                break
            try:
                os.unlink(path)
            except OSError:
                continue
            count -= 1
            total -= size
