"""TensorIterator-1, Loop-5 and If-8: ops whose bodies are graphs of their own.

A body is read from the layer's ``<body>`` (If: ``<then_body>``/``<else_body>``)
into a nested model built by the same functions as the main graph, so it is
checked like the main graph (its findings point at lines inside the body) and
run by the same executor.  ``<port_map>`` ties the op's ports to the body's
Parameters and Results; ``<back_edges>`` feed a Result to a Parameter of the
next iteration.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes
from ..errors import ERROR, WARNING, Diagnostic, ModelError, OpError
from ..shapes import DYNAMIC, Dim, PartialShape
from .base import BOOLEAN, INDEX, In, Inference, Op, TensorInfo, op_error
from .registry import register

if TYPE_CHECKING:
    from lxml import etree

    from ..graph import Graph
    from ..ir.weights import Weights
    from ..model import Model

# Bodies that feed back into themselves may change a merged input's shape;
# shape inference re-runs the body until the shapes settle, at most this often.
_SETTLE_ROUNDS = 4


@dataclass(frozen=True)
class BodyInput:
    """One ``<port_map><input>``: outer input ``index`` feeds body Parameter
    ``param``; sliced along ``axis`` when it has one; ``merged`` is the body
    Result a back edge feeds into the Parameter from the second iteration on."""

    index: int
    param: int
    axis: int | None = None
    start: int = 0
    end: int = -1
    stride: int = 1
    part_size: int = 1
    merged: int | None = None


@dataclass(frozen=True)
class BodyOutput:
    """One ``<port_map><output>``: body Result ``result`` gives outer output
    ``index``, its last value or, with ``axis``, every iteration's concatenated."""

    index: int
    result: int
    axis: int | None = None
    stride: int = 1
    part_size: int = 1


@dataclass
class Body:
    model: Model
    inputs: list[BodyInput] = field(default_factory=list)
    outputs: list[BodyOutput] = field(default_factory=list)
    current_iteration: int | None = None  # body Parameter fed the iteration number
    condition: int | None = None  # body Result deciding whether to go on

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.model.diagnostics if d.severity == ERROR]


class BodyInference(Inference):
    """An inference that also carries the findings of the bodies' checks."""

    def __init__(self, outputs: list[TensorInfo], plan: Any = None, body_diagnostics: Sequence[Diagnostic] = ()):
        super().__init__(outputs, plan)
        self.body_diagnostics = list(body_diagnostics)


# ------------------------------------------------------------ reading bodies

_BODY_TAGS = {"body": "port_map", "then_body": "then_port_map", "else_body": "else_port_map"}


def attach_bodies(path: str, graph: Graph, ops: dict[int, Op | None], weights: Weights,
                  elements: dict[int, etree._Element] | None = None, ir_version: int = 11) -> None:
    """Give every sub-graph op of a graph its bodies.  The main graph's layer
    elements are found by parsing the document again (only when it has such
    an op); a body's own sub-graph ops get theirs from the body's element."""
    wanting = [lid for lid, op in ops.items() if isinstance(op, SubgraphOp)]
    if not wanting:
        return
    if elements is None:
        from ..ir.reader import parse_xml

        section = parse_xml(path).getroot().find("layers")
        elements = _layer_elements(section)
    for lid in wanting:
        el = elements.get(lid)
        op = ops[lid]
        assert isinstance(op, SubgraphOp)
        op.bodies = [_read_body(path, el, tag, graph.layers[lid], weights, ir_version) for tag in op.body_tags]


def _layer_elements(section: etree._Element | None) -> dict[int, etree._Element]:
    found: dict[int, etree._Element] = {}
    if section is None:
        return found
    for el in section.iterchildren("layer"):
        raw = el.get("id", "")
        if raw.isascii() and raw.isdigit() and len(raw) <= 19:
            found.setdefault(int(raw), el)
    return found


