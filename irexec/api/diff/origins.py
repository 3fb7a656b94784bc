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
division by a small value, an exponent)."""

from __future__ import annotations

from collections.abc import Iterable

from .report import INHERITED, MATCH, ORIGIN, UNRESOLVED, LayerResult

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
        worst_in = max((x.figures.rel_l2 for x in inputs if not x.figures.within), default=0.0)
        if worst_in > 0 and r.figures.rel_l2 >= AMPLIFY * worst_in:
            r.amplification = r.figures.rel_l2 / worst_in


__all__ = ["AMPLIFY", "classify"]
