"""model.xml -> records (layers, ports, edges), each with its XML source line.

The parser is locked down: no entity expansion, no DTD loading, no network,
libxml2's default limits on depth and text size.  A document that declares
entities or points at an external DTD is refused outright.  Everything that
is wrong with an individual record is collected as a diagnostic; only a
document that cannot be read at all raises.
"""

from __future__ import annotations

import codecs
import io
import os
import re
import stat
import sys
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TypeVar, overload

from lxml import etree

from .. import dtypes, limits
from ..dtypes import ElementType
from ..errors import ERROR, WARNING, Diagnostic, ModelError
from ..files import kind_of, open_regular
from . import lenient
from .schema import ir_schema, structure_diagnostics

SUPPORTED_IR_VERSIONS = (10, 11)

# Documents larger than this are refused before parsing: real IR XML is a few
# MiB even for billion-parameter models (the weights live in the .bin).
MAX_XML_BYTES = 512 * 1024 * 1024

# lxml's items() looks each attribute value up with a scan of the element's
# attributes, quadratic in their number; past this many they are read otherwise.
_FEW_ATTRIBUTES = 64

# digit counts are capped: int() of a huge digit string is slow and, past 4300
# digits, a ValueError; no IR number needs more than 20
_UINT_RE = re.compile(r"^[0-9]{1,100}$")
_INT64_MAX = limits.INT64_MAX  # OpenVINO's Dimension is int64
_DIM_RE = re.compile(r"^\s*-?[0-9]{1,100}\s*$")
_NAME_SPLIT = re.compile(r"(?<!\\),")
_lookup_type = dtypes.lookup
_intern = sys.intern


def _short(value: str) -> str:
    """One string object for each short text (an element type, a shape, an
    axis), however many layers repeat it; long ones are usually unique."""
    return _intern(value) if len(value) <= 32 else value


_T = TypeVar("_T")
# dims tuples and rt_info name sets, one object per distinct value: a model
# repeats a few of them on thousands of ports and layers
_dims_tuples: dict[tuple[int, ...], tuple[int, ...]] = {}
_rt_sets: dict[frozenset[str], frozenset[str]] = {}


def _shared(table: dict[_T, _T], value: _T) -> _T:
    found = table.get(value)
    if found is not None:
        return found
    if len(table) >= 4096:
        table.clear()  # bounded: a document of distinct shapes gets no sharing, not unbounded memory
    table[value] = value
    return value


@dataclass(slots=True)
class Port:
    id: int
    index: int  # position within its <input> or <output> section
    kind: str  # "input" | "output"
    line: int
    dims: tuple[int, ...] = ()  # declared; -1 = dynamic
    precision: ElementType | None = None
    names: tuple[str, ...] = ()


@dataclass(slots=True)
class Layer:
    id: int
    name: str
    type: str
    version: str
    line: int
    index: int  # position in the document
    data: dict[str, str] = field(default_factory=dict)
    data_line: int | None = None
    inputs: list[Port] = field(default_factory=list)
    outputs: list[Port] = field(default_factory=list)
    display: str = ""  # "Gather-8" once resolved, else "Gather/opset8"
    rt_info: frozenset[str] = frozenset()  # names of the layer's rt_info attributes
    # a sub-graph layer's nested parts, by tag: <body>/<then_body>/<else_body> read
    # as documents, <port_map>/<then_port_map>/<else_port_map>/<back_edges> as records
    bodies: dict[str, IRDocument] | None = None
    port_maps: dict[str, PortMap] | None = None

    def input_index(self, port_id: int) -> int | None:
        return _port_index(self.inputs, port_id)

    def output_index(self, port_id: int) -> int | None:
        return _port_index(self.outputs, port_id)


_INDEXED_PORTS = 16  # longer port lists are looked up through a dict, built once per list


