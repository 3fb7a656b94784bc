"""The legacy ``<pre-process>`` section (IR written by the old Model
Optimizer): per-channel mean values that OpenVINO's IR reader subtracts from
one input while it reads the model (``parse_pre_process`` in
src/frontends/ir/src/input_model.cpp).  irexec checks the section by the same
rules and subtracts the same values from that input before a run, so a run
gives what OpenVINO gives.

Which input: the Parameter named by ``reference-layer-name``; without one, the
first Parameter of rank 4, else the first Parameter.  Its shape must be static
and of rank 2 to 5; the channel axis is 1 (0 for rank 3, read as CHW).  Each
``<channel>`` holds a ``<mean value="..."/>`` (a scalar) or a
``<mean offset=".." size=".."/>`` blob of the input's element type and its
spatial shape; one kind for all channels, one per channel.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..base.errors import ERROR, Diagnostic
from ..ir.records import PreProcess
from ..ir.weights import Weights
from ..ops.framework.base import Op
from ..ops.io import Parameter1
from .graph import Graph

CODE = "bad-pre-process"


@dataclass(frozen=True)
class MeanSubtraction:
    """The means of one input.  Blobs stay views of the mapped weights, one per
    channel, and are subtracted channel by channel: a section whose channels
    all name one large blob costs no memory to read or check, and a run
    allocates only the result, which has the input's (already charged) size."""

    parameter: int  # layer id of the input
    mean: np.ndarray | None  # scalar means, broadcasting against the input's shape
    blobs: tuple[np.ndarray, ...] = ()  # or one blob per channel, of shape (1, *spatial)
    channel_axis: int = 1

    def apply(self, value: np.ndarray) -> np.ndarray:
        if self.mean is not None:
            return np.subtract(value, self.mean.astype(value.dtype, copy=False), dtype=value.dtype)
        out = np.empty(value.shape, value.dtype)
        for c, blob in enumerate(self.blobs):
            at = (slice(None),) * self.channel_axis + (c,)
            np.subtract(value[at], blob[0].astype(value.dtype, copy=False), out=out[at], dtype=value.dtype)
        return out


def resolve(path: str, pre: PreProcess | None, graph: Graph, ops: dict[int, Op | None], weights: Weights,
            diags: list[Diagnostic]) -> MeanSubtraction | None:
    """The subtraction ``pre`` asks for, or None (no section, no means, or a
    finding added to ``diags``: OpenVINO refuses such a file)."""
    if pre is None:
        return None

    def refuse(message: str, line: int | None = None) -> None:
        diags.append(Diagnostic(CODE, message, ERROR, file=path, line=line or pre.line))

    params = sorted((l for lid, l in graph.layers.items() if isinstance(ops.get(lid), Parameter1)), key=lambda l: l.index)
    name = pre.reference.strip()
    if name:
        layer = next((l for l in params if l.name == name), None)
        if layer is None:
            refuse(f"reference-layer-name {name!r} names no Parameter")
            return None
    else:
        if not params:
            refuse("the model has no Parameter to apply the pre-process to")
            return None
        layer = next((l for l in params if _rank(ops[l.id]) == 4), params[0])
    op = ops[layer.id]
    assert isinstance(op, Parameter1)
    shape = op.shape
    if not shape.is_static:
        refuse(f"the pre-process applies to Parameter {layer.name!r}, whose shape {shape} is not static")
        return None
    dims = shape.to_tuple()
    if not 2 <= len(dims) <= 5:
        refuse(f"the pre-process applies to Parameter {layer.name!r} of rank {len(dims)}; "
               "OpenVINO applies mean values to inputs of rank 2 to 5")
        return None
    channel_axis = 0 if len(dims) == 3 else 1
    channels = dims[channel_axis]
    scalar_shape = {2: (channels,), 3: (channels, 1, 1), 4: (channels, 1, 1), 5: (channels, 1, 1, 1)}[len(dims)]
    spatial = dims[channel_axis + 1:] if len(dims) != 2 else ()
    blob_shape = (1,) + tuple(spatial) if spatial else (1,)
    etype = op.element_type

    scalars: set[tuple[int, float]] = set()
    blobs: set[tuple[int, int, int]] = set()
    next_id = 0
    for ch in pre.channels:
        number = _uint(ch.id) if ch.id is not None else next_id
        next_id += 1
        if number is None:
            refuse(f"<channel id={ch.id!r}> is not an unsigned integer", ch.line)
            return None
        if not ch.has_mean:
            continue
        if ch.value is None and ch.size is None:
            refuse("<mean> has neither a value nor a size", ch.line)
            return None
        if ch.value is not None:
            try:
                scalars.add((number, float(ch.value)))
            except ValueError:
                refuse(f"<mean value={ch.value!r}> is not a number", ch.line)
                return None
        if ch.size is not None and ch.offset is not None:
            size, offset = _uint(ch.size), _uint(ch.offset)
            if size is None or offset is None:
                refuse(f"<mean offset={ch.offset!r} size={ch.size!r}> are not unsigned integers", ch.line)
                return None
            want = math.prod(blob_shape) * etype.itemsize
            if size != want:
                refuse(f"<mean> blob of {size} bytes; input {layer.name!r} needs {want} "
                       f"({list(blob_shape)} x {etype.name})", ch.line)
                return None
            if weights.size is None or offset + size > weights.size:
                refuse(f"<mean> bytes {offset}..{offset + size} lie outside the weights file", ch.line)
                return None
            blobs.add((number, size, offset))
    if scalars and blobs:
        refuse("mean values are given both as values and as blobs")
        return None
    found = scalars or blobs
    if not found:
        return None
    if len(found) != channels:
        refuse(f"{len(found)} mean values for the {channels} channels of input {layer.name!r}")
        return None
    if not etype.supported:
        return None  # a run of this input is refused for its type anyway
    if not etype.is_numeric:  # the subtraction is a Subtract on the input's type
        why = ("OpenVINO refuses a Subtract of booleans" if etype.name == "boolean" else
               "a storage-only type: nothing computes on it (OpenVINO's CPU plugin neither)")
        refuse(f"mean values cannot be subtracted from Parameter {layer.name!r} of type {etype.name}: {why}")
        return None
    if scalars:
        values = np.zeros(channels, np.float64)
        for number, value in scalars:
            if number >= channels:
                refuse(f"mean value for channel {number}, out of range for {channels} channels")
                return None
            values[number] = value
        return MeanSubtraction(layer.id, values.astype(etype.dtype).reshape(scalar_shape))
    parts: list[np.ndarray | None] = [None] * channels
    for number, _, offset in blobs:
        if number >= channels:
            refuse(f"mean blob for channel {number}, out of range for {channels} channels")
            return None
        parts[number] = weights.array(offset, blob_shape, etype)  # a view of the map: nothing is copied
    return MeanSubtraction(layer.id, None, tuple(parts), channel_axis)  # type: ignore[arg-type]


def _rank(op: Op | None) -> int | None:
    shape = getattr(op, "shape", None)
    return None if shape is None or shape.dims is None else len(shape.dims)


def _uint(text: str) -> int | None:
    t = text.strip()
    return int(t) if t.isascii() and t.isdigit() and len(t) <= 19 else None
