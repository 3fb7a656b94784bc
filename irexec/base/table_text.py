"""Plain-text tables for terminal output, and names kept on one line."""

from __future__ import annotations

from collections.abc import Sequence


def one_line(text: str) -> str:
    """Text on one line: line breaks and other control characters from the
    file's names shown as escapes (a name must not start a line of its own).
    A lone surrogate (a file name's byte that is not UTF-8) is left for the
    report's encoding to show (report/encoding.py)."""
    return text if text.isprintable() else "".join(c if c.isprintable() or "\ud800" <= c <= "\udfff" else repr(c)[1:-1]
                                                   for c in text)


def render_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    rows = [[one_line(c) for c in row] for row in rows]
    widths = [len(h) for h in header]
    for row in rows:
        widths = [max(w, len(c)) for w, c in zip(widths, row)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows]
    return "\n".join(lines)


def table_lines(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A table as its lines, each cell kept on its line by ``one_line``."""
    return render_table(header, rows).split("\n")


def safe_text(lines: Sequence[str]) -> str:
    """A report's lines as text: each through ``one_line``, so a name from a file cannot
    start a line of its own (a forged ``::error`` command or verdict)."""
    return "\n".join(one_line(line) for line in lines)
