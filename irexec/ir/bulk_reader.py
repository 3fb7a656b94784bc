"""The common case read without visiting each element from Python: the layers and
edges of a parsed, plain document pulled out of its text by compiled regular
expressions, a layer (with its ports and dims) or an edge per match.

libxml2 has already parsed the document (well-formed, no DTD, no entity: see
safe_xml.py) and the schema still validates its tree; this reader only replaces
the element walk (elements.py) that turns the tree into records, and only where
it gives exactly the walk's records with nothing to report.  It declines (None)
whenever the text holds anything it does not read as the walk does: comments,
CDATA, processing instructions, character or entity references, carriage
returns, sub-graph bodies and port maps, a start tag over several lines, a
layer or port whose content is not the plain data/input/output/rt_info shape, a
value the walk would report (a missing attribute, a bad id, dim or precision, a
duplicate port).  Then the walk reads the tree and reports as it always has.
"""

from __future__ import annotations

import re
import sys

from lxml import etree

from ..base import dtypes
from .elements import _dims_tuples, _rt_sets, _shared, _short, unescape_names
from .records import EdgeTable, Layer, Port

# what the walk reads differently from the text, or what this reader does not read
_DECLINE = re.compile(r"<!--|<!\[|<\?|&|\r|<(?:body|then_body|else_body|port_map|then_port_map|else_port_map|back_edges)\b")
_TAG_OK = re.compile(r'(?:\s+[^\s=/>:"\'<]+="[^"<]*")*\s*')
_PAIR = re.compile(r'([^\s=/>:"\'<]+)="([^"<]*)"')
_LAYER_TAG = re.compile(r'\s+id="([0-9]{1,100})"\s+name="([^"<]*)"\s+type="([^"<]*)"\s+version="([^"<]*)"\s*')
_LAYER_OPEN = re.compile(r"\s*<layer(\s[^>]*)?>")
_EDGE = re.compile(r"(\s*)<edge(\s[^>]*)?>(\s*</edge>)?")
_EDGE_PLAIN = re.compile(r'\s+from-layer="([0-9]{1,25})"\s+from-port="([0-9]{1,25})"\s+to-layer="([0-9]{1,25})"'
                         r'\s+to-port="([0-9]{1,25})"\s*')
# a layer's children (the schema has let each appear at most once, in any order)
_CHILD = re.compile(r"\s*<(data|input|output|rt_info)(\s[^>]*|/)?>")
_RT_CONTENT = re.compile(r"(?:\s*<attribute\s[^>]*/>)*\s*")
_PORT = re.compile(r"\s*<port(\s[^>]*?)?(?:/>|>((?:\s*<dim>[^<]*</dim\s*>)*)\s*"
                   r"(?:<rt_info\s*(?:/>|>(?:\s*<attribute\s[^>]*?/>)*\s*</rt_info\s*>)\s*)?</port\s*>)", re.S)
_DIM_TEXT = re.compile(r"<dim>([^<]*)</dim")
_RT_ATTRIBUTE = re.compile(r"<attribute(\s[^>]*?)/>")
_SPACES = str.maketrans("\t\n", "  ")  # attribute value normalisation (the parser made \r\n and \r into \n)
_lookup_type = dtypes.lookup
_intern = sys.intern
_EXACT_LINES = 65535  # libxml2 stores a line in 16 bits; past it, lxml's sourceline is a neighbour's
_MAX_DIGITS = 100  # as the walk: ids of up to 100 digits


class _Decline(Exception):
    """The text holds something the walk reads otherwise: let the walk read it."""


