"""Which compared layer is where the error starts.

A layer beyond its stated accuracy is the **origin** of an error when its own
computation is: re-run by the reference on the other side's input tensors
(``LayerResult.local``), its result is still beyond.  When it cannot be re-run
(a sub-graph, a variable, an input tensor the other side did not give), it is
an origin when every input is compared and within its own stated accuracy.  Any
other layer beyond its accuracy only carries what reached it: **inherited**;
"beyond" when an input was not compared (bisection exposes a few layers).
A beyond layer whose relative L2 error is at least ``AMPLIFY`` times the largest
of its inputs that are beyond theirs is flagged as amplifying (a subtraction that cancels, a
division by a small value, an exponent).

An origin the other side computed in a lower precision than the reference's is a
**precision** origin when re-run at that precision (``LayerResult.emulated``,
emulate.py) it is within; one that cannot be re-run is a precision origin too (a
ReadValue reading an f16 or u8 KV cache: its precision explains a departure no re-run
can check).  The other origins are **kernel** origins.  A kernel origin whose compared
consumers are all within their accuracy is **masked**: its departure reaches no output."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .precision import lower_than
from .report import INHERITED, MASKED, MATCH, ORIGIN, PRECISION, UNRESOLVED, LayerResult

AMPLIFY = 10.0


def classify(layers: Iterable[LayerResult]) -> None:
    """Set ``status`` and ``amplification`` of every layer (in topological order)."""
    ordered = sorted(layers, key=lambda r: (r.index, r.port))
    by_name: dict[str, list[LayerResult]] = {}
    for r in ordered:
        by_name.setdefault(r.name, []).append(r)
    for r in ordered:
        inputs = [x for name in r.inputs for x in by_name.get(name, ())]
        r.amplification = None
        if r.figures.within:
            r.status = MATCH
            continue
        if r.local is not None:
            r.status = INHERITED if r.local.within else ORIGIN
        elif any(name not in by_name for name in r.inputs):
            r.status = UNRESOLVED
        else:
            r.status = ORIGIN if all(x.figures.within for x in inputs) else INHERITED
        if r.status == ORIGIN and _explained(r):
            r.status = PRECISION
        worst_in = max((x.figures.rel_l2 for x in inputs if not x.figures.within), default=0.0)
        if worst_in > 0 and r.figures.rel_l2 >= AMPLIFY * worst_in:
            r.amplification = r.figures.rel_l2 / worst_in
    consumers: dict[str, list[LayerResult]] = {}
    for r in ordered:
        for name in set(r.inputs):
            consumers.setdefault(name, []).append(r)
    for r in ordered:
        after = consumers.get(r.name, [])
        if r.status == ORIGIN and after and all(x.figures.within for x in after):
            r.status = MASKED


def _explained(r: LayerResult) -> bool:
    """A departure its runtime precision explains: within the re-run at that precision, or
    not re-runnable at all while computed in a lower precision than the reference's."""
    if r.emulated is not None:
        return r.emulated.within
    precision = r.fusion.precision if r.fusion is not None else ""
    if r.local is None and r.dtype in np.sctypeDict and lower_than(precision, np.dtype(r.dtype)):
        r.precision = precision
        return True
    return False


def is_kernel_origin(r: LayerResult) -> bool:
    """Whether one result, as it stands, departs beyond what its precision explains by its own computation."""
    if r.figures.within or r.local is None or r.local.within:
        return False
    return not _explained(r)


__all__ = ["AMPLIFY", "classify", "is_kernel_origin"]