def _port_index(ports: list[Port], port_id: int) -> int | None:
    if len(ports) <= _INDEXED_PORTS:
        for p in ports:
            if p.id == port_id:
                return p.index
        return None
    key = (id(ports), len(ports))
    table = _port_tables.get(key)
    if table is None or table[0] is not ports:
        if len(_port_tables) > 64:
            _port_tables.clear()
        table = _port_tables[key] = (ports, {p.id: p.index for p in ports})
    return table[1].get(port_id)


# (list id, length) -> (the list, {port id: index}); few layers have more than 16 ports, so a small cache
# keeps Layer records small (no per-layer dict)
_port_tables: dict[tuple[int, int], tuple[list[Port], dict[int, int]]] = {}


@dataclass(slots=True)
class Edge:
    from_layer: int
    from_port: int
    to_layer: int
    to_port: int
    line: int


class EdgeTable(Sequence[Edge]):
    """A document's edges, five int64s each (an Edge record and its ints take
    about 200 bytes); ``Edge`` records are made as they are read.  A value past
    int64 (ids of up to 100 digits are read) turns the table into a plain list."""

    __slots__ = ("_packed", "_list")

    def __init__(self) -> None:
        self._packed: array[int] | None = array("q")
        self._list: list[Edge] = []

    def add(self, from_layer: int, from_port: int, to_layer: int, to_port: int, line: int) -> None:
        packed = self._packed
        if packed is not None:
            if max(from_layer, from_port, to_layer, to_port, line) <= _INT64_MAX:
                packed.extend((from_layer, from_port, to_layer, to_port, line))
                return
            self._list = list(self)
            self._packed = None
        self._list.append(Edge(from_layer, from_port, to_layer, to_port, line))

    def __len__(self) -> int:
        return len(self._packed) // 5 if self._packed is not None else len(self._list)

    @overload
    def __getitem__(self, i: int) -> Edge: ...
    @overload
    def __getitem__(self, i: slice) -> list[Edge]: ...
    def __getitem__(self, i: int | slice) -> Edge | list[Edge]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        if self._packed is None:
            return self._list[i]
        n = len(self)
        if not -n <= i < n:
            raise IndexError("edge index out of range")
        k = 5 * (i % n)
        return Edge(*self._packed[k : k + 5])

    def __iter__(self) -> Iterator[Edge]:
        if self._packed is None:
            yield from self._list
            return
        values = iter(self._packed)
        for v in values:
            yield Edge(v, next(values), next(values), next(values), next(values))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and len(self) == len(other) and all(a == b for a, b in zip(self, other))

    def __repr__(self) -> str:
        return f"EdgeTable({list(self)!r})"


@dataclass(frozen=True, slots=True)
class MapEntry:
    """One child of a ``<port_map>`` (``<input>``/``<output>``) or of ``<back_edges>``
    (``<edge>``), its attributes as written: what they mean is the op's business."""

    tag: str
    attrs: dict[str, str]
    line: int


@dataclass(frozen=True, slots=True)
class PortMap:
    line: int
    entries: tuple[MapEntry, ...]


_BODY_TAGS = frozenset({"body", "then_body", "else_body"})
_MAP_TAGS = frozenset({"port_map", "then_port_map", "else_port_map", "back_edges"})


@dataclass(frozen=True)
class MeanChannel:
    """One ``<pre-process><channel>``: its ``<mean>`` holds a ``value`` or an
    ``offset``/``size`` blob in the .bin (the raw attribute texts)."""

    id: str | None
    line: int
    has_mean: bool = False
    value: str | None = None
    offset: str | None = None
    size: str | None = None


@dataclass(frozen=True)
class PreProcess:
    """The legacy ``<pre-process>`` section: mean values OpenVINO subtracts
    from one input as it reads the model."""

    line: int
    reference: str  # reference-layer-name, "" when absent
    channels: tuple[MeanChannel, ...]


@dataclass
class IRDocument:
    path: str
    ir_version: int
    name: str
    layers: list[Layer]
    edges: Sequence[Edge]  # an EdgeTable as read; a list where one is built by hand
    diagnostics: list[Diagnostic]
    pre_process: PreProcess | None = None


