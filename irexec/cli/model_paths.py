"""Which files ``irexec check`` reads: paths, directories and glob patterns.

A directory means every ``*.xml`` below it (hidden directories skipped); a
pattern with ``*``, ``?`` or ``[`` is expanded here (``**`` recursive), so a
quoted pattern works the same in every shell and on Windows.  Neither a
directory walk nor a pattern enters a symbolic link to a directory (a link to
``.`` would otherwise repeat the tree, two of them without end), and a file
reached under two names is checked once.  A path that does
not exist, and a pattern that matches nothing, is kept as *missing*: the
check reports it as that path's error and goes on with the others.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field

_MAGIC = set("*?[")


@dataclass
class ModelPaths:
    files: list[str] = field(default_factory=list)
    missing: list[tuple[str, str]] = field(default_factory=list)  # (argument, why)
    empty_dirs: list[str] = field(default_factory=list)


def expand(arguments: tuple[str, ...] | list[str]) -> ModelPaths:
    found = ModelPaths()
    seen: set[str] = set()

    def add(path: str) -> None:
        key = os.path.normcase(os.path.realpath(path))
        if key not in seen:
            seen.add(key)
            found.files.append(path)

    for arg in arguments:
        if os.path.isdir(arg):
            xmls = _xml_files_under(arg)
            if not xmls:
                found.empty_dirs.append(arg)
            for p in xmls:
                add(p)
        elif os.path.exists(arg):
            add(arg)
        elif _MAGIC & set(arg):
            matches = _glob(arg)
            if not matches:
                found.missing.append((arg, f"no file matches the pattern {arg!r}"))
            for p in matches:
                add(p)
        else:
            found.missing.append((arg, f"{arg} does not exist"))
    return found


def _xml_files_under(root: str) -> list[str]:
    out: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        out.extend(os.path.join(dirpath, f) for f in sorted(filenames) if f.lower().endswith(".xml"))
    return out


def _glob(pattern: str) -> list[str]:
    """``glob.glob(pattern, recursive=True)`` without entering symbolic links to
    directories; the matches that are not directories, sorted."""
    parts = pattern.replace(os.altsep, os.sep).split(os.sep) if os.altsep else pattern.split(os.sep)
    if parts[-1] == "**":
        parts.append("*")  # every file below
    i = 0
    while i < len(parts) - 1 and not _MAGIC & set(parts[i]):
        i += 1
    base = os.sep.join(parts[:i]) or (os.sep if i and not parts[0] else "")
    found: set[str] = set()
    visited: set[tuple[str, int]] = set()
    stack = [(base, i)]
    while stack:
        directory, k = stack.pop()
        if (directory, k) in visited:  # "**/**" reaches a directory along several routes
            continue
        visited.add((directory, k))
        stack.extend(_step(parts, directory, k, found))
    return sorted(found)


def _step(parts: list[str], directory: str, k: int, found: set[str]) -> list[tuple[str, int]]:
    """Match pattern segment ``k`` in ``directory``: the files it matches go to ``found``,
    the (directory, segment) pairs still to walk are returned."""
    seg, last = parts[k], k == len(parts) - 1
    if seg == "**" and not last:
        # no directory at all, or any one more
        return [(directory, k + 1)] + [(os.path.join(directory, name), k) for name, _ in _real_dirs(directory)]
    if not _MAGIC & set(seg):
        path = os.path.join(directory, seg)
        if last:
            if os.path.lexists(path) and not os.path.isdir(path):
                found.add(path)
        elif os.path.isdir(path) and not os.path.islink(path):
            return [(path, k + 1)]
        return []
    walk = []
    for name, entry in _entries(directory):
        if name.startswith(".") and not seg.startswith(".") or not fnmatch.fnmatch(name, seg):
            continue
        if last:
            if not _is_dir(entry, follow=True):
                found.add(os.path.join(directory, name))
        elif _is_dir(entry, follow=False):
            walk.append((os.path.join(directory, name), k + 1))
    return walk


def _entries(directory: str) -> list[tuple[str, os.DirEntry[str]]]:
    try:
        with os.scandir(directory or ".") as it:
            return [(e.name, e) for e in it]
    except OSError:
        return []


def _real_dirs(directory: str) -> list[tuple[str, os.DirEntry[str]]]:
    return [(n, e) for n, e in _entries(directory) if not n.startswith(".") and _is_dir(e, follow=False)]


def _is_dir(entry: os.DirEntry[str], follow: bool) -> bool:
    try:
        return entry.is_dir(follow_symlinks=follow)
    except OSError:
        return False
