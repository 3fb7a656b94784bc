"""The locked-down XML parse: no entity expansion, no DTD loading, no network,
libxml2's default limits.  A document that declares entities or points at an
external DTD is refused outright; the defects OpenVINO's reader tolerates are
repaired (lenient.py) and reported."""

from __future__ import annotations

import codecs
import io
import os
import stat
from typing import BinaryIO

from lxml import etree

from ..base.errors import ModelError
from ..system.files import kind_of, open_regular
from . import lenient

# Documents larger than this are refused before parsing: real IR XML is a few
# MiB even for billion-parameter models (the weights live in the .bin).
MAX_XML_BYTES = 512 * 1024 * 1024


PARSE_OPTIONS = {"resolve_entities": False, "no_network": True, "load_dtd": False, "huge_tree": False,
                  "remove_comments": True, "remove_pis": True, "remove_blank_text": True}


def _parser() -> etree.XMLParser:
    return etree.XMLParser(dtd_validation=False, **PARSE_OPTIONS)


def parse_xml_tolerant(path: str) -> tuple[etree._ElementTree, list[tuple[str, str, int]]]:
    """The document, parsed by the locked-down parser, and what was tolerated as
    OpenVINO tolerates it (see ``lenient``): (code, message, line) each."""
    check_file(path)
    notes: list[tuple[str, str, int]] = []
    seen: _AmpersandWatch | None = None
    try:
        with open_regular(path, "model file") as f:
            seen = _AmpersandWatch(f)
            tree = etree.parse(seen, _parser())
    except etree.XMLSyntaxError as e:
        repaired = _parse_repaired(path) if any(m in (e.msg or "") for m in _REPAIRABLE) else None
        if repaired is None:
            raise _syntax_error(path, e) from None
        tree, notes = repaired
        seen = None  # a repaired document was parsed from other bytes
    except OSError as e:
        if "encoding" in str(e):  # lxml reports undecodable bytes as an I/O error
            raise _encoding_error(path) from None
        raise ModelError(f"cannot read model file: {e.strerror or e}", code="file-not-found", file=path) from None
    _refuse_unsafe(tree, path, entities_possible=seen is None or seen.ampersand or not _ascii_ampersand(tree))
    return tree, notes


class _AmpersandWatch:
    """The model file as lxml reads it, noting whether any byte it handed over is
    ``&``: without one, no entity reference can be in the tree, and the walk that
    looks for them (a tenth of a large model's parse) is not needed."""

    __slots__ = ("_file", "ampersand")

    def __init__(self, file: io.BufferedIOBase | BinaryIO) -> None:
        self._file = file
        self.ampersand = False
    def read(self, size: int = -1) -> bytes:
        chunk = self._file.read(size)
        if not self.ampersand and b"&" in chunk:
            self.ampersand = True
        return chunk


# encodings in which "&" is the byte 0x26 (UTF-16 and UTF-32 too: one of its bytes); in
# any other (EBCDIC) the tree is walked
_AMPERSAND_0X26 = frozenset({"UTF-8", "UTF8", "US-ASCII", "ASCII", "ISO-8859-1", "LATIN1", "LATIN-1", "UTF-16", "UTF-16LE",
                             "UTF-16BE", "UTF-32", "UTF-32LE", "UTF-32BE"})


def _ascii_ampersand(tree: etree._ElementTree) -> bool:
    return (tree.docinfo.encoding or "UTF-8").upper() in _AMPERSAND_0X26


def _syntax_error(path: str, e: etree.XMLSyntaxError) -> ModelError:
    line = e.lineno if e.lineno else None
    msg = e.msg if hasattr(e, "msg") and e.msg else str(e)
    code = _syntax_code(msg)
    if code == "xml-syntax" and _first_non_utf8(path) is not None:  # binary garbage: say so, not what libxml2 tripped on
        return _encoding_error(path)
    return ModelError(f"malformed XML: {msg}", code=code, file=path, line=line)


# what libxml2 says about the content around the root element that pugixml skips
_REPAIRABLE = ("XML declaration allowed only at the start", "Start tag expected, '<' not found",
               "Extra content at the end of the document")


def _parse_repaired(path: str) -> tuple[etree._ElementTree, list[tuple[str, str, int]]] | None:
    """The document read as OpenVINO's parser reads it, when all that libxml2
    refused is around the root element; None when that is not the problem
    (the first error stands)."""
    try:
        with open_regular(path, "model file") as f:
            data = f.read()
    except OSError:
        return None
    notes: list[tuple[str, str, int]] = []
    fixed = lenient.repair_prolog(data)
    if fixed is not None:
        data, notes = fixed.data, fixed.notes
    cut = False
    while True:
        try:
            return etree.parse(io.BytesIO(data), _parser()), notes
        except etree.XMLSyntaxError as e:
            msg = e.msg or str(e)
            if cut or "Extra content at the end of the document" not in msg or not e.position:
                if not notes:
                    return None
                raise _syntax_error(path, e) from None
            try:
                fixed = lenient.cut_tail(data, lenient.offset_of(data, *e.position))
            except lenient.TailError as t:
                raise ModelError(f"malformed XML: {t} (OpenVINO refuses it too)", code="xml-syntax", file=path,
                                 line=t.line) from None
            data, cut = fixed.data, True
            notes = notes + fixed.notes