def read_pre_process(el: etree._Element | None) -> PreProcess | None:
    if el is None:
        return None
    channels = []
    for ch in el.iterchildren("channel"):
        mean = ch.find("mean")
        if mean is None:
            channels.append(MeanChannel(ch.get("id"), ch.sourceline))
        else:
            channels.append(MeanChannel(ch.get("id"), ch.sourceline, True, mean.get("value"), mean.get("offset"),
                                        mean.get("size")))
    return PreProcess(el.sourceline, el.get("reference-layer-name", ""), tuple(channels))


def unescape_names(raw: str) -> tuple[str, ...]:
    """Split a ``names`` attribute: commas separate, ``\\,`` is a literal comma."""
    parts = (p.replace("\\,", ",").strip() for p in _NAME_SPLIT.split(raw))
    return tuple(p for p in parts if p)


# the indentation between elements is a third of a document's nodes and means
# nothing; whitespace inside an element without children is kept
_PARSE_OPTIONS = {"resolve_entities": False, "no_network": True, "load_dtd": False, "huge_tree": False,
                  "remove_comments": True, "remove_pis": True, "remove_blank_text": True}


def _parser() -> etree.XMLParser:
    return etree.XMLParser(dtd_validation=False, **_PARSE_OPTIONS)  # type: ignore[arg-type]


def parse_xml(path: str) -> etree._ElementTree:
    """Parse ``path`` safely, raising ModelError with the line of any defect."""
    return parse_xml_tolerant(path)[0]


def parse_xml_tolerant(path: str) -> tuple[etree._ElementTree, list[tuple[str, str, int]]]:
    """``parse_xml``, plus what was tolerated as OpenVINO tolerates it (see
    ``lenient``): (code, message, line) each."""
    _check_file(path)
    notes: list[tuple[str, str, int]] = []
    try:
        with open_regular(path, "model file") as f:
            tree = etree.parse(f, _parser())
    except etree.XMLSyntaxError as e:
        repaired = _parse_repaired(path) if any(m in (e.msg or "") for m in _REPAIRABLE) else None
        if repaired is None:
            raise _syntax_error(path, e) from None
        tree, notes = repaired
    except OSError as e:
        if "encoding" in str(e):  # lxml reports undecodable bytes as an I/O error
            raise _encoding_error(path) from None
        raise ModelError(f"cannot read model file: {e.strerror or e}", code="file-not-found", file=path) from None
    _refuse_unsafe(tree, path)
    return tree, notes


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


def _check_file(path: str) -> None:
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
_CHUNK_BYTES = 1 << 20
_STREAM_FROM_BYTES = 16 << 20
# past this many bytes without a complete record, the tree reader takes over
# (libxml2 refuses a token over 10 MB anyway)
_STALL_BYTES = 16 << 20


def _refuse_entity_declarations(path: str) -> None:
    """Refuse a DOCTYPE that declares entities or names an external DTD before
    libxml2 sees it, so the finding is `unsafe-xml`, not a syntax error."""
    try:
        with open_regular(path, "model file") as f:
            head = f.read(_PROLOG_BYTES)
    except OSError:
        return  # parse_xml reports it
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


def _refuse_unsafe(tree: etree._ElementTree, path: str) -> None:
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
    for node in tree.iter(etree.Entity):
        raise ModelError(
            f"undeclared or unexpanded entity reference {node.text!r}", code="unsafe-xml", file=path, line=node.sourceline
        )


class _Collector:
    def __init__(self, path: str):
        self.path = path
        self.items: list[Diagnostic] = []

    def add(self, code: str, message: str, line: int | None, severity: str = ERROR, **where: object) -> None:
        self.items.append(Diagnostic(code, message, severity, file=self.path, line=line, **where))  # type: ignore[arg-type]


