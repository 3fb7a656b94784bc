"""Write IR files (XML + bin) the way OpenVINO's serializer lays them out.

Used to build the shipped examples and the tests; handy for users who want a
small model without installing OpenVINO.  Output dims are inferred with
irexec's own ops unless given explicitly (tests give wrong ones on purpose).

    b = IRBuilder()
    x = b.parameter("x", [4, 3], "f32")
    y = b.layer("Roll", "opset7", [x, b.const(np.array([1])), b.const(np.array([0]))])
    b.result(y)
    b.write("model.xml")
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from lxml import etree

from ..base import dtypes, lowbit, strings
from ..base.shapes import PartialShape, parse_partial_shape
from ..ops.framework.base import TensorInfo


@dataclass(frozen=True)
class Out:
    """One output port of a layer being built."""

    layer: int
    port: int
    dims: tuple[int, ...] | None  # None: dynamic rank
    etype: str
    info: TensorInfo | None = None


@dataclass
class _LayerSpec:
    id: int
    name: str
    type: str
    version: str
    data: dict[str, str] | None
    inputs: list[Out]
    outputs: list[tuple[tuple[int, ...] | None, str, tuple[str, ...]]]


def _dims(shape: PartialShape) -> tuple[int, ...] | None:
    if shape.dims is None:
        return None
    return tuple(d.value if d.is_static else -1 for d in shape.dims)


def _escape_names(names: Sequence[str]) -> str:
    return ",".join(n.replace(",", "\\,") for n in sorted(names))


@dataclass
class IRBuilder:
    name: str = "model"
    version: int = 11
    layers: list[_LayerSpec] = field(default_factory=list)
    blob: bytearray = field(default_factory=bytearray)
    _outputs: dict[int, list[Out]] = field(default_factory=dict, repr=False)

    def _next_id(self) -> int:
        return len(self.layers)

    def parameter(self, name: str, shape: str | Sequence[int], etype: str = "f32", names: Sequence[str] | None = None) -> Out:
        text = shape if isinstance(shape, str) else ",".join(str(int(d)) for d in shape)
        pshape = parse_partial_shape(text)
        lid = self._next_id()
        names = tuple(names) if names is not None else (name,)
        self.layers.append(_LayerSpec(lid, name, "Parameter", "opset1", {"shape": text, "element_type": etype}, [],
                                      [(_dims(pshape), etype, names)]))
        return Out(lid, 0, _dims(pshape), etype, TensorInfo(pshape, dtypes.get(etype)))

    def const(self, value: np.ndarray, etype: str | None = None, name: str | None = None) -> Out:
        arr = np.asarray(value, order="C")  # (ascontiguousarray would make a 0-d array 1-d)
        et = dtypes.get(etype) if etype else dtypes.get("string") if arr.dtype.kind in "US" else dtypes.from_dtype(arr.dtype)
        assert et is not None and et.dtype is not None, f"no IR element type for {arr.dtype}"
        if et.is_string:
            arr = strings.from_numpy(arr)
            raw = strings.pack(arr) if arr.size else b""
        else:
            arr = arr.astype(et.dtype, copy=False)
            raw = lowbit.pack(arr, et.name) if et.packed else arr.tobytes()
        offset = len(self.blob)
        self.blob += raw
        size = len(raw) if raw else 1  # OpenVINO writes size="1" for an empty Const
        if not raw:
            self.blob += b"\0"
        lid = self._next_id()
        shape_text = ", ".join(str(d) for d in arr.shape)
        self.layers.append(_LayerSpec(lid, name or f"Const_{lid}", "Const", "opset1",
                                      {"element_type": et.name, "offset": str(offset), "size": str(size), "shape": shape_text},
                                      [], [(tuple(arr.shape), et.name, ())]))
        return Out(lid, 0, tuple(arr.shape), et.name, TensorInfo(PartialShape.static(arr.shape), et, arr))

    def layer(
        self,
        type: str,
        version: str,
        inputs: Sequence[Out],
        attrs: dict[str, Any] | None = None,
        *,
        name: str | None = None,
        outputs: Sequence[tuple[Sequence[int] | None, str]] | None = None,
        names: Sequence[str] = (),
        port_names: Sequence[Sequence[str]] | None = None,
    ) -> Out:
        """Add a layer; outputs as (dims, element type) pairs, else inferred.
        ``names`` are the tensor names of output 0, ``port_names`` those of each output."""
        lid = self._next_id()
        data = None if attrs is None else {k: str(v) for k, v in attrs.items()}
        if outputs is None:
            outs = self._infer(type, version, inputs, data or {})
        else:
            outs = [(None if d is None else tuple(d), et, None) for d, et in outputs]
        if port_names is None:
            port_names = [tuple(names) if i == 0 else () for i in range(len(outs))]
        specs = [(o[0], o[1], tuple(port_names[i])) for i, o in enumerate(outs)]
        self.layers.append(_LayerSpec(lid, name or f"{type}_{lid}", type, version, data, list(inputs), specs))
        self._outputs[lid] = [Out(lid, len(inputs) + k, o[0], o[1], o[2]) for k, o in enumerate(outs)]
        first = outs[0] if outs else (None, "undefined", None)
        return Out(lid, len(inputs), first[0], first[1], first[2])

    def outputs_of(self, first: Out) -> list[Out]:
        """Every output of the layer that ``first`` is an output of."""
        return self._outputs[first.layer]

    def _infer(self, type: str, version: str, inputs: Sequence[Out], data: dict[str, str]) -> list[tuple[Any, str, Any]]:
        from ..ops.framework.registry import resolve

        cls = resolve(type, version)
        assert cls is not None, f"{type}/{version} is not implemented; pass outputs= explicitly"
        op, errors = cls.build(None, data)
        if errors:
            raise errors[0]
        assert op is not None
        infos = [i.info or TensorInfo(PartialShape(None) if i.dims is None else PartialShape.of(i.dims), dtypes.get(i.etype))
                 for i in inputs]
        inference = op.inference(infos)
        outs = op.fold(infos, inference) if infos else inference.outputs
        return [(_dims(info.shape), info.etype.name, info) for info in outs]

    def result(self, src: Out, name: str | None = None) -> None:
        lid = self._next_id()
        self.layers.append(_LayerSpec(lid, name or f"Result_{lid}", "Result", "opset1", None, [src], []))

    # ------------------------------------------------------------------ output
    def to_xml(self) -> bytes:
        net = etree.Element("net", name=self.name, version=str(self.version))
        layers_el = etree.SubElement(net, "layers")
        edges: list[tuple[int, int, int, int]] = []
        producers = {}
        for spec in self.layers:
            el = etree.SubElement(layers_el, "layer", id=str(spec.id), name=spec.name, type=spec.type, version=spec.version)
            if spec.data is not None:
                etree.SubElement(el, "data", {k: v for k, v in spec.data.items()})
            if spec.inputs:
                inp = etree.SubElement(el, "input")
                for i, src in enumerate(spec.inputs):
                    port = etree.SubElement(inp, "port", id=str(i), precision=dtypes.get(src.etype).precision)
                    for d in src.dims or ():
                        etree.SubElement(port, "dim").text = str(d)
                    edges.append((src.layer, src.port, spec.id, i))
            if spec.outputs:
                out = etree.SubElement(el, "output")
                for k, (dims, et, names) in enumerate(spec.outputs):
                    attrs = {"id": str(len(spec.inputs) + k), "precision": dtypes.get(et).precision}
                    if names:
                        attrs["names"] = _escape_names(names)
                    port = etree.SubElement(out, "port", attrs)
                    for d in dims or ():
                        etree.SubElement(port, "dim").text = str(d)
            producers[spec.id] = spec
        edges_el = etree.SubElement(net, "edges")
        for fl, fp, tl, tp in edges:
            etree.SubElement(edges_el, "edge", {"from-layer": str(fl), "from-port": str(fp), "to-layer": str(tl), "to-port": str(tp)})
        return etree.tostring(net, pretty_print=True, xml_declaration=True, encoding="utf-8")

    def write(self, xml_path: str | os.PathLike[str]) -> tuple[str, str]:
        xml_path = os.fspath(xml_path)
        bin_path = os.path.splitext(xml_path)[0] + ".bin"
        with open(xml_path, "wb") as f:
            f.write(self.to_xml())
        with open(bin_path, "wb") as f:
            f.write(bytes(self.blob))
        return xml_path, bin_path