def check_file(path: str) -> None:
    """What is refused before parsing: not a regular file, too large, entities."""
    try:
        st = os.stat(path)
    except OSError as e:
        raise ModelError(f"cannot read model file: {e.strerror or e}", code="file-not-found", file=path) from None
    if not stat.S_ISREG(st.st_mode):  # /dev/zero never ends, a FIFO blocks the open
        raise ModelError(f"model file {path} is {kind_of(st.st_mode)}; irexec reads regular files only",
                         code="not-regular-file", file=path)
    size = st.st_size
    if size > MAX_XML_BYTES:
        raise ModelError(
            f"model XML is {size} bytes, more than the {MAX_XML_BYTES} this reader accepts", code="file-too-large", file=path
        )
    _refuse_entity_declarations(path)


def _syntax_code(msg: str) -> str:
    """Entity tricks the prefilter did not see (e.g. a DOCTYPE after a long
    comment) and libxml2's resource limits get their own codes."""
    low = msg.lower()
    if "entity" in low:
        return "unsafe-xml"
    if "excessive depth" in low or "resource limit" in low or "xml_parse_huge" in low or "huge" in low:
        return "xml-limit"
    return "xml-syntax"


def _first_non_utf8(path: str) -> tuple[int, int, int] | None:
    """(offset, line, byte) of the first byte that is not UTF-8, read in chunks."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset, lines = 0, 0
    with open_regular(path, "model file") as f:
        if f.read(2) in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
            return None  # UTF-16 with a byte order mark is XML too
        f.seek(0)
        while True:
            chunk = f.read(1 << 20)
            try:
                decoder.decode(chunk, final=not chunk)
            except UnicodeDecodeError as e:
                # the decoder may hold back up to 3 bytes of an unfinished sequence from the last chunk
                held = len(e.object) - len(chunk)
                pos = e.start - held
                return offset + pos, lines + chunk.count(b"\n", 0, max(pos, 0)) + 1, e.object[e.start]
            if not chunk:
                return None
            offset += len(chunk)
            lines += chunk.count(b"\n")


def _encoding_error(path: str) -> ModelError:
    """Locate the first byte that is not UTF-8 (IR files are always UTF-8)."""
    bad = _first_non_utf8(path)
    if bad is None:
        return ModelError("the document's bytes do not match its declared encoding", code="xml-encoding", file=path)
    offset, line, byte = bad
    return ModelError(f"byte 0x{byte:02x} at offset {offset} is not valid UTF-8 (IR files are UTF-8)", code="xml-encoding",
                      file=path, line=line)


_PROLOG_BYTES = 1 << 20


def _refuse_entity_declarations(path: str) -> None:
    """Refuse a DOCTYPE that declares entities or names an external DTD before
    libxml2 sees it, so the finding is `unsafe-xml`, not a syntax error."""
    try:
        with open_regular(path, "model file") as f:
            head = f.read(_PROLOG_BYTES)
    except OSError:
        return  # parse_xml_tolerant reports it
    start = head.find(b"<!DOCTYPE")
    if start < 0:
        return
    root = head.find(b"<net", start)
    prolog = head[start : root if root > 0 else len(head)]
    line = head[:start].count(b"\n") + 1
    if b"<!ENTITY" in prolog:
        raise ModelError("the document declares XML entities; IR files never do, and irexec never expands them",
                         code="unsafe-xml", file=path, line=line)
    decl_end = prolog.find(b"[") if b"[" in prolog else prolog.find(b">")
    if b"SYSTEM" in prolog[:decl_end] or b"PUBLIC" in prolog[:decl_end]:
        raise ModelError("the document refers to an external DTD; irexec never loads it", code="unsafe-xml", file=path, line=line)


def _refuse_unsafe(tree: etree._ElementTree, path: str, entities_possible: bool = True) -> None:
    info = tree.docinfo
    dtd = info.internalDTD
    if dtd is not None and any(True for _ in dtd.iterentities()):
        names = ", ".join(sorted(e.name for e in dtd.iterentities())[:5])
        raise ModelError(
            f"the document declares XML entities ({names}); IR files never do, and irexec never expands them",
            code="unsafe-xml",
            file=path,
            line=1,
        )
    if info.system_url or info.public_id:
        raise ModelError(
            f"the document refers to an external DTD ({info.system_url or info.public_id}); it is not loaded",
            code="unsafe-xml",
            file=path,
            line=1,
        )
    # Entity references left unexpanded would otherwise read as empty text.
    for node in tree.iter(etree.Entity) if entities_possible else ():
        raise ModelError(
            f"undeclared or unexpanded entity reference {node.text!r}", code="unsafe-xml", file=path, line=node.sourceline
        )