def read_bulk(root: etree._Element, text: bytes) -> tuple[list[Layer], EdgeTable] | None:
    """The layers and edges of the document ``text`` whose tree is ``root`` (parsed
    from these bytes and valid by the schema), or None."""
    if not text.isascii() or b"\0" in text:
        return None  # character offsets are byte offsets only in ASCII (UTF-16 has NULs)
    doc = text.decode("ascii")
    layers_el = root.find("layers")
    edges_el = root.find("edges")
    if layers_el is None:
        return None
    start, end = _section(doc, "layers")
    if start < 0 or _DECLINE.search(doc, start, end):
        return None
    estart, eend = _section(doc, "edges", end) if edges_el is not None else (end, end)
    if estart < 0 or _DECLINE.search(doc, estart, eend):
        return None
    try:
        layers = _read_layers(doc, start, end)
        edges = _read_edges(doc, estart, eend)
    except _Decline:
        return None
    # the text's records are the tree's: as many layers and edges, the sections and the
    # first and last records on the tree's lines (libxml2 knows a line exactly below 65535 only)
    # (valid by the schema, <layers> holds only <layer> elements and <edges> only <edge>)
    if len(layers_el) != len(layers) or len(edges_el if edges_el is not None else ()) != len(edges):
        return None
    pairs = [(doc.count("\n", 0, start) + 1, layers_el.sourceline)]
    if edges_el is not None:
        pairs.append((doc.count("\n", 0, estart) + 1, edges_el.sourceline))
    if layers:
        pairs += [(layers[0].line, layers_el[0].sourceline), (layers[-1].line, layers_el[-1].sourceline)]
    if edges_el is not None and len(edges):
        pairs += [(edges[0].line, edges_el[0].sourceline), (edges[-1].line, edges_el[-1].sourceline)]
    if any(mine != theirs for mine, theirs in pairs if theirs is not None and theirs < _EXACT_LINES):
        return None
    return layers, edges


def _section(doc: str, tag: str, start: int = 0) -> tuple[int, int]:
    """The span of the content of the first ``<tag>`` element from ``start``, or (-1, -1)."""
    m = re.compile(rf"<{tag}\s*>").search(doc, start)
    if m is None:
        return -1, -1
    close = doc.find(f"</{tag}>", m.end())
    if close < 0 or doc.find(f"<{tag}", m.end(), close) >= 0:
        return -1, -1
    return m.end(), close


def _attrs(raw: str | None, one_line: bool = True) -> dict[str, str]:
    """A start tag's attributes, when they are plain: double quotes, no namespace,
    no tab (and no line break, where the tag's line is needed): else _Decline."""
    if not raw:
        return {}
    if _TAG_OK.fullmatch(raw) is None or "xmlns" in raw or "\t" in raw or (one_line and "\n" in raw):
        raise _Decline
    return dict(_PAIR.findall(raw))


def _uint(raw: str | None) -> int:
    if raw is None or not (raw.isascii() and raw.isdigit()) or len(raw) > _MAX_DIGITS:
        raise _Decline
    return int(raw)


# (id, dims, precision, names, lines after the section's first): one section's ports
_PortProto = tuple[int, tuple[int, ...], "dtypes.ElementType | None", tuple[str, ...], int]


def _read_layers(doc: str, start: int, end: int) -> list[Layer]:
    layers: list[Layer] = []
    pos, line, counted = start, 1, 0  # line: the line of offset ``counted``
    count, find = doc.count, doc.find
    tag_match, open_match = _LAYER_TAG.fullmatch, _LAYER_OPEN.match
    # a model repeats the same <data> and port sections on many layers: each text is read once
    data_seen: dict[str, dict[str, str]] = {}
    ports_seen: dict[tuple[str, str], tuple[_PortProto, ...]] = {}
    index = 0
    child_match = _CHILD.match
    while True:
        m = open_match(doc, pos, end)
        if m is None:
            break
        raw = m.group(1) or ""
        closed = raw.endswith("/")  # <layer ... />
        if closed:
            raw = raw[:-1]
        t = tag_match(raw)
        if t is not None and "\n" not in raw and "\t" not in raw:
            raw_id, name, op_type, version = t.group(1, 2, 3, 4)
        else:
            a = _attrs(raw)
            raw_id, name, op_type, version = a.get("id"), a.get("name"), a.get("type"), a.get("version")
            if op_type is None or version is None or name is None:
                raise _Decline
        at = m.end()
        line += count("\n", counted, at)
        counted = at
        layer = Layer(_uint(raw_id), name, _intern(op_type), _intern(version), line, index)
        layer.display = f"{op_type}/{version}"
        index += 1
        layers.append(layer)
        if closed:
            pos = at
            continue
        close = find("</layer>", at, end)
        if close < 0:
            raise _Decline
        pos = close + 8
        while at < close:
            c = child_match(doc, at, close)
            if c is None:
                if doc[at:close].strip():
                    raise _Decline
                break
            tag, raw = c.group(1, 2)
            raw = raw or ""
            content_at = c.end()
            if raw.endswith("/"):
                raw, content, at = raw[:-1], "", content_at
            else:
                content_end = find(f"</{tag}>", content_at, close)
                if content_end < 0:
                    raise _Decline
                content, at = doc[content_at:content_end], content_end + len(tag) + 3
            line += count("\n", counted, content_at)
            counted = content_at
            if tag == "data":
                if content.strip():
                    raise _Decline  # children or text: the walk ignores them, the schema allows them
                layer.data_line = line
                data = data_seen.get(raw)
                if data is None:
                    if len(data_seen) > 4096:
                        data_seen.clear()
                    data = data_seen[raw] = {_intern(k): _short(v) for k, v in _attrs(raw).items()}
                layer.data = dict(data)
            elif tag == "rt_info":
                if _RT_CONTENT.fullmatch(content) is None:
                    raise _Decline
                names = frozenset(_short(_attrs(r, one_line=False).get("name", "").translate(_SPACES))
                                  for r in _RT_ATTRIBUTE.findall(content))
                layer.rt_info = _shared(_rt_sets, names)
            else:
                if raw.strip():
                    raise _Decline
                if content:
                    _add_ports(layer.inputs if tag == "input" else layer.outputs, tag, content, ports_seen, line)
    if doc[pos:end].strip():
        raise _Decline  # something that is not a layer
    return layers


