"""The same answer for the same path mistake in every command.

| mistake                          | code                  | exit |
|----------------------------------|-----------------------|------|
| a file to read does not exist    | ``file-not-found``    | 1    |
| a directory where a file is read | ``is-a-directory``    | 1    |
| or written                       |                       |      |
| a file that cannot be read       | ``cannot-read-file``  | 1    |
| an output that cannot be written | ``cannot-write-output`` | 1  |

Missing parent folders of an output are created (``irexec.system.atomic``).
"""

from __future__ import annotations

import os
import stat

from ..base.errors import ERROR, Diagnostic, IRExecError

_ZIP = b"PK\x03\x04"
_NPY = b"\x93NUMPY"


def open_for_reading(path: str):
    """A seam for tests: as root, no permission bit makes a file unreadable."""
    return open(path, "rb")


def input_problem(path: str, what: str = "file") -> Diagnostic | None:
    """Why ``path`` cannot be read as a file, or None."""
    if os.path.isdir(path):
        return Diagnostic("is-a-directory", f"the {what} {path} is a directory; give a file", ERROR, file=path)
    if not os.path.lexists(path):
        return Diagnostic("file-not-found", f"the {what} {path} does not exist", ERROR, file=path)
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None  # a FIFO or device is never opened (it could block): the reader refuses it, coded
    except OSError:
        pass  # a dangling link: the open below says why
    try:
        with open_for_reading(path):
            pass
    except OSError as e:
        return Diagnostic("cannot-read-file", f"cannot read the {what} {path}: {e.strerror or e}", ERROR, file=path)
    return None


def require_inputs(*paths: tuple[str | None, str]) -> None:
    """Raise every problem of the (path, what) pairs that are given."""
    problems = [d for path, what in paths if path is not None and (d := input_problem(path, what)) is not None]
    if problems:
        raise IRExecError(problems)


def require_outputs(*paths: str | None) -> None:
    """An output path that is a directory is refused before any work is done."""
    problems = [Diagnostic("is-a-directory", f"the output {p} is a directory; give a file name", ERROR, file=p)
                for p in paths if p not in (None, "-") and os.path.isdir(p)]
    if problems:
        raise IRExecError(problems)


def explain_not_xml(path: str, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """A model path whose bytes are a weights file or an npz gets a message
    that says so (instead of what libxml2 tripped on)."""
    if not diagnostics or diagnostics[0].code not in ("xml-syntax", "xml-encoding"):
        return diagnostics
    try:
        with open(path, "rb") as f:
            head = f.read(8)
    except OSError:
        return diagnostics
    stem, ext = os.path.splitext(path)
    if head.startswith(_ZIP) or ext.lower() == ".npz":
        what = "an .npz archive of tensors"
    elif head.startswith(_NPY) or ext.lower() == ".npy":
        what = "a .npy array"
    elif ext.lower() == ".bin":
        what = "a weights file (.bin)"
    else:
        return diagnostics
    xml = stem + ".xml"
    hint = f" ({xml})" if ext.lower() == ".bin" and os.path.isfile(xml) else ""
    return [Diagnostic("not-xml", f"{path} is not an IR model: this looks like {what}; pass the model's .xml{hint}",
                       ERROR, file=path)]