def _uint(el: etree._Element, attr: str, diag: _Collector, what: str, **where: object) -> int | None:
    raw = el.get(attr)
    if raw is None:
        diag.add("missing-attribute", f"{what} is missing mandatory attribute {attr!r}", el.sourceline, **where)
        return None
    if raw.isascii() and raw.isdigit() and len(raw) <= 100:
        return int(raw)
    if not _UINT_RE.match(raw.strip()):
        diag.add("bad-attribute", f"{what} attribute {attr}={raw!r} is not an unsigned integer", el.sourceline, **where)
        return None
    return int(raw)


def read_document(path: str) -> IRDocument:
    _check_file(path)
    # a small document is parsed whole (its tree is at most a few hundred MiB, and
    # pulled parsing with streamed validation costs about a fifth more time)
    doc = _read_streaming(path) if os.path.getsize(path) >= _STREAM_FROM_BYTES else None
    return doc if doc is not None else _read_tree(path)


def _read_streaming(path: str) -> IRDocument | None:
    """The common case, a well-formed and schema-valid document without a DTD,
    read while it is parsed: each top-level ``<layer>`` and ``<edge>`` becomes a
    record and its elements are freed at once, so the whole tree (libxml2 nodes
    take about 13 times the XML's size) never exists.  The schema validates the
    stream as it goes.  Any other document gives None: the tree reader reads it
    again and reports every finding with its line, as it always has."""
    diag, edge_diag = _Collector(path), _Collector(path)
    layers: list[Layer] = []
    edges = EdgeTable()
    index = 0
    records = 0
    closed = False  # the end of the root element was seen: the input did not stop early
    # lxml's pull parser recovers from errors silently when entities are left
    # unexpanded, so it resolves internal ones (no file or network access), and
    # it never sees a DOCTYPE, so there are none to expand (libxml2 can crash
    # expanding hostile ones in push mode): a document with one is the tree reader's
    pre_process = None
    parser = etree.XMLPullParser(events=("end",), tag=("layer", "edge", "net", "dim", "pre-process"), schema=ir_schema(),
                                 **{**_PARSE_OPTIONS, "resolve_entities": "internal"})  # type: ignore[arg-type]
    # A top-level port's <dim>s are taken out of the tree as they end (their
    # values and lines kept here until the layer is read): a port of millions
    # of dims costs a list of ints, not millions of libxml2 nodes.
    taken: dict[etree._Element, list[int | tuple[str, int]]] = {}
    values: list[int | tuple[str, int]] | None = None  # the dims taken from the port of the last <dim>
    port: etree._Element | None = None
    try:
        with open_regular(path, "model file") as f:
            unread = 0  # bytes fed since the last record: a token of many MiB parses far slower pushed than pulled
            tail = b""
            while True:
                chunk = f.read(_CHUNK_BYTES)
                if chunk:
                    if b"<!DOCTYPE" in tail + chunk[:16] or b"<!DOCTYPE" in chunk:
                        return None
                    tail = chunk[-16:]
                    parser.feed(chunk)
                    unread += len(chunk)
                    if unread > _STALL_BYTES:
                        return None
                else:
                    root = parser.close()
                for _, el in parser.read_events():
                    section = el.getparent()
                    if el.tag == "dim":
                        if section is not port:  # a port's dims come one after the other
                            port = section
                            values = taken.setdefault(port, []) if _top_level_port(port) else None
                        if values is not None:
                            text = el.text or ""
                            values.append(int(text) if text.isascii() and text.isdigit() and len(text) < 19 else
                                          (text, el.sourceline))
                            section.remove(el)  # type: ignore[union-attr]
                            unread = 0
                        continue
                    if section is None:
                        closed = el.tag == "net"
                        continue
                    top = section.getparent()
                    if el.tag == "pre-process":
                        if top is None and pre_process is None:
                            pre_process = read_pre_process(el)
                        continue
                    if top is None or top.getparent() is not None:
                        continue  # a sub-graph body's layer, or one inside free-form rt_info: freed with its ancestor
                    if el.tag == "layer" and section.tag == "layers":
                        layer = _read_layer(el, index, diag, taken)
                        if taken:  # the dims of its ports, read or not, are done with
                            for sect in el:
                                for pel in sect:
                                    taken.pop(pel, None)
                        index += 1
                        if layer is not None:
                            layers.append(layer)
                    elif el.tag == "edge" and section.tag == "edges":
                        _read_edge(el, edges, edge_diag)
                    else:
                        continue  # e.g. an <edge> in free-form rt_info
                    unread = 0
                    records += 1
                    if records % 64 == 0:  # free the records read so far, a batch at a time: the siblings
                        del section[: section.index(el)]  # before it (those after it may wait in the event queue)
                if not chunk:
                    break
    except (etree.XMLSyntaxError, OSError):
        return None  # not well-formed, not schema-valid, not UTF-8, unreadable: the tree reader says which
    info = root.getroottree().docinfo
    if not closed or root.tag != "net" or info.internalDTD is not None or info.system_url or info.public_id:
        return None
    raw_version = root.get("version")
    if raw_version is None or not _UINT_RE.match(raw_version.strip()) or int(raw_version) not in SUPPORTED_IR_VERSIONS:
        return None
    return IRDocument(path, int(raw_version), root.get("name", ""), layers, edges, diag.items + edge_diag.items, pre_process)


