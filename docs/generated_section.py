"""The part of a hand-written page between two marker lines that a docs script rewrites."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path


def replace_section(text: str, page: Path, begin: str, end: str, section: Callable[[], str]) -> str:
    """``text`` (the content of ``page``) with everything from ``begin`` through ``end`` replaced by
    ``section()``, which ends with ``end``; exits naming ``page`` when a marker is missing."""
    head, sep, rest = text.partition(begin)
    if not sep:
        raise SystemExit(f"{page} has no line {begin!r}")
    _, sep, tail = rest.partition(end)
    if not sep:
        raise SystemExit(f"{page} has no line {end!r}")
    return head + section() + tail