def _read_body(path: str, el: etree._Element | None, tag: str, layer: Any, weights: Weights, ir_version: int = 11) -> Body:
    from ..graph import build_graph
    from ..ir.reader import IRDocument, _Collector, _read_edges, _read_layers
    from ..model import Model, _bind_op, _check_port_counts

    diag = _Collector(path)
    body_el = el.find(tag) if el is not None else None
    where = {"layer_id": layer.id, "layer_name": layer.name, "op": layer.display}
    if body_el is None:
        diag.add("missing-element", f"{layer.display} layer has no <{tag}>", layer.line, **where)
        doc = IRDocument(path, ir_version, tag, [], [], diag.items)
    else:
        doc = IRDocument(path, ir_version, tag, _read_layers(body_el, diag), _read_edges(body_el, diag), diag.items)
    diags = list(doc.diagnostics)
    graph, graph_diags = build_graph(doc)
    ops: dict[int, Op | None] = {lid: _bind_op(path, l, weights, diags) for lid, l in graph.layers.items()}
    if body_el is not None:
        attach_bodies(path, graph, ops, weights, _layer_elements(body_el.find("layers")), ir_version)
    diags.extend(graph_diags)
    _check_port_counts(path, graph, ops, diags)
    diags.sort(key=lambda d: d.line or 0)
    body = Body(Model(path, doc, weights, graph, ops, diags))
    body.model.legacy_body = ir_version == 10  # see checker.mismatch_finding
    map_el = el.find(_BODY_TAGS[tag]) if el is not None else None
    _read_port_map(body, map_el, el.find("back_edges") if el is not None and tag == "body" else None, layer, where)
    return body


def _int_attr(el: etree._Element, name: str, default: int | None, problems: list[str]) -> int | None:
    raw = el.get(name)
    if raw is None:
        if default is None:
            problems.append(f"<{el.tag}> at line {el.sourceline} has no {name}")
        return default
    text = raw.strip()
    if not (text.lstrip("-").isascii() and text.lstrip("-").isdigit() and len(text) <= 19):
        problems.append(f"<{el.tag}> at line {el.sourceline}: {name}={raw!r} is not an integer")
        return default
    return int(text)


