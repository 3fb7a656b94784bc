"""The shape check: per-op inference in topological order, compared with what
every port declares.  Collects every finding; never raises for user errors."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache

from ..base import dtypes
from ..base.errors import ERROR, NOTE, WARNING, Diagnostic, IRExecError
from ..base.shapes import PartialShape
from ..ir.declared import declared_shape, declared_text, shape_of_dims
from ..ir.dim_lines import dim_line, single_wrong_dim
from ..ir.records import Layer, Port
from ..model.binding import Model
from ..model.rewrites.decompression import uncovered
from ..model.variables import PAIRING_CODES
from ..ops.framework.base import TensorInfo
from ..ops.framework.body_checks import body_check_scope
from ..ops.io import Parameter1
from .inference_memo import InferenceMemo


def _fits_declared(inferred: PartialShape, port: Port) -> PartialShape | None:
    """The inferred shape refined by the declared dims, or None on conflict."""
    if not port.dims:
        # declared scalar-or-dynamic-rank: fine unless a known rank says otherwise
        return inferred if inferred.rank in (None, 0) else None
    declared = shape_of_dims(port.dims)
    # the shared declared shape when equal, so the consumer's check is an identity test
    return declared if inferred is declared or inferred == declared else inferred.intersect(declared)


@dataclass
class CheckResult:
    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    tensors: dict[tuple[int, int], TensorInfo] = field(default_factory=dict)
    layers: int = 0

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == ERROR]


def check_body(model: Model, parameters: Mapping[int, TensorInfo]) -> tuple[dict[tuple[int, int], TensorInfo], list[Diagnostic]]:
    """A sub-graph body checked on the tensors its op feeds its Parameters: every
    inferred tensor and the findings (a ``BodyServices.check``)."""
    result = check_model(model, parameters=parameters)
    return result.tensors, result.diagnostics


@body_check_scope  # one budget of sub-graph body checks for the whole document
def check_model(model: Model, input_shapes: dict[str, PartialShape] | None = None, *,
                parameters: Mapping[int, TensorInfo] | None = None, keep_tensors: bool = True) -> CheckResult:
    """Infer every layer's outputs and compare them with the declared ports.
    ``parameters`` (layer id -> tensor) stands for what Parameters declare: a
    sub-graph's body is checked on what its op feeds it.  Without
    ``keep_tensors``, a tensor is dropped once its last consumer is checked
    (``result.tensors`` ends empty): what a report needs is the findings."""
    result = CheckResult(model.path, list(model.diagnostics), layers=len(model.layers))
    if any(d.code == "cycle" for d in model.diagnostics):
        return result
    # layer id -> the layer that stands for its finding: itself, or the first
    # layer of a finding that stands for several (every Const of a missing .bin)
    broken = {d.layer_id: d.layer_id for d in model.diagnostics
              if d.severity == ERROR and d.layer_id is not None and d.code not in PAIRING_CODES}
    grouped: dict[int, str] = {}  # that first layer -> the finding's code
    for d in model.diagnostics:
        members = [o["layer_id"] for o in d.values.get("layers", ()) if o.get("layer_id") is not None]
        if d.severity == ERROR and len(members) > 1:
            broken.update((m, members[0]) for m in members)
            grouped[members[0]] = d.code
    pins = dict(input_shapes or {})
    failed: dict[int, int] = {}  # layer id -> the id of the layer whose own finding stopped it (its root)
    tensors = result.tensors
    out = result.diagnostics
    spellings: dict[tuple[int, int], frozenset[str]] = {}  # precisions a port may declare for a tensor

    layers, ops, producer = model.layers, model.ops, model.graph.producer  # hoisted: the loop runs once per layer
    consumers = model.graph.consumers
    unread: dict[tuple[int, int], int] | None = None if keep_tensors else {}  # consumers of a tensor not yet checked
    memo = InferenceMemo()
    for lid in model.graph.order:
        layer = layers[lid]
        op = ops[lid]
        inputs: list[TensorInfo] = []
        blocked_by: tuple[int, Port] | None = None
        for port in layer.inputs:
            src = producer.get((lid, port.index))
            if src is None:
                continue
            info = tensors.get(src)
            accepted = spellings.get(src)
            if unread is not None:
                left = unread.pop(src, len(consumers[src])) - 1
                if left:
                    unread[src] = left
                elif info is not None:  # its last consumer: what is needed of it is in the locals
                    del tensors[src]
                    spellings.pop(src, None)
            if info is None:
                if src[0] in failed and blocked_by is None:
                    blocked_by = (src[0], port)
                continue
            refined = _check_input_port(model, layer, port, info, out, accepted if accepted is not None else _only(info.etype.name))
            inputs.append(refined)
        if blocked_by is not None:
            src_layer = model.layers[blocked_by[0]]
            root = failed[blocked_by[0]]
            # the root lets a report fold a cascade into one note per failing layer
            values = {"root_layer_id": root, "root_layer_name": model.layers[root].name}
            if root in grouped:
                values["root_code"] = grouped[root]
            out.append(Diagnostic("skipped", f"not checked: input port {blocked_by[1].id} depends on layer "
                                  f'{src_layer.id} "{src_layer.name}", which failed', NOTE, **model.where(layer),
                                  values=values))
            failed[lid] = root
            continue
        if lid in broken or len(inputs) != len(layer.inputs):
            failed[lid] = broken.get(lid, lid)
            continue
        if op is None:
            for port in layer.outputs:  # an op irexec does not know: trust what it declares
                if unread is not None and (lid, port.index) not in consumers:
                    continue
                etype = port.precision or dtypes.get("undefined")
                tensors[(lid, port.index)] = TensorInfo(declared_shape(port), etype)
            continue
        try:
            inference = memo.inference(op, inputs)
            infos = op.fold(inputs, inference) if inputs else inference.outputs
        except IRExecError as e:
            out.extend(model.locate(e.diagnostics, layer))
            failed[lid] = lid
            continue
        out.extend(getattr(inference, "body_diagnostics", ()))  # a sub-graph op's bodies, checked on its inputs
        if parameters is not None and lid in parameters:
            infos = [parameters[lid]]
        if isinstance(op, Parameter1) and layer.name in pins:
            infos = [_pin(model, layer, infos[0], pins.pop(layer.name), out)]
        for port, info in zip(layer.outputs, infos):
            key = (lid, port.index)
            accepted = _accepted_types(info, layer, inputs)
            checked = _check_output_port(model, layer, port, info, out, accepted)
            if checked.etype is not info.etype:  # an unknown type taken from the declared precision
                accepted = _only(checked.etype.name)
            if unread is None or key in consumers:
                spellings[key] = accepted
                tensors[key] = checked
    for name in pins:
        out.append(Diagnostic("unknown-name", f"`input_shapes` names {name!r}, which is not a Parameter of this model",
                              ERROR, file=model.path))
    if parameters is None:
        out.extend(_decompression_notes(model))
    out.sort(key=lambda d: d.line or 0)
    if parameters is None:  # a whole model, not a body: errors that a foreign .bin causes become one
        from ..model.weights_check import fold_errors

        result.diagnostics = fold_errors(model, out)
    return result


def _decompression_notes(model: Model) -> list[Diagnostic]:
    """A weight decompression the rule leaves to the element types (docs/numerics.md): a note
    on the layer that reads it, as a run computes it otherwise than OpenVINO may."""
    found = []
    for u in uncovered(model):
        layer = model.layers[u.reader]
        port = layer.inputs[u.port] if u.port < len(layer.inputs) else None
        where = model.where(layer, port.id, "input", port.line) if port is not None else model.where(layer)
        found.append(Diagnostic("decompression-as-typed", u.why, NOTE, **where,
                                values={"source_layer_id": u.source, "source_layer_name": model.layers[u.source].name}))
    return found


def _pin(model: Model, layer: Layer, info: TensorInfo, pin: PartialShape, out: list[Diagnostic]) -> TensorInfo:
    merged = info.shape.intersect(pin)
    if merged is None:  # the words and the code of `irexec run --input-shape` (random_inputs.plan_inputs)
        from ..model.naming import parameter_label

        declared = info.shape
        if pin.rank != declared.rank:
            why = f"rank {pin.rank} instead of {declared.rank}"
        else:
            i, d, p = next((i, d, p) for i, (d, p) in enumerate(zip(declared.dims or (), pin.dims or ()))
                           if d.intersect(p) is None)
            why = f"dim {i} is {p}, not {d}" if d.is_static else f"dim {i} is {p}, outside the interval {d}"
        out.append(Diagnostic("input-shape-mismatch", f"`input_shapes` {layer.name}:{str(pin)[1:-1]} does not fit Parameter "
                              f"{parameter_label(layer)} declared {declared}: {why}", ERROR, **model.where(layer)))
        return info
    return TensorInfo(merged, info.etype)


def _accepted_types(info: TensorInfo, layer: Layer, inputs: list[TensorInfo]) -> frozenset[str]:
    """OpenVINO writes a weight-decompression Convert (rt_info "decompression")
    with the precision of its *compressed* input, so both spellings are right."""
    if "decompression" in layer.rt_info and inputs:
        return frozenset((info.etype.name, inputs[0].etype.name))
    return _only(info.etype.name)


@cache  # a few element types: one shared set each, not one per tensor
def _only(name: str) -> frozenset[str]:
    return frozenset((name,))


LEGACY_BODY_DIMS = "legacy-body-dims"


def mismatch_finding(model: Model) -> tuple[str, str, str]:
    """(code, severity, note) of a declared-dims conflict.  Inside a body of an
    IR v10 model it is a warning of its own: the old Model Optimizer wrote
    body dims OpenVINO never reads (a Loop body's Unsqueeze declared [3,1,2]
    but computing [1,1,2]), and OpenVINO runs such models.  Everywhere else it
    is the error ``shape-mismatch``.  See docs/declared-dims.md."""
    if model.legacy_body:
        return LEGACY_BODY_DIMS, WARNING, (" (a sub-graph body of an IR v10 model: OpenVINO ignores these dims, which the "
                                           "old Model Optimizer wrote; the inferred shape is used)")
    return "shape-mismatch", ERROR, ""


def _wrong_dim_line(model: Model, port: Port, shape: PartialShape) -> tuple[int, str]:
    """The line of the one wrong <dim> and words naming it, else the port's line."""
    k = single_wrong_dim(port.dims, shape)
    line = dim_line(model.doc.path, port.line, k) if k is not None and not model.legacy_body else None
    return (line, f" (dim {k})") if line is not None else (port.line, "")


