"""Loading a model: read the document, open its weights, bind an op to every
layer (``binding.Model``), and give sub-graph ops the engines' body services."""

from __future__ import annotations

import os
from dataclasses import replace

from .. import ops as _ops  # noqa: F401  (the op package; its modules load as the registry is asked for their types)
from ..base import limits
from ..base.errors import ERROR, Diagnostic, IRExecError, ModelError
from ..base.shapes import PartialShape, format_dims
from ..checker.model_checker import check_body
from ..executor.engine import run_bound
from ..ir.reader import read_document
from ..ir.weights import Weights
from ..model.binding import BLOCKS_RUN, Model, bind_model
from ..model.preprocess import resolve as resolve_pre_process
from ..model.v10_names import collisions as v10_collisions
from ..model.variables import link as link_variables
from ..ops.framework.body import BodyServices
from ..ops.io import Const1, Parameter1
from ..system import files

# How a sub-graph op checks and runs its bodies: the engines' own entry points.
BODY_SERVICES = BodyServices(check=check_body, run=run_bound)


def _fold_weights_findings(diags: list[Diagnostic], weights: Weights, explicit: bool) -> list[Diagnostic]:
    """A missing or foreign .bin fails every Const that reads it: one finding
    that says what to do, at the first Const, instead of one per Const.  Its
    ``values["layers"]`` keeps every Const, so each still fails the check."""
    out: list[Diagnostic] = []
    groups: dict[str, list[Diagnostic]] = {}
    for d in diags:
        if d.code in ("missing-weights", "weights-out-of-bounds") and d.layer_id is not None:
            if d.code not in groups:
                out.append(d)  # the group's place
            groups.setdefault(d.code, []).append(d)
        else:
            out.append(d)
    if not groups:
        return diags
    where = weights.path or "(none)"
    for code, members in groups.items():
        first = members[0]
        lines = ", ".join(str(d.line) for d in members[:3] if d.line) + (", ..." if len(members) > 3 else "")
        consts = f"{len(members)} Const layer{'s' if len(members) > 1 else ''} (line{'s' if len(members) > 1 else ''} {lines})"
        if len(members) == 1:  # its own words, and the fix
            fix = ("give the model's .bin with `weights=FILE.bin`" if code == "missing-weights" else
                   "a truncated file, or another model's .bin? give this model's own" +
                   (" (`weights` names another file)" if explicit else " with `weights=FILE.bin`"))
            message = f"{first.message}: {fix}"
        elif code == "missing-weights":
            beside = "" if explicit else ", the default beside the model,"
            message = (f"the weights file {where}{beside} does not exist, and {consts} read from it: "
                       f"give the model's .bin with `weights=FILE.bin`")
        else:
            need = max(int(d.values.get("end", 0)) for d in members)
            message = (f"the weights file {where} ({weights.size} bytes) does not belong to this model: "
                       f"{consts} reach past its end, up to byte {need}; give this model's own .bin"
                       f"{' (`weights` names another file)' if explicit else ' with `weights=FILE.bin`'}")
        layers = [{"line": d.line, "layer_id": d.layer_id, "layer_name": d.layer_name} for d in members]
        out[out.index(first)] = replace(first, message=message, layer_id=None if len(members) > 1 else first.layer_id,
                                        layer_name=None if len(members) > 1 else first.layer_name,
                                        op=None if len(members) > 1 else first.op,
                                        values=dict(first.values, count=len(members), layers=layers))
    return out


def default_weights_path(xml_path: str) -> str:
    root, _ = os.path.splitext(xml_path)
    return root + ".bin"


def read_model(path: str, weights: str | None = None, *, follow_symlinks: bool | None = None) -> Model:
    """Read and structurally validate a model, collecting every finding.

    Raises ModelError only when the XML cannot be read at all; everything
    else is in ``model.diagnostics``.  The XML and the weights must be regular
    files, and a symbolic link may not lead out of the folder it is named in
    unless ``follow_symlinks`` (default: $IREXEC_FOLLOW_SYMLINKS) allows it.
    """
    path = os.fspath(path)
    files.check_readable(path, "model file", follow_symlinks)
    wpath = os.fspath(weights) if weights is not None else default_weights_path(path)
    files.check_readable(wpath, "weights file", follow_symlinks)
    doc = read_document(path)
    if weights is not None and not os.path.isfile(weights):
        raise ModelError(f"weights file {weights} cannot be opened", code="missing-weights", file=path)
    w = Weights(wpath, explicit=weights is not None)
    model = bind_model(path, doc, w, BODY_SERVICES)
    diags = _fold_weights_findings(model.diagnostics, w, explicit=weights is not None)
    model.variables = link_variables(path, model.graph, model.ops, diags)
    model.pre_process = resolve_pre_process(path, doc.pre_process, model.graph, model.ops, w, diags)
    model.diagnostics = diags
    if doc.ir_version == 10:
        diags.extend(v10_collisions(model))
    diags.sort(key=lambda d: (d.line or 0))
    return model


def load(path: str, weights: str | None = None, max_memory: int | None = None, *,
         follow_symlinks: bool | None = None) -> Model:
    """Read a model for execution: any error raises ModelError.  A layer irexec
    cannot run is refused by the run that needs it (see ``execute.run_model``).

    ``max_memory`` (bytes; default: see ``limits.default_max_memory``) also refuses
    a Const or static Parameter whose declared shape alone exceeds it."""
    model = read_model(path, weights, follow_symlinks=follow_symlinks)
    blocking = [d for d in model.diagnostics if d.severity == ERROR]
    if blocking:
        raise ModelError(blocking)
    too_big = _over_memory_limit(model, limits.resolve(max_memory))
    if too_big:
        raise ModelError(too_big)
    return model


def _over_memory_limit(model: Model, limit: int) -> list[Diagnostic]:
    found = []
    for lid, op in model.ops.items():
        layer = model.layers[lid]
        if not isinstance(op, (Const1, Parameter1)):
            continue
        shape = op.shape
        if isinstance(shape, PartialShape):
            if not shape.is_static:
                continue  # inputs of a dynamic shape are checked when they arrive
            shape = shape.to_tuple()
        held = op.held_nbytes if isinstance(op, Const1) else limits.nbytes(shape, op.element_type.itemsize)
        why = limits.over_limit(held, limit)
        if why:
            dims = format_dims(shape)
            if isinstance(op, Const1) and op.element_type.is_string:
                dims += f" of strings with {op.string_chars()} bytes of characters"
            found.append(Diagnostic("memory-limit", f"declared shape {dims} {why}", ERROR,
                                    **model.where(layer, layer.outputs[0].id if layer.outputs else None, "output")))
    return found


__all__ = ["BLOCKS_RUN", "Model", "read_model", "load", "IRExecError"]