def _read_port_map(body: Body, map_el: etree._Element | None, back_el: etree._Element | None, layer: Any,
                   where: dict[str, Any]) -> None:
    """Port map and back edges -> BodyInput/BodyOutput records; every problem
    becomes a ``bad-port-map`` finding of the body (so check reports it and a
    run refuses it)."""
    model = body.model
    problems: list[tuple[str, int | None]] = []
    line = map_el.sourceline if map_el is not None else layer.line
    if map_el is None:
        problems.append((f"{layer.display} layer has no port map", line))
        map_el_children: list[Any] = []
    else:
        map_el_children = list(map_el)
    merged: dict[int, int] = {}
    if back_el is not None:
        for edge in back_el.iterchildren("edge"):
            msgs: list[str] = []
            src, dst = _int_attr(edge, "from-layer", None, msgs), _int_attr(edge, "to-layer", None, msgs)
            if src is not None and dst is not None:
                if not _is(model, src, "Result") or not _is(model, dst, "Parameter"):
                    msgs.append(f"back edge {src} -> {dst} must lead from a body Result to a body Parameter")
                else:
                    merged[dst] = src
            problems.extend((m, edge.sourceline) for m in msgs)
    # OpenVINO's reader (XmlDeserializer::parse_input/output_description): the
    # entries are taken in the order of their external_port_id, the first of
    # each id wins; an input's id is the position of the layer input it reads,
    # while the outputs with an id >= 0 become the layer's outputs in the order
    # of their ids, whatever the ids are (If-8 spec Example 1 maps port 4 with
    # external_port_id="0")
    seen: dict[tuple[str, int], Any] = {}
    ignored: list[tuple[str, int | None]] = []
    outputs: list[tuple[int, BodyOutput, int]] = []
    for child in map_el_children:
        if child.tag not in ("input", "output"):
            continue
        msgs = []
        ext = _int_attr(child, "external_port_id", None, msgs)
        internal = _int_attr(child, "internal_layer_id", None, msgs)
        axis = _int_attr(child, "axis", -(1 << 62), msgs)
        start, end = _int_attr(child, "start", 0, msgs), _int_attr(child, "end", -1, msgs)
        stride, part = _int_attr(child, "stride", 1, msgs), _int_attr(child, "part_size", 1, msgs)
        purpose = child.get("purpose", "")
        if ext is None or internal is None:
            problems.extend((m, child.sourceline) for m in msgs)
            continue
        has_axis = axis != -(1 << 62)
        if has_axis and (stride == 0 or (part or 0) <= 0):
            msgs.append(f"stride={stride} and part_size={part}: the stride must be non-zero and the part size positive")
        first = seen.setdefault((child.tag, ext), child)
        if first is not child and (ext >= 0 or child.tag == "output"):
            # OpenVINO keeps the first entry of an id and drops this one without a word
            ignored.append((f"external_port_id={ext} is mapped twice (first at line {first.sourceline}): this entry is "
                            "ignored, as OpenVINO ignores it", child.sourceline))
            continue
        if child.tag == "input":
            if not _is(model, internal, "Parameter"):
                msgs.append(f"internal_layer_id={internal} is not a Parameter of the body")
            elif purpose == "current_iteration" or ext < 0:
                body.current_iteration = internal
            elif ext >= len(layer.inputs):
                msgs.append(f"external_port_id={ext} is not an input of the layer: it names the input's position, "
                            f"and the layer has {len(layer.inputs)} input(s)")
            else:
                body.inputs.append(BodyInput(ext, internal, axis if has_axis else None, start or 0,
                                             end if end is not None else -1, stride or 1, part or 1,
                                             merged.get(internal)))
        else:
            if not _is(model, internal, "Result"):
                msgs.append(f"internal_layer_id={internal} is not a Result of the body")
            else:
                if purpose == "execution_condition" or (ext < 0 and purpose == "" and layer.type.lower() == "loop"
                                                        and body.condition is None):
                    body.condition = internal
                if ext >= 0:
                    outputs.append((ext, BodyOutput(-1, internal, axis if has_axis else None, stride or 1, part or 1),
                                    child.sourceline))
        problems.extend((m, child.sourceline) for m in msgs)
    for index, (ext, out, at) in enumerate(sorted(outputs, key=lambda o: o[0])):
        if index >= len(layer.outputs):
            problems.append((f"external_port_id={ext} maps output number {index + 1} of the body, but the layer declares "
                             f"{len(layer.outputs)} output port(s)", at))
        else:
            body.outputs.append(BodyOutput(index, out.result, out.axis, out.stride, out.part_size))
    fed = {i.param for i in body.inputs}
    for dst in merged:
        if dst not in fed and dst != body.current_iteration:
            problems.append((f"back edge to body Parameter {dst}, which no input of the port map feeds", line))
    for msg, at in problems:
        model.diagnostics.append(Diagnostic("bad-port-map", msg, ERROR, file=model.path, line=at, **where))
    for msg, at in ignored:
        model.diagnostics.append(Diagnostic("ignored-port-map-entry", msg, WARNING, file=model.path, line=at, **where))


def _is(model: Model, lid: int, op_type: str) -> bool:
    layer = model.layers.get(lid)
    return layer is not None and layer.type.lower() == op_type.lower()


# ------------------------------------------------------------ shared machinery


