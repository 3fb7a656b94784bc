"""Which files ``irexec check`` reads: paths, directories and glob patterns.

A directory means every ``*.xml`` below it (hidden directories skipped); a
pattern with ``*``, ``?`` or ``[`` is expanded here (``**`` recursive), so a
quoted pattern works the same in every shell and on Windows.  A path that does
not exist, and a pattern that matches nothing, is kept as *missing*: the
check reports it as that path's error and goes on with the others.
"""

from __future__ import annotations

import glob
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
        key = os.path.normcase(os.path.abspath(path))
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
            matches = sorted(p for p in glob.glob(arg, recursive=True) if os.path.isfile(p))
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
