"""The variables of a stateful model: which ReadValue and Assign layers share
each ``variable_id``, what the variable's shape and type are, and the
pairing rule OpenVINO holds a model to (every variable is read by exactly one
ReadValue and written by at most one Assign; one that is never written is a
warning, since OpenVINO reads and compiles such a model)."""

from __future__ import annotations

from ..base import dtypes
from ..base.errors import ERROR, WARNING, Diagnostic
from ..base.shapes import DYNAMIC, Dim, PartialShape
from ..ir.records import Layer
from ..ops.framework.base import Op
from ..ops.state import AssignOp, ReadValue3, ReadValue6, StateOp, Variable
from .graph import Graph

# A break of the pairing is the model's, not the layer's: the layer itself is still checked.
PAIRING_CODES = frozenset({"variable-without-assign", "variable-without-read-value", "variable-read-twice",
                           "variable-assigned-twice"})


def link(path: str, graph: Graph, ops: dict[int, Op | None], diags: list[Diagnostic]) -> dict[str, Variable]:
    """Give every ReadValue and Assign op its variable; report each break of
    the pairing at its layer.  Returns the variables by id, in document order."""
    readers: dict[str, list[int]] = {}
    writers: dict[str, list[int]] = {}
    for lid in sorted(graph.layers, key=lambda l: graph.layers[l].index):
        op = ops.get(lid)
        if isinstance(op, StateOp):
            (writers if isinstance(op, AssignOp) else readers).setdefault(op.variable_id, []).append(lid)
    variables: dict[str, Variable] = {}

    def add(code: str, message: str, lid: int, severity: str = ERROR) -> None:
        layer = graph.layers[lid]
        diags.append(Diagnostic(code, message, severity, path, layer.line, lid, layer.name, layer.display))

    for vid, lids in readers.items():
        first = graph.layers[lids[0]]
        var = variables[vid] = _variable(vid, ops[lids[0]], first)  # type: ignore[arg-type]
        for lid in lids:
            ops[lid].variable = var  # type: ignore[union-attr]
        for lid in lids[1:]:
            add(code="variable-read-twice", message=f"variable {vid!r} is already read by ReadValue layer {first.id} "
                f"{first.name!r} at line {first.line}; each variable has exactly one ReadValue", lid=lid)
        if vid not in writers:
            # OpenVINO reads and compiles such a model (its CPU plugin refuses it only when
            # inferring): a warning, an error with check --strict; a run reads the initial value
            add(code="variable-without-assign", message=f"no Assign writes variable {vid!r}: every run reads its initial "
                "value (OpenVINO compiles such a model; its CPU plugin refuses to infer it)", lid=lids[0], severity=WARNING)
    for vid, lids in writers.items():
        written = variables.get(vid)
        for lid in lids:
            ops[lid].variable = written  # type: ignore[union-attr]
        if written is None:
            add(code="variable-without-read-value", message=f"no ReadValue reads variable {vid!r}; each Assign needs exactly one "
                "ReadValue of the same variable_id", lid=lids[0])
        first = graph.layers[lids[0]]
        for lid in lids[1:]:
            add(code="variable-assigned-twice", message=f"variable {vid!r} is already written by Assign layer {first.id} "
                f"{first.name!r} at line {first.line}; each variable has exactly one Assign", lid=lid)
    return variables


def _variable(vid: str, op: ReadValue3 | ReadValue6, layer: Layer) -> Variable:
    if isinstance(op, ReadValue6):
        return Variable(vid, op.variable_shape, op.variable_etype, layer.line, bool(layer.inputs))
    # ReadValue-3: the variable is shaped and typed like its initialising input, as the file declares it
    port = layer.inputs[0] if layer.inputs else None
    if port is None or not port.dims:  # no <dim>: a scalar or a dynamic rank
        shape = PartialShape(None)
    else:
        shape = PartialShape(tuple(DYNAMIC if d < 0 else Dim(d, d) for d in port.dims))
    return Variable(vid, shape, port.precision if port is not None and port.precision else dtypes.get("dynamic"), layer.line, True)


__all__ = ["PAIRING_CODES", "Variable", "link"]
