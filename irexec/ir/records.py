"""The records an IR document is read into (layers, ports, edges, port maps,
pre-processing), each with its XML source line.  Plain data: no XML parser here."""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import overload

from ..base import limits
from ..base.dtypes import ElementType
from ..base.errors import Diagnostic


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
            if max(from_layer, from_port, to_layer, to_port, line) <= limits.INT64_MAX:
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

    def rows(self) -> Iterator[tuple[int, int, int, int, int]]:
        """(from layer, from port, to layer, to port, line) of each edge, without
        making Edge records: what a pass over every edge of a large model reads."""
        packed = self._packed
        if packed is None:
            return ((e.from_layer, e.from_port, e.to_layer, e.to_port, e.line) for e in self._list)
        return zip(packed[0::5], packed[1::5], packed[2::5], packed[3::5], packed[4::5])

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
