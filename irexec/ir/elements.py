"""XML elements to records: layers, ports and their dims, edges, port maps and
bodies, pre-processing; every problem with one record is a diagnostic."""

from __future__ import annotations

import re
import sys
from typing import Any, TypeVar

from lxml import etree

from ..base import dtypes, limits
from ..base.dtypes import ElementType
from ..base.errors import ERROR, Diagnostic
from .records import EdgeTable, IRDocument, Layer, MapEntry, MeanChannel, Port, PortMap, PreProcess

# lxml's items() looks each attribute value up with a scan of the element's
# attributes, quadratic in their number; past this many they are read otherwise.
_FEW_ATTRIBUTES = 64

# digit counts are capped: int() of a huge digit string is slow and, past 4300
# digits, a ValueError; no IR number needs more than 20
SUPPORTED_IR_VERSIONS = (10, 11)  # the <net version> values OpenVINO reads
UINT_RE = re.compile(r"^[0-9]{1,100}$")
_INT64_MAX = limits.INT64_MAX  # OpenVINO's Dimension is int64
_DIM_RE = re.compile(r"^\s*-?[0-9]{1,100}\s*$")
_NAME_SPLIT = re.compile(r"(?<!\\),")
_BODY_TAGS = frozenset({"body", "then_body", "else_body"})
_MAP_TAGS = frozenset({"port_map", "then_port_map", "else_port_map", "back_edges"})
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


class Collector:
    def __init__(self, path: str):
        self.path = path
        self.items: list[Diagnostic] = []

    def add(self, code: str, message: str, line: int | None, severity: str = ERROR, **where: object) -> None:
        self.items.append(Diagnostic(code, message, severity, file=self.path, line=line, **where))  # type: ignore[arg-type]


def _uint(el: etree._Element, attr: str, diag: Collector, what: str, **where: Any) -> int | None:
    raw = el.get(attr)
    if raw is None:
        diag.add("missing-attribute", f"{what} is missing mandatory attribute {attr!r}", el.sourceline, **where)
        return None
    if raw.isascii() and raw.isdigit() and len(raw) <= 100:
        return int(raw)
    if not UINT_RE.match(raw.strip()):
        diag.add("bad-attribute", f"{what} attribute {attr}={raw!r} is not an unsigned integer", el.sourceline, **where)
        return None
    return int(raw)


def read_layers(root: etree._Element, diag: Collector) -> list[Layer]:
    section = root.find("layers")
    if section is None:
        diag.add("missing-element", "<net> has no <layers> element", root.sourceline)
        return []
    layers: list[Layer] = []
    for index, el in enumerate(section.iterchildren("layer")):
        layer = read_layer(el, index, diag)
        if layer is not None:
            layers.append(layer)
    return layers


def read_layer(el: etree._Element, index: int, diag: Collector,
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
            diag = Collector(path)
            bodies[tag] = IRDocument(path, 11, tag, read_layers(el, diag), read_edges(el, diag), diag.items)
    else:
        maps = layer.port_maps if layer.port_maps is not None else {}
        layer.port_maps = maps
        if tag not in maps:
            entries = tuple(MapEntry(c.tag, dict(c.items()), c.sourceline) for c in el if isinstance(c.tag, str))
            maps[tag] = PortMap(el.sourceline, entries)


def _read_ports(sect: etree._Element, kind: str, ports: list[Port], diag: Collector, lid: int, name: str,
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


def _read_port(pel: etree._Element, kind: str, index: int, diag: Collector, lid: int, name: str,
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
        if isinstance(d, int):
            dims.append(d)
            continue
        if isinstance(d, tuple):
            text, dim_line = d
        elif d.tag != "dim":
            continue
        else:
            text = d.text or ""
            if text.isascii() and text.isdigit() and len(text) < 19:  # the common case, < 2^63 by its length
                dims.append(int(text))
                continue
            dim_line = d.sourceline  # asked only for a finding: one call into lxml fewer per <dim>
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


def _port_where(pid: int, kind: str, lid: int, name: str) -> dict:
    return {"port": pid, "port_kind": kind, "layer_id": lid, "layer_name": name}


def read_edges(root: etree._Element, diag: Collector) -> EdgeTable:
    edges = EdgeTable()
    section = root.find("edges")
    if section is None:
        return edges
    for el in section.iterchildren("edge"):
        read_edge(el, edges, diag)
    return edges


def read_edge(el: etree._Element, edges: EdgeTable, diag: Collector) -> None:
    get = el.get
    fl, fp, tl, tp = get("from-layer"), get("from-port"), get("to-layer"), get("to-port")
    # the common case in one test: four non-empty ASCII digit strings, at most 100 digits in all
    joined = fl + fp + tl + tp if fl and fp and tl and tp else ""
    if joined.isascii() and joined.isdigit() and len(joined) <= 100:
        vals: list[int | None] = [int(fl), int(fp), int(tl), int(tp)]
    else:
        vals = [_uint(el, a, diag, "<edge>") for a in ("from-layer", "from-port", "to-layer", "to-port")]
        if None in vals:
            return
    edges.add(vals[0], vals[1], vals[2], vals[3], el.sourceline)  # type: ignore[arg-type]