def _add_ports(ports: list[Port], kind: str, section: str, seen: dict[tuple[str, str], tuple[_PortProto, ...]],
               line: int) -> None:
    protos = seen.get((kind, section))
    if protos is None:
        if len(seen) > 4096:
            seen.clear()
        protos = seen[(kind, section)] = _read_ports(section, kind)
    for index, (pid, dims, precision, names, lines_after) in enumerate(protos):
        ports.append(Port(pid, index, kind, line + lines_after, dims, precision, names))


def _read_ports(section: str, kind: str) -> tuple[_PortProto, ...]:
    pos = 0
    found: list[_PortProto] = []
    ids: list[int] = []
    for m in _PORT.finditer(section):
        if m.start() != pos:
            raise _Decline
        pos = m.end()
        a = _attrs(m.group(1))
        pid = _uint(a.get("id"))
        if pid in ids:
            raise _Decline  # duplicate-port: the walk reports it
        ids.append(pid)
        dims: list[int] = []
        if m.group(2):
            for t in _DIM_TEXT.findall(m.group(2)):
                if t.isdigit() and len(t) < 19:
                    dims.append(int(t))
                elif t == "-1":
                    dims.append(-1)
                else:
                    raise _Decline  # bad-dim, or a value the walk reads by its slower rule
        raw = a.get("precision")
        if kind == "output":
            if raw is None:
                raise _Decline
            precision = _lookup_type(raw)
            if precision is None:
                raise _Decline
            raw_names = a.get("names")
            names = unescape_names(raw_names) if raw_names else ()
        else:
            precision = _lookup_type(raw) if raw is not None else None
            names = ()
        lines_after = section.count("\n", 0, m.start() + m.group(0).index("<port"))
        found.append((pid, _shared(_dims_tuples, tuple(dims)), precision, names, lines_after))
    if section[pos:].strip():
        raise _Decline
    return tuple(found)


def _read_edges(doc: str, start: int, end: int) -> EdgeTable:
    edges = EdgeTable()
    add = edges.add
    pos, line, counted = start, 1, 0
    count, plain = doc.count, _EDGE_PLAIN.fullmatch
    for m in _EDGE.finditer(doc, start, end):
        if m.start() != pos:
            raise _Decline  # something that is not an edge
        pos = m.end()
        raw = m.group(2) or ""
        if raw.endswith("/") == (m.group(3) is not None):
            raise _Decline  # <edge .../></edge>, or an <edge> left open
        if m.group(3) is None:
            raw = raw[:-1]
        p = plain(raw)
        if p is not None and "\n" not in raw:
            fl, fp, tl, tp = p.group(1, 2, 3, 4)
        else:
            a = _attrs(raw)
            fl, fp, tl, tp = a.get("from-layer"), a.get("from-port"), a.get("to-layer"), a.get("to-port")
        at = m.end(1)
        line += count("\n", counted, at)
        counted = at
        add(_uint(fl), _uint(fp), _uint(tl), _uint(tp), line)
    if doc[pos:end].strip():
        raise _Decline
    return edges
