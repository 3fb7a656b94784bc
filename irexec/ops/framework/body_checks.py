"""How often a sub-graph body is checked: a budget per document, so that
nested Loops cost a few body checks per level, not 4^depth."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from ...base.errors import NOTE, Diagnostic
from .base import TensorInfo
from .body import Body

# One check of a document (or one sub-graph inference at run time) checks each
# body at most this many times, whatever the nesting: the settling rounds of
# an outer body re-check the bodies inside it, and without a bound 13 nested
# Loops meant 4^13 checks of the innermost body.  Checks on the same shapes
# are remembered, so this is reached only by bodies whose inputs keep
# changing; past it the body's outputs are unknown (a note says so).
BODY_CHECKS = 16


@dataclass
class _Budget:
    checks: dict[int, int] = field(default_factory=dict)  # id(body) -> checks done
    done: dict[tuple, tuple[dict[int, TensorInfo | None], list[Diagnostic]]] = field(default_factory=dict)


_BUDGET: ContextVar[_Budget | None] = ContextVar("irexec_body_checks", default=None)


def body_check_scope(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Run ``fn`` with one body-check budget, unless one is already open (the
    checker opens it for a whole document; a run for each sub-graph inference)."""

    @functools.wraps(fn)
    def scoped(*args: Any, **kw: Any) -> Any:
        if _BUDGET.get() is not None:
            return fn(*args, **kw)
        token = _BUDGET.set(_Budget())
        try:
            return fn(*args, **kw)
        finally:
            _BUDGET.reset(token)

    return scoped


def _result_infos(body: Body, tensors: Mapping[tuple[int, int], TensorInfo], results: Sequence[int]) -> dict[int, TensorInfo | None]:
    out = {}
    for rid in results:
        src = body.model.graph.producer.get((rid, 0))
        out[rid] = tensors.get(src) if src is not None else None
    return out


@body_check_scope
def infer_body(body: Body, seeds: dict[int, TensorInfo]) -> tuple[dict[int, TensorInfo | None], list[Diagnostic]]:
    """Check the body on the tensors fed to its Parameters: each Result's
    tensor (None when it could not be inferred) and the findings.  Within one
    budget (see BODY_CHECKS) a body checked on the same shapes and types is
    not checked again, and a body checked BODY_CHECKS times is not checked at
    all: every Result is unknown and a note says why."""
    budget = _BUDGET.get()
    assert budget is not None
    key = (id(body), tuple(sorted((lid, info.shape, info.etype.name) for lid, info in seeds.items())))
    done = budget.done.get(key)
    if done is not None:
        return done
    count = budget.checks.get(id(body), 0)
    if count >= BODY_CHECKS:
        return {}, [Diagnostic("skipped", f"a body was not checked again: it was checked {BODY_CHECKS} times on "
                               "changing input shapes (the limit per document); its outputs are taken as unknown",
                               NOTE, file=body.model.path)]
    budget.checks[id(body)] = count + 1
    tensors, diagnostics = body.check(seeds)
    rids = [o.result for o in body.outputs] + [bi.merged for bi in body.inputs if bi.merged is not None]
    if body.condition is not None:
        rids.append(body.condition)
    found = _result_infos(body, tensors, rids), diagnostics
    budget.done[key] = found
    return found
