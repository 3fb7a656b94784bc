"""The line of one ``<dim>`` of a port, for a finding about that dim alone.

The readers keep a port's line, not each dim's (a port may hold millions of
dims); a finding about one dim reads the few lines after its port again."""

from __future__ import annotations

import linecache
import re

from ..base.shapes import PartialShape

_DIM = re.compile(r"<dim[\s>/]")
_MAX_LINES = 4096  # a port's dims are read this far at most


def single_wrong_dim(declared: tuple[int, ...], shape: PartialShape) -> int | None:
    """The index of the one declared dim that ``shape`` rules out, when it is exactly one."""
    if shape.dims is None or len(shape.dims) != len(declared):
        return None
    wrong = [k for k, (d, s) in enumerate(zip(declared, shape.dims)) if d >= 0 and not s.contains(d)]
    return wrong[0] if len(wrong) == 1 else None


def dim_line(path: str | None, port_line: int | None, k: int) -> int | None:
    """The line of the k-th ``<dim>`` of the port that starts at ``port_line``."""
    if not path or not port_line:
        return None
    linecache.checkcache(path)  # the file may have changed since it was last read here
    seen = 0
    for line in range(port_line, port_line + _MAX_LINES):
        text = linecache.getline(path, line)
        if not text:
            return None
        if line > port_line and "<port" in text:
            return None  # the next port: the count went wrong
        start = text.find(">") + 1 if line == port_line else 0  # the port's own tag is no dim
        for _ in _DIM.finditer(text, start):
            if seen == k:
                return line
            seen += 1
        if "</port>" in text:
            return None
    return None
