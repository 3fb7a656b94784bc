"""Per-op plans made once per input layout: what a small kernel would otherwise
work out from its inputs' shapes, strides and types on every call.

A kernel keys its plan by everything the plan depends on (shapes, strides,
dtypes, the inference's plan), so inputs of another layout never reuse it; the
store is bounded, as ``Op.plan_for``'s: a caller feeding ever new shapes starts
over."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

LIMIT = 16  # layouts kept per op instance


def plan_of(op: Any, key: Hashable, make: Callable[[], Any]) -> Any:
    """The plan ``make`` gives for ``key``, made once per key and op instance."""
    plans: dict[Hashable, Any] | None = op.__dict__.get("_layout_plans")
    if plans is None:
        plans = op._layout_plans = {}
    found = plans.get(key, plans)  # the dict itself: not found (a plan may be None)
    if found is plans:
        if len(plans) >= LIMIT:
            plans.clear()
        found = plans[key] = make()
    return found