def _top_level_port(port: etree._Element | None) -> bool:
    """Whether ``port`` is a <port> of a layer of the main graph (not of a body)."""
    if port is None or port.tag != "port":
        return False
    section = port.getparent()
    layer = section.getparent() if section is not None else None
    layers = layer.getparent() if layer is not None else None
    net = layers.getparent() if layers is not None else None
    return net is not None and net.getparent() is None and layers.tag == "layers" and layer.tag == "layer"  # type: ignore[union-attr]


def is_ir_root(tag: object) -> bool:
    """Whether a root element's tag (lxml's, ``{uri}name`` when namespaced) makes an IR
    file: ``net`` in any case, as OpenVINO reads it, and in no namespace."""
    return isinstance(tag, str) and tag.lower() == "net"


def _read_tree(path: str) -> IRDocument:
    tree, tolerated = parse_xml_tolerant(path)
    root = tree.getroot()
    if not is_ir_root(root.tag):
        raise ModelError(f"root element is <{root.tag}>, not <net>: not an OpenVINO IR file", code="not-ir", file=path,
                         line=root.sourceline)
    raw_version = root.get("version")
    if raw_version is None or not _UINT_RE.match(raw_version.strip()) or int(raw_version) not in SUPPORTED_IR_VERSIONS:
        raise ModelError(
            f"IR version {raw_version!r} is not supported; supported: {', '.join(map(str, SUPPORTED_IR_VERSIONS))}",
            code="unsupported-ir-version",
            file=path,
            line=root.sourceline,
        )
    diag = _Collector(path)
    for code, message, line in tolerated:
        diag.add(code, message, line, WARNING)
    layers = _read_layers(root, diag)
    edges = _read_edges(root, diag)
    diag.items.extend(structure_diagnostics(tree, path, {d.line for d in diag.items}))
    return IRDocument(path, int(raw_version), root.get("name", ""), layers, edges, diag.items,
                      read_pre_process(root.find("pre-process")))


def _read_layers(root: etree._Element, diag: _Collector) -> list[Layer]:
    section = root.find("layers")
    if section is None:
        diag.add("missing-element", "<net> has no <layers> element", root.sourceline)
        return []
    layers: list[Layer] = []
    for index, el in enumerate(section.iterchildren("layer")):
        layer = _read_layer(el, index, diag)
        if layer is not None:
            layers.append(layer)
    return layers


