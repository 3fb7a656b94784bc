"""What OpenVINO's XML parser (pugixml) tolerates around the root element and
libxml2 refuses: whitespace or text before the XML declaration, and content
after ``</net>``.

OpenVINO's own IR-reader tests write such files (a newline before
``<?xml``, ``// `` after ``</net>``), and OpenVINO reads them.  irexec reads
them too, with a warning: other XML tools refuse them.  The document is
repaired in memory without moving a byte of what is kept, so every line and
column libxml2 reports is still the file's:

- before the root element: the XML declaration (legal only at the very start)
  and any text are blanked out with spaces, newlines kept;
- after the root element: the rest is checked as pugixml checks it (tags must
  pair up and be recognisable; text, comments, CDATA and processing
  instructions are skipped) and then cut off.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_BOM = b"\xef\xbb\xbf"
_DECL_RE = re.compile(rb"<\?xml[ \t\r\n][^>]*?\?>")
_NAME_START = re.compile(rb"[A-Za-z_:\x80-\xff]")
_OPEN_TAG = re.compile(rb"<([A-Za-z_:\x80-\xff][^\s/>]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*?)(/?)>")
_CLOSE_TAG = re.compile(rb"</([A-Za-z_:\x80-\xff][^\s>]*)\s*>")


@dataclass
class Repair:
    data: bytes  # the document as libxml2 should read it
    notes: list[tuple[str, str, int]]  # (code, message, line): what was tolerated


def _blank(chunk: bytes) -> bytes:
    """Spaces for every byte but line breaks: lines and columns stay put."""
    return bytes(b if b in (0x0A, 0x0D) else 0x20 for b in chunk)


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def repair_prolog(data: bytes) -> Repair | None:
    """Blank what pugixml skips before the root element and libxml2 refuses:
    leading whitespace or text, and an XML declaration that is not the first
    thing in the file (comments and processing instructions stay).  None when
    there is nothing to repair."""
    start = len(_BOM) if data.startswith(_BOM) else 0
    out = bytearray(data)
    pos, text, moved_decl, first = start, False, False, None
    while True:
        lt = data.find(b"<", pos)
        if lt < 0:
            return None  # no element at all: a plain syntax error
        chunk = data[pos:lt]
        if chunk.strip():
            text = True
            out[pos:lt] = _blank(chunk)
        decl = _DECL_RE.match(data, lt)
        if decl is not None:
            if lt == start:
                pos = decl.end()  # where it belongs
                continue
            if _declares_other_encoding(decl.group(0)):
                return None  # blanking it would lose its encoding: leave it to libxml2's error
            out[lt:decl.end()] = _blank(decl.group(0))
            moved_decl = True
            first = lt if first is None else first
            pos = decl.end()
            continue
        end = None
        if data.startswith(b"<!--", lt):
            end = data.find(b"-->", lt + 4)
            end = end + 3 if end >= 0 else None
        elif data.startswith(b"<?", lt):
            end = data.find(b"?>", lt + 2)
            end = end + 2 if end >= 0 else None
        if end is None:
            break  # the root element, a DOCTYPE or something broken: libxml2 reads on from here
        pos = end
    if not text and not moved_decl:
        return None
    what = "text before the first element" if text else "whitespace or comments before the XML declaration"
    message = (f"{what} (XML allows nothing before `<?xml`; OpenVINO reads the file, most XML tools refuse it): "
               "read as OpenVINO reads it")
    return Repair(bytes(out), [("xml-leading-content", message, _line_of(data, first if first is not None else start))])


def _declares_other_encoding(decl: bytes) -> bool:
    m = re.search(rb"encoding\s*=\s*[\"']([^\"']*)[\"']", decl)
    return m is not None and m.group(1).strip().lower() not in (b"utf-8", b"utf8", b"us-ascii", b"ascii")


# markup pugixml skips after the root element: (opening, closing, name), the longer openings first
_DELIMITED = ((b"<!--", b"-->", "comment"), (b"<![CDATA[", b"]]>", "CDATA section"),
              (b"<?", b"?>", "processing instruction"), (b"<!", b">", "declaration"))


class TailError(ValueError):
    def __init__(self, message: str, line: int):
        super().__init__(message)
        self.line = line


def check_tail(data: bytes, offset: int) -> None:
    """Raise TailError where pugixml would refuse the content after the root
    element: a ``<`` that starts no recognisable markup, a closing tag without
    its opening one, an element left open; everything else (text, comments,
    CDATA, processing instructions, balanced elements) it skips.  The line of
    an error is counted only once an error is found: counting it for every
    ``<`` would make a long tail quadratic."""
    stack: list[bytes] = []
    pos = offset
    n = len(data)
    while True:
        lt = data.find(b"<", pos)
        if lt < 0:
            break
        markup = next((m for m in _DELIMITED if data.startswith(m[0], lt)), None)
        if markup is not None:
            opening, closing, what = markup
            end = data.find(closing, lt + len(opening))
            if end < 0:
                raise TailError(f"{what} after </net> is not closed", _line_of(data, lt))
            pos = end + len(closing)
        elif data.startswith(b"</", lt):
            m = _CLOSE_TAG.match(data, lt)
            if m is None:
                raise TailError("malformed closing tag after </net>", _line_of(data, lt))
            if not stack or stack[-1] != m.group(1):
                raise TailError(f"closing tag </{m.group(1).decode('utf-8', 'replace')}> after </net> has no opening tag",
                                _line_of(data, lt))
            stack.pop()
            pos = m.end()
        elif lt + 1 < n and _NAME_START.match(data, lt + 1):
            m = _OPEN_TAG.match(data, lt)
            if m is None:
                raise TailError("malformed tag after </net>", _line_of(data, lt))
            if not m.group(3):
                stack.append(m.group(1))
            pos = m.end()
        else:
            raise TailError("'<' after </net> starts no tag", _line_of(data, lt))
    if stack:
        raise TailError(f"element <{stack[-1].decode('utf-8', 'replace')}> after </net> is never closed", _line_of(data, n))


def cut_tail(data: bytes, offset: int) -> Repair:
    """The document up to ``offset`` (where the root element ended), after
    checking the rest as pugixml would; raises TailError otherwise."""
    check_tail(data, offset)
    line = _line_of(data, offset)
    message = ("content after the end of the root element </net> (XML allows only comments and processing instructions "
               "there; OpenVINO ignores it, most XML tools refuse the file): ignored")
    return Repair(data[:offset], [("xml-trailing-content", message, line)])


def offset_of(data: bytes, line: int, column: int) -> int:
    """Byte offset of a libxml2 (line, column) position; columns count bytes from 1."""
    pos = 0
    for _ in range(line - 1):
        nl = data.find(b"\n", pos)
        if nl < 0:
            return len(data)
        pos = nl + 1
    return min(pos + max(column - 1, 0), len(data))