def _num_slices(dim: Dim, bi: BodyInput) -> Dim:
    """Iterations a sliced input gives: [start, end] both included, negative
    values counted from the end (OpenVINO's rule)."""
    if not dim.is_static:
        return DYNAMIC
    n = dim.value
    start = bi.start + n if bi.start < 0 else bi.start
    end = bi.end + n if bi.end < 0 else bi.end
    return Dim.of((abs(end - start) + 1) // bi.part_size)


def _slice_begin(n: int, bi: BodyInput, i: int) -> int:
    start = bi.start + n if bi.start < 0 else bi.start
    if bi.stride > 0:
        return start + i * bi.stride
    return start - i * -bi.stride - bi.part_size + 1


def _with_dim(shape: PartialShape, axis: int, dim: Dim) -> PartialShape:
    if shape.dims is None or not -len(shape.dims) <= axis < len(shape.dims):
        return shape
    dims = list(shape.dims)
    dims[axis] = dim
    return PartialShape(tuple(dims))


def _hull(a: PartialShape, b: PartialShape) -> PartialShape:
    """A shape that holds both (what an output is when it may come from either)."""
    if a.dims is None or b.dims is None or len(a.dims) != len(b.dims):
        return PartialShape(None)
    dims = []
    for x, y in zip(a.dims, b.dims):
        hi = None if x.hi is None or y.hi is None else max(x.hi, y.hi)
        dims.append(Dim(min(x.lo, y.lo), hi))
    return PartialShape(tuple(dims))


def _result_infos(model: Model, tensors: dict, results: Sequence[int]) -> dict[int, TensorInfo | None]:
    out = {}
    for rid in results:
        src = model.graph.producer.get((rid, 0))
        out[rid] = tensors.get(src) if src is not None else None
    return out


def _check_body(body: Body, seeds: dict[int, TensorInfo]) -> tuple[dict[int, TensorInfo | None], list[Diagnostic]]:
    """Check the body on the tensors fed to its Parameters: each Result's
    tensor (None when it could not be inferred) and the findings."""
    from ..checker import check_model

    result = check_model(body.model, parameters=seeds)
    rids = [o.result for o in body.outputs] + [bi.merged for bi in body.inputs if bi.merged is not None]
    if body.condition is not None:
        rids.append(body.condition)
    return _result_infos(body.model, result.tensors, rids), result.diagnostics


def _param_info(body: Body, lid: int) -> TensorInfo:
    op = body.model.ops.get(lid)
    if op is None:
        return TensorInfo(PartialShape(None), dtypes.get("dynamic"))
    return TensorInfo(op.shape, op.element_type)  # type: ignore[attr-defined]


def _unknown() -> TensorInfo:
    return TensorInfo(PartialShape(None), dtypes.get("dynamic"))


def _refuse_broken_body(body: Body, what: str) -> None:
    errors = body.errors
    if errors:
        raise ModelError(errors)


@dataclass(frozen=True)
class IterPlan:
    iterations: int | None  # None: decided while running (Loop)


class SubgraphOp(Op):
    """An op with bodies; ``attach_bodies`` sets them after the layer is read."""

    family = "subgraph"
    body_tags: tuple[str, ...] = ("body",)
    bodies: list[Body]

    def __init__(self, *args: Any, **kw: Any):
        super().__init__(*args, **kw)
        self.bodies = []

    def num_outputs(self, n_inputs: int) -> int:
        if self.layer is not None:
            return len(self.layer.outputs)  # the port map says which body Result gives each
        return max((o.index + 1 for b in self.bodies for o in b.outputs), default=0)

    def fold(self, inputs: Sequence[TensorInfo], inference: Inference) -> list[TensorInfo]:
        return inference.outputs  # a body is never run to fold a constant

    def _body(self, k: int = 0) -> Body:
        if k >= len(self.bodies):
            raise OpError(f"{self.display()} has no body", code="bad-port-map")
        return self.bodies[k]

    # ---- iterating ops (TensorIterator, Loop)
    def _iterate_shapes(self, body: Body, inputs: Sequence[TensorInfo], iterations: Dim,
                        extra: dict[int, TensorInfo]) -> BodyInference:
        seeds = dict(extra)
        for bi in body.inputs:
            info = inputs[bi.index]
            if bi.axis is not None:
                info = TensorInfo(_with_dim(info.shape, bi.axis, Dim.of(bi.part_size)), info.etype)
            else:
                info = TensorInfo(info.shape, info.etype)  # its value is not the body's business
            seeds[bi.param] = info
        diags: list[Diagnostic] = []
        for _ in range(_SETTLE_ROUNDS):
            found, diags = _check_body(body, seeds)
            changed = False
            for bi in body.inputs:
                if bi.merged is None:
                    continue
                res = found.get(bi.merged)
                cur = seeds[bi.param]
                if res is None:
                    continue
                if res.shape != cur.shape:
                    seeds[bi.param] = TensorInfo(_hull(cur.shape, res.shape), cur.etype)
                    changed = seeds[bi.param].shape != cur.shape
            if not changed:
                break
        outs: list[TensorInfo] = [_unknown()] * self.num_outputs(len(inputs))
        for bo in body.outputs:
            res = found.get(bo.result)
            if res is None:
                continue
            if bo.axis is None:
                shape = res.shape
                if iterations.lo == 0:  # no iteration: a merged input's initial value comes out
                    for bi in body.inputs:
                        if bi.merged == bo.result:
                            shape = _hull(shape, inputs[bi.index].shape)
            else:
                dims = res.shape.dims
                if dims is not None and not -len(dims) <= bo.axis < len(dims):
                    raise op_error(f"port map axis {bo.axis} of output {bo.index} is out of range for the body's "
                                   f"{res.shape}", "axis-out-of-range")
                if dims is not None and dims[bo.axis].is_static and dims[bo.axis].value != bo.part_size:
                    raise op_error(f"output {bo.index}: the body gives {res.shape}, {dims[bo.axis]} along axis "
                                   f"{bo.axis}, but the port map says part_size={bo.part_size}", "bad-port-map")
                shape = _with_dim(res.shape, bo.axis, iterations * bo.part_size)
            outs[bo.index] = TensorInfo(shape, res.etype)
        return BodyInference(outs, None, diags)

    def _run_iterations(self, body: Body, arrays: Sequence[np.ndarray], iterations: int | None,
                        trip: int | None = None, cond_in: bool = True) -> list[np.ndarray]:
        from ..execute import run_bound

        _refuse_broken_body(body, "body")
        model = body.model
        feeds: dict[int, np.ndarray] = {}
        sliced = [bi for bi in body.inputs if bi.axis is not None]
        for bi in body.inputs:
            if bi.axis is None:
                feeds[bi.param] = arrays[bi.index]
        ci_op = model.ops.get(body.current_iteration) if body.current_iteration is not None else None
        ci_dtype = ci_op.element_type.dtype if ci_op is not None else np.int64  # type: ignore[attr-defined]
        ci_shape = ci_op.shape.to_tuple() if ci_op is not None and ci_op.shape.is_static else ()  # type: ignore[attr-defined]
        targets = sorted({o.result for o in body.outputs} | {bi.merged for bi in body.inputs if bi.merged is not None}
                         | ({body.condition} if body.condition is not None else set()))
        collected: dict[int, list[np.ndarray]] = {o.result: [] for o in body.outputs if o.axis is not None}
        last: dict[int, np.ndarray] = {}
        limit = iterations if iterations is not None else (trip if trip is not None and trip >= 0 else None)
        for bi in sliced:  # a Loop also ends when a sliced input has no slice left
            a = arrays[bi.index]
            n = _num_slices(Dim.of(a.shape[bi.axis % a.ndim]), bi).value  # type: ignore[operator]
            limit = n if limit is None else min(limit, n)
        i = 0
        go_on = cond_in
        while go_on and (limit is None or i < limit):
            for bi in sliced:
                a = arrays[bi.index]
                axis = bi.axis % a.ndim  # type: ignore[operator]
                begin = _slice_begin(a.shape[axis], bi, i)
                feeds[bi.param] = np.take(a, np.arange(begin, begin + bi.part_size), axis=axis)
            if body.current_iteration is not None and all(bi.param != body.current_iteration for bi in body.inputs):
                feeds[body.current_iteration] = np.full(ci_shape, i, dtype=ci_dtype)
            values = run_bound(model, feeds, targets)
            for rid, arrs in collected.items():
                arrs.append(values[rid])
            last = values
            for bi in body.inputs:
                if bi.merged is not None:
                    feeds[bi.param] = values[bi.merged]
            if body.condition is not None:
                go_on = bool(np.asarray(values[body.condition]).reshape(-1)[0])
            i += 1
        outs: list[np.ndarray | None] = [None] * self.num_outputs(len(arrays))
        for bo in body.outputs:
            if bo.axis is not None:
                parts = collected[bo.result]
                if bo.stride < 0:
                    parts = parts[::-1]
                if parts:
                    outs[bo.index] = np.concatenate(parts, axis=bo.axis)
                else:
                    outs[bo.index] = self._empty_concat(body, bo, feeds)
            elif bo.result in last:
                outs[bo.index] = last[bo.result]
            else:  # no iteration ran: a merged input's initial value, else zeros of the declared shape
                init = next((feeds[bi.param] for bi in body.inputs if bi.merged == bo.result), None)
                outs[bo.index] = init if init is not None else self._empty_concat(body, bo, feeds)
        return outs  # type: ignore[return-value]

    def _empty_concat(self, body: Body, bo: BodyOutput, feeds: dict[int, np.ndarray]) -> np.ndarray:
        """What a concatenated output is after zero iterations: the body Result's
        shape with 0 along the axis (learnt from the body's inference)."""
        seeds = {lid: TensorInfo(PartialShape.static(a.shape), dtypes.from_dtype(a.dtype) or dtypes.get("dynamic"))
                 for lid, a in feeds.items()}
        found, _ = _check_body(body, seeds)
        res = found.get(bo.result)
        if res is None or res.shape.dims is None or not res.known_type:
            raise op_error("the loop ran no iteration and the shape of its concatenated output is unknown", "bad-shape")
        dims = [d.lo if d.is_static else 0 for d in res.shape.dims]
        if bo.axis is not None:
            dims[bo.axis] = 0
        return np.zeros(dims, dtype=res.etype.dtype)


@register
class TensorIterator1(SubgraphOp):
    type, version, since_opset = "TensorIterator", 1, 1
    summary = "runs its body once per slice of its sliced inputs; back edges carry values between iterations"
    inputs = (In("inputs", optional=True, variadic=True),)

    def _iterations(self, body: Body, inputs: Sequence[TensorInfo]) -> Dim:
        n: Dim | None = None
        for bi in body.inputs:
            if bi.axis is None:
                continue
            shape = inputs[bi.index].shape
            if shape.dims is None:
                continue
            if not -len(shape.dims) <= bi.axis < len(shape.dims):
                raise op_error(f"port map axis {bi.axis} is out of range for input shape {shape}", "axis-out-of-range", bi.index)
            k = _num_slices(shape.dims[bi.axis], bi)
            if n is not None and n.is_static and k.is_static and n.value != k.value:
                raise op_error(f"sliced inputs give different iteration counts ({n} and {k})", "incompatible-inputs", bi.index)
            n = k if n is None or not n.is_static else n
        return n if n is not None else Dim.of(1)

    def infer(self, *inputs: TensorInfo) -> Inference:
        body = self._body()
        n = self._iterations(body, inputs)
        inference = self._iterate_shapes(body, inputs, n, {})
        inference.plan = IterPlan(n.value if n.is_static else None)
        return inference

    def compute(self, plan: IterPlan, *arrays: np.ndarray) -> list[np.ndarray]:
        return self._run_iterations(self._body(), arrays, plan.iterations)


@register
class Loop5(SubgraphOp):
    type, version, since_opset = "Loop", 5, 5
    summary = "runs its body while the condition holds, up to the trip count (-1: no limit)"
    inputs = (In("trip_count", INDEX, rank=(0, 1), value=True), In("execution_condition", BOOLEAN, rank=(0, 1), value=True),
              In("inputs", optional=True, variadic=True))

    @classmethod
    def input_range(cls) -> tuple[int, int | None]:
        return 2, None

    def _iterations(self, body: Body, trip: TensorInfo, cond: TensorInfo) -> Dim:
        t, c = trip.value(), cond.value()
        if c is not None and np.asarray(c).size and not bool(np.asarray(c).reshape(-1)[0]):
            return Dim.of(0)
        if t is None or not np.asarray(t).size:
            return DYNAMIC
        n = int(np.asarray(t).reshape(-1)[0])
        if c is None or n < 0:
            return DYNAMIC if n < 0 else Dim(0, n)
        if body.condition is None:
            return Dim.of(n)
        src = body.model.graph.producer.get((body.condition, 0))
        op = body.model.ops.get(src[0]) if src is not None else None
        from .io import Const1

        if isinstance(op, Const1):  # a constant body condition: all trip-count iterations, or just one
            v = op.infer()[0].value()
            if v is not None and np.asarray(v).size:
                return Dim.of(n if bool(np.asarray(v).reshape(-1)[0]) else min(n, 1))
        return Dim(min(n, 1), n)

    def infer(self, trip: TensorInfo, cond: TensorInfo, *inputs: TensorInfo) -> Inference:
        for info, what, port in ((trip, "trip_count", 0), (cond, "execution_condition", 1)):
            if info.shape.dims is not None and info.shape.max_elements() not in (None, 1) and info.shape.is_static:
                raise op_error(f"{what} must hold one value, got shape {info.shape}", "bad-input-rank", port)
        body = self._body()
        n = self._iterations(body, trip, cond)
        extra = {}
        if body.current_iteration is not None and all(bi.param != body.current_iteration for bi in body.inputs):
            extra[body.current_iteration] = _param_info(body, body.current_iteration)
        everything = (trip, cond, *inputs)
        inference = self._iterate_shapes(body, everything, n, extra)
        inference.plan = IterPlan(None)
        return inference

    def compute(self, plan: IterPlan, trip: np.ndarray, cond: np.ndarray, *arrays: np.ndarray) -> list[np.ndarray]:
        t = int(np.asarray(trip).reshape(-1)[0])
        c = bool(np.asarray(cond).reshape(-1)[0])
        return self._run_iterations(self._body(), (trip, cond, *arrays), None, t, c)


@register
class If8(SubgraphOp):
    type, version, since_opset = "If", 8, 8
    summary = "runs then_body or else_body as the condition says"
    body_tags = ("then_body", "else_body")
    inputs = (In("cond", BOOLEAN, rank=(0, 1), value=True), In("inputs", optional=True, variadic=True))

    def _branch(self, body: Body, inputs: Sequence[TensorInfo]) -> tuple[list[TensorInfo | None], list[Diagnostic]]:
        seeds = {bi.param: TensorInfo(inputs[bi.index].shape, inputs[bi.index].etype) for bi in body.inputs}
        found, diags = _check_body(body, seeds)
        outs: list[TensorInfo | None] = [None] * self.num_outputs(len(inputs))
        for bo in body.outputs:
            if bo.index < len(outs):
                outs[bo.index] = found.get(bo.result)
        return outs, diags

    def infer(self, cond: TensorInfo, *inputs: TensorInfo) -> Inference:
        if cond.shape.is_static and cond.shape.max_elements() != 1:
            raise op_error(f"cond must hold one value, got shape {cond.shape}", "bad-input-rank", 0)
        everything = (cond, *inputs)
        then_outs, then_diags = self._branch(self._body(0), everything)
        else_outs, else_diags = self._branch(self._body(1), everything)
        c = cond.value()
        taken = None if c is None or not np.asarray(c).size else bool(np.asarray(c).reshape(-1)[0])
        outs = []
        for k, (t, e) in enumerate(zip(then_outs, else_outs)):
            if taken is True or (taken is None and e is None):
                pick = t
            elif taken is False or t is None:
                pick = e
            else:
                if t.known_type and e.known_type and t.etype is not e.etype:
                    raise op_error(f"output {k}: then_body gives {t.etype.name}, else_body {e.etype.name}", "incompatible-inputs")
                pick = TensorInfo(t.shape if t.shape == e.shape else _hull(t.shape, e.shape), t.etype)
            outs.append(pick if pick is not None else _unknown())
        return BodyInference(outs, None, then_diags + else_diags)

    def compute(self, plan: Any, cond: np.ndarray, *arrays: np.ndarray) -> list[np.ndarray]:
        from ..execute import run_bound

        body = self._body(0 if bool(np.asarray(cond).reshape(-1)[0]) else 1)
        _refuse_broken_body(body, "body")
        everything = (cond, *arrays)
        feeds = {bi.param: everything[bi.index] for bi in body.inputs}
        values = run_bound(body.model, feeds, sorted({o.result for o in body.outputs}))
        outs: list[np.ndarray | None] = [None] * self.num_outputs(len(everything))
        for bo in body.outputs:
            outs[bo.index] = values[bo.result]
        if any(o is None for o in outs):
            raise op_error("the branch taken gives no value for some outputs of the layer", "bad-port-map")
        return outs  # type: ignore[return-value]
