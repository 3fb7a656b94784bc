"""The streaming reader: a well-formed, schema-valid document read while it is
parsed, each top-level layer and edge freed as soon as it is a record."""

from __future__ import annotations

from lxml import etree

from ..system.files import open_regular
from .elements import SUPPORTED_IR_VERSIONS, UINT_RE, Collector, read_edge, read_layer, read_pre_process
from .records import EdgeTable, IRDocument, Layer
from .safe_xml import PARSE_OPTIONS
from .schema import ir_schema

_CHUNK_BYTES = 1 << 20
# past this many bytes without a complete record, the tree reader takes over
# (libxml2 refuses a token over 10 MB anyway)
_STALL_BYTES = 16 << 20


def read_streaming(path: str) -> IRDocument | None:
    """The common case, a well-formed and schema-valid document without a DTD,
    read while it is parsed: each top-level ``<layer>`` and ``<edge>`` becomes a
    record and its elements are freed at once, so the whole tree (libxml2 nodes
    take about 13 times the XML's size) never exists.  The schema validates the
    stream as it goes.  Any other document gives None: the tree reader reads it
    again and reports every finding with its line, as it always has."""
    diag, edge_diag = Collector(path), Collector(path)
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
                                 **{**PARSE_OPTIONS, "resolve_entities": "internal"})
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
                            section.remove(el)
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
                        layer = read_layer(el, index, diag, taken)
                        if taken:  # the dims of its ports, read or not, are done with
                            for sect in el:
                                for pel in sect:
                                    taken.pop(pel, None)
                        index += 1
                        if layer is not None:
                            layers.append(layer)
                    elif el.tag == "edge" and section.tag == "edges":
                        read_edge(el, edges, edge_diag)
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
    if raw_version is None or not UINT_RE.match(raw_version.strip()) or int(raw_version) not in SUPPORTED_IR_VERSIONS:
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
