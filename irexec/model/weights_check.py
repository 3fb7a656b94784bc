"""A .bin that is not the model's own but large enough for every Const (another,
larger model's weights) gives no out-of-bounds finding: the Consts read garbage,
and shape inference then fails far away (an axis of -1501159218, a Reshape to
[2768781400674382240, ...]).  When a check or a run fails on such a model and the
file does not look like the model's (its size is not the extent of the Consts,
or the integer Consts that say shapes and axes hold absurd values), the errors
are folded into one that suspects the .bin and names --weights."""

from __future__ import annotations

import numpy as np

from ..base.errors import ERROR, Diagnostic
from ..ops.io import Const1
from .binding import Model

ABSURD = 1 << 40  # no shape, axis or index of a real model is this large
_SHOWN = 3
# Errors a Const's garbage value causes downstream; a file that cannot be read, a
# missing or short .bin and the like keep their own findings.
VALUE_CODES = frozenset({"axis-out-of-range", "bad-value", "shape-too-large", "incompatible-inputs", "shape-mismatch",
                         "type-mismatch", "memory-limit", "out-of-range", "bad-shape"})


def _consts(model: Model) -> list[Const1]:
    return [op for op in model.ops.values() if isinstance(op, Const1)]


def _end(layer) -> int:
    try:
        return int(layer.data.get("offset", 0)) + int(layer.data.get("size", 0))
    except ValueError:
        return 0


def implausible(model: Model) -> str:
    """Why the weights do not look like this model's, or ""."""
    size, consts = model.weights.size, _consts(model)
    if not consts or size is None or any(l.bodies for l in model.layers.values()):
        return ""  # a sub-graph's Consts read the same file: the extent is not known here
    extent = max(_end(l) for l in model.layers.values() if l.type == "Const")  # bound or not
    if size <= extent:
        return ""
    reasons = [f"it holds {size} bytes but the model's Consts end at byte {extent}"]
    absurd = []
    for op in consts:
        if op.size > 64 or op.offset + op.size > size:
            continue
        try:
            value = np.asarray(op.run()[0])
        except Exception:  # noqa: BLE001 - a Const that cannot be read says nothing more
            continue
        if value.dtype.kind in "iu" and value.size and np.abs(value.astype(np.float64)).max() >= ABSURD:
            absurd.append(op)
    if absurd:
        reasons.append(f"{len(absurd)} integer Const{'s' if len(absurd) != 1 else ''} that give shapes or axes hold "
                       f"values of 2**40 or more")
    return " and ".join(reasons)


def fold_errors(model: Model, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """The errors as one ``weights-mismatch`` when the .bin looks foreign, else unchanged."""
    errors = [d for d in diagnostics if d.severity == ERROR]
    if not errors or not model.weights.path or any(d.code not in VALUE_CODES for d in errors):
        return diagnostics
    why = implausible(model)
    if not why:
        return diagnostics
    first = ", ".join(f"{d.code} at line {d.line}" if d.line else d.code for d in errors[:_SHOWN])
    first += ", ..." if len(errors) > _SHOWN else ""
    first += f"; the first: {errors[0].subject + ': ' if errors[0].subject else ''}{errors[0].message}"
    given = " (the one `weights` names is not)" if model.weights.explicit else ""
    n = "the error" if len(errors) == 1 else f"the {len(errors)} errors"
    message = (f"the weights file {model.weights.path} does not look like this model's: {why}. Another model's "
               f".bin? give this model's own with `weights=FILE.bin`{given}; {n} its values cause "
               f"{'is' if len(errors) == 1 else 'are'} not reported apart ({first})")
    folded = Diagnostic("weights-mismatch", message, ERROR, file=model.path,
                        values={"errors": [d.to_dict() for d in errors], "count": len(errors)})
    # the skipped notes wait on layers whose errors are folded here
    return [folded] + [d for d in diagnostics if d.severity != ERROR and d.code != "skipped"]
