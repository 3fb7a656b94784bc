"""Reports survive any bytes in a file name.

A path read from a folder is decoded with Python's ``surrogateescape``: a
byte that is not UTF-8 becomes a lone surrogate, which no UTF-8 writer
accepts.  A report keeps such a name visible and valid: JSON formats carry
the surrogate as its ``\\uDCxx`` escape (what Python's json reads back to
the same path), the others show the byte as ``\\xNN``.  A SARIF URI
percent-encodes the original bytes, a GitLab fingerprint hashes them.
"""

from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")
JSON_FORMATS = frozenset({"json", "sarif", "gitlab"})


def encodable(text: str, fmt: str) -> str:
    """``text`` of report format ``fmt`` with nothing UTF-8 cannot encode."""
    if text.isascii() or not _SURROGATE.search(text):
        return text
    if fmt in JSON_FORMATS:  # surrogates only occur inside JSON strings, where an escape means the same
        return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def path_bytes(path: str) -> bytes:
    """The bytes a path names (its non-UTF-8 bytes as they were on disk)."""
    return path.encode("utf-8", "surrogateescape")