def _check_output_port(model: Model, layer: Layer, port: Port, info: TensorInfo, out: list[Diagnostic],
                       accepted: frozenset[str]) -> TensorInfo:
    shape = info.shape
    refined = _fits_declared(shape, port)
    if refined is None:
        code, severity, note = mismatch_finding(model)
        line, which = _wrong_dim_line(model, port, shape)
        out.append(Diagnostic(code, f"declared {declared_text(port)} but inferred {shape}{which}{note}", severity,
                              **model.where(layer, port.id, "output", line)))
        refined = shape  # carry on with the inferred shape so one error does not cascade
    if port.precision is not None and port.precision.name not in accepted:
        if not info.known_type:  # not inferred (a body past its check budget): the declared type refines it
            return TensorInfo(refined, port.precision)
        out.append(Diagnostic("type-mismatch", f"declared precision {port.precision.precision} ({port.precision.name}) "
                              f"but inferred {info.etype.name}", ERROR, **model.where(layer, port.id, "output", port.line)))
    # the same shape: the op's own record serves (one fewer object per tensor)
    return info if refined is shape else info.with_shape(refined)


def _check_input_port(
    model: Model, layer: Layer, port: Port, info: TensorInfo, out: list[Diagnostic], accepted: frozenset[str]
) -> TensorInfo:
    if port.precision is not None and port.precision.name not in accepted:
        out.append(Diagnostic("type-mismatch", f"declared precision {port.precision.precision} but the connected tensor is "
                              f"{info.etype.name}", ERROR, **model.where(layer, port.id, "input", port.line)))
    if not port.dims:
        return info  # no dims: scalar or dynamic rank, nothing to hold against the producer
    declared = shape_of_dims(port.dims)
    shape = info.shape
    refined = shape if shape is declared or shape == declared else shape.intersect(declared)
    if refined is None:
        code, severity, note = mismatch_finding(model)
        line, which = _wrong_dim_line(model, port, shape)
        out.append(Diagnostic(code, f"declared {declared_text(port)} but the connected tensor is {info.shape}{which}{note}",
                              severity, **model.where(layer, port.id, "input", line)))
        return info
    if refined is shape or refined == shape:
        return info
    return info.with_shape(refined)