def _read_layer(el: etree._Element, index: int, diag: _Collector,
                taken: dict[etree._Element, list[int | tuple[str, int]]] | None = None) -> Layer | None:
    line = el.sourceline
    get = el.get
    raw_id, name, op_type, version = get("id"), get("name"), get("type"), get("version")
    if raw_id is not None and raw_id.isascii() and raw_id.isdigit() and len(raw_id) <= 100:
        lid: int | None = int(raw_id)  # the common case, without building a message that is not needed
    else:
        lid = _uint(el, "id", diag, "<layer>")
    if lid is None or name is None or op_type is None or version is None:
        missing = [a for a, v in (("name", name), ("type", op_type), ("version", version)) if v is None]
        for a in missing:
            diag.add("missing-attribute", f"<layer> is missing mandatory attribute {a!r}", line, layer_id=lid, layer_name=name)
        return None
    layer = Layer(lid, name, _intern(op_type), _intern(version), line, index)
    layer.display = f"{op_type}/{version}"
    # the first of each section, in one pass (no dict: a large model has tens of
    # thousands of layers and allocation is a good part of reading them)
    rt = data = first_input = first_output = None
    for child in el:
        tag = child.tag
        if tag == "data":
            data = child if data is None else data
        elif tag == "input":
            first_input = child if first_input is None else first_input
        elif tag == "output":
            first_output = child if first_output is None else first_output
        elif tag == "rt_info":
            rt = child if rt is None else rt
        elif tag in _BODY_TAGS or tag in _MAP_TAGS:
            _read_nested(layer, child, diag.path)
    if rt is not None:
        names = frozenset(_short(a.get("name", "")) for a in rt.iterchildren("attribute"))
        layer.rt_info = _shared(_rt_sets, names)
    if data is not None:
        layer.data_line = data.sourceline
        if len(data.attrib) <= _FEW_ATTRIBUTES:
            # through items(): cheaper than the .attrib proxy.  Names and short values
            # (element types, shapes, axes) repeat on thousands of layers: one string each
            layer.data = {_intern(k): _short(v) for k, v in data.items()}
        else:  # items() finds each value by a scan of the attributes: quadratic; XPath is linear
            layer.data = {a.attrname: str(a) for a in data.xpath("@*")}
    if first_input is not None:
        _read_ports(first_input, "input", layer.inputs, diag, lid, name, taken)
    if first_output is not None:
        _read_ports(first_output, "output", layer.outputs, diag, lid, name, taken)
    return layer


def _read_nested(layer: Layer, el: etree._Element, path: str) -> None:
    """A sub-graph layer's body (read once, here, with its own findings: they are
    the body's) or port map; the first of each tag counts."""
    tag = el.tag
    if tag in _BODY_TAGS:
        bodies = layer.bodies if layer.bodies is not None else {}
        layer.bodies = bodies
        if tag not in bodies:
            diag = _Collector(path)
            bodies[tag] = IRDocument(path, 11, tag, _read_layers(el, diag), _read_edges(el, diag), diag.items)
    else:
        maps = layer.port_maps if layer.port_maps is not None else {}
        layer.port_maps = maps
        if tag not in maps:
            entries = tuple(MapEntry(c.tag, dict(c.items()), c.sourceline) for c in el if isinstance(c.tag, str))
            maps[tag] = PortMap(el.sourceline, entries)


def _read_ports(sect: etree._Element, kind: str, ports: list[Port], diag: _Collector, lid: int, name: str,
                taken: dict[etree._Element, list[int | tuple[str, int]]] | None = None) -> None:
    ids: list[int] = []  # a handful of ports: a list, and a set only for a long section
    seen: set[int] | None = None
    for pel in sect:  # cheaper than iterchildren("port"), which sets up a tag matcher per section
        if pel.tag != "port":
            continue
        port = _read_port(pel, kind, len(ports), diag, lid, name, taken.get(pel) if taken else None)
        if port is None:
            continue
        if seen is None and len(ids) > 16:
            seen = set(ids)
        if port.id in (ids if seen is None else seen):
            diag.add("duplicate-port", f"{kind} port id {port.id} appears twice", pel.sourceline, port=port.id, port_kind=kind,
                     layer_id=lid, layer_name=name)
            continue
        ids.append(port.id)
        if seen is not None:
            seen.add(port.id)
        ports.append(port)


