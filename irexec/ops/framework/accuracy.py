"""The accuracy classes an op states against the exact result (docs/accuracy.md).

Every op class carries one as ``accuracy``; diff's tolerances, the conformance
harness and the generated table of docs/accuracy.md read it from there.

- ``exact``: every output element is the exact result (data movement, selection,
  comparisons, integer arithmetic, Maximum, ReLU, ...); any difference is wrong.
- ``rounded``: correctly rounded per element (IEEE Add, Subtract, Multiply, Divide, Sqrt).
- ``transcendental``: within 1 ulp of the exactly rounded result (computed in f64,
  rounded once).
- ``accumulating``: a sum of many terms, off by about log2(n) units for n terms
  (MatMul, convolutions, reductions, SoftMax, ...); what an op that states nothing
  tighter is taken to be.
"""

from __future__ import annotations

EXACT, ROUNDED, TRANSCENDENTAL, ACCUMULATING = "exact", "rounded", "transcendental", "accumulating"
# tightest first: where several versions of a type differ, a name alone means the loosest
ACCURACY_CLASSES = (EXACT, ROUNDED, TRANSCENDENTAL, ACCUMULATING)

# The class of an op that sets none: its family's.  Families that only move, select,
# index or convert values are exact; any other family is accumulating unless an op
# says otherwise, a generous bound rather than an invented exactness.
FAMILY_ACCURACY: dict[str, str] = {
    "convert": EXACT,
    "indexing": EXACT,
    "io": EXACT,
    "movement": EXACT,
    "shape": EXACT,
    "sorting": EXACT,
    "state": EXACT,
    "string": EXACT,
    "tokenizers": EXACT,
}


def loosest(classes: list[str]) -> str:
    """The loosest of some accuracy classes (``accumulating`` for none)."""
    return max(classes, key=ACCURACY_CLASSES.index, default=ACCUMULATING)