def _read_port(pel: etree._Element, kind: str, index: int, diag: _Collector, lid: int, name: str,
               taken: list[int | tuple[str, int]] | None = None) -> Port | None:
    line = pel.sourceline
    get = pel.get
    raw_id = get("id")
    if raw_id is not None and raw_id.isascii() and raw_id.isdigit() and len(raw_id) <= 100:
        pid = int(raw_id)  # the common case, without building a message that is not needed
    else:
        pid = _uint(pel, "id", diag, f"<{kind}> <port>", port_kind=kind, layer_id=lid, layer_name=name)  # type: ignore[assignment]
        if pid is None:
            return None
    dims: list[int] = []
    # the values and lines the streaming reader took out of the tree, else the <dim> children
    for d in taken if taken is not None else pel:  # cheaper than iterchildren("dim"), which sets up a tag matcher per port
        if type(d) is int:
            dims.append(d)
            continue
        if type(d) is tuple:
            text, dim_line = d
        elif d.tag != "dim":
            continue
        else:
            text, dim_line = d.text or "", d.sourceline
            if text.isascii() and text.isdigit() and len(text) < 19:  # the common case, < 2^63 by its length
                dims.append(int(text))
                continue
        if not _DIM_RE.match(text) or not -1 <= int(text) <= _INT64_MAX:
            diag.add("bad-dim", f"<dim>{text[:40]}</dim> must be an integer >= -1 (-1 = dynamic) and below 2^63", dim_line,
                     **_port_where(pid, kind, lid, name))
            dims.append(-1)  # keep the port, so its edges and port counts raise no follow-on errors
            continue
        dims.append(int(text))
    precision: ElementType | None = None
    raw = get("precision")
    if kind == "output":
        if raw is None:
            diag.add("missing-attribute", "output port is missing mandatory attribute 'precision'", line,
                     **_port_where(pid, kind, lid, name))
        else:
            precision = _lookup_type(raw)
            if precision is None:
                diag.add("bad-element-type", f"precision {raw!r} is not an IR element type", line, **_port_where(pid, kind, lid, name))
        raw_names = get("names")
        names = unescape_names(raw_names) if raw_names else ()
    else:
        if raw is not None:
            precision = _lookup_type(raw)  # informational only on inputs, as in OpenVINO
        names = ()
    return Port(pid, index, kind, line, _shared(_dims_tuples, tuple(dims)), precision, names)


def _port_where(pid: int, kind: str, lid: int, name: str) -> dict:  # type: ignore[type-arg]
    return {"port": pid, "port_kind": kind, "layer_id": lid, "layer_name": name}


def _read_edges(root: etree._Element, diag: _Collector) -> EdgeTable:
    edges = EdgeTable()
    section = root.find("edges")
    if section is None:
        return edges
    for el in section.iterchildren("edge"):
        _read_edge(el, edges, diag)
    return edges


def _read_edge(el: etree._Element, edges: EdgeTable, diag: _Collector) -> None:
    get = el.get
    fl, fp, tl, tp = get("from-layer"), get("from-port"), get("to-layer"), get("to-port")
    # the common case in one test: four non-empty ASCII digit strings, at most 100 digits in all
    joined = fl + fp + tl + tp if fl and fp and tl and tp else ""
    if joined.isascii() and joined.isdigit() and len(joined) <= 100:
        vals: list[int | None] = [int(fl), int(fp), int(tl), int(tp)]  # type: ignore[arg-type]
    else:
        vals = [_uint(el, a, diag, "<edge>") for a in ("from-layer", "from-port", "to-layer", "to-port")]
        if None in vals:
            return
    edges.add(vals[0], vals[1], vals[2], vals[3], el.sourceline)  # type: ignore[arg-type]
