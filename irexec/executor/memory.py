"""Memory refusals: a layer whose outputs would take a run past its limit is
refused before anything is allocated."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..base import limits, strings
from ..base.errors import InputError, IRExecError
from ..ir.records import Layer
from ..kernels.compressed_linear import StandIn
from ..model.binding import Model
from ..ops.framework.base import Inference, Op
from ..ops.io import Const1, Result1
from .cache import run_cache

# Outputs of these ops take no new memory: a Const is a view of the mapped
# .bin, a Result passes its input through.
NO_ALLOCATION = (Const1, Result1)


def allocates(op: Op | None) -> bool:
    """Whether a layer's outputs take memory of their own: every layer's but a
    Result's and a Const's, unless the Const holds strings (unpacked from the map)."""
    return not isinstance(op, NO_ALLOCATION) or isinstance(op, Const1) and op.element_type.is_string


def refuse_large_inputs(model: Model, bound: dict[int, np.ndarray], limit: int) -> None:
    total = sum(own_bytes(a) for a in bound.values())
    why = limits.over_limit(total, limit)
    if why:
        raise InputError(f"the inputs together {why}", code="memory-limit", file=model.path)


def refuse_over_memory_limit(
    model: Model,
    layer: Layer,
    inference: Inference,
    values: Mapping[tuple[int, int], np.ndarray],
    results: Mapping[int, np.ndarray],
    limit: int,
    held: int,
    outside: int = 0,
    bound: Mapping[int, np.ndarray] | None = None,
    made: int | None = None,
) -> None:
    """Before a kernel runs: refuse the layer (``memory-limit``) if its inferred
    outputs and the tensors still alive would exceed ``limit`` bytes.  Nothing
    is allocated to find out.  ``held`` is an upper bound of the live bytes, so
    the common case costs one sum.  ``made``: after a kernel whose outputs only
    the data sized (charged by the kernel as they grew), their bytes, held to
    the limit in the same way before anything else may use them."""
    need = inference.charge if made is None else made
    if need is None:
        return  # the op cannot say before computing (NonZero...); nothing to hold it to
    if need + held <= limit:
        return  # even counting the mapped Consts and any aliases twice, it fits
    alive = _alive(model, values, results, outside, bound)
    if need + alive > limit and run_cache(model).drop():  # the fold cache gives way to the run
        alive = _alive(model, values, results, outside, bound)
    why = limits.over_limit(need + alive, limit)
    if why:
        shapes = ", ".join(f"{i.etype.name}{i.shape}" for i in inference.outputs)
        if made is not None:
            shapes += f" made of {limits.format_bytes(made)} (sized by the data)"
        elif inference.scratch:
            shapes += f" and {limits.format_bytes(inference.scratch)} of temporaries"
        also = f" plus {limits.format_bytes(alive)} of tensors still in use" if alive else ""
        raise IRExecError(f"output {shapes}{also} {why}", code="memory-limit", **model.where(layer))


def own_bytes(a: np.ndarray) -> int:
    """The memory an array holds: none for a StandIn, a weight that is never made;
    a string tensor's characters count by their bytes."""
    return 0 if isinstance(a, StandIn) else strings.array_bytes(a)


def _alive(model: Model, values: Mapping[tuple[int, int], np.ndarray], results: Mapping[int, np.ndarray],
           outside: int, bound: Mapping[int, np.ndarray] | None) -> int:
    """Exact bytes in use: each array once, mapped Consts not at all, the fold
    cache included; a body's feeds are in ``outside`` already."""
    distinct: dict[int, int] = {}
    for lid, outs in run_cache(model).outputs.items():
        if not isinstance(model.ops[lid], Const1) or allocates(model.ops[lid]):
            for a in outs:
                distinct[id(a)] = own_bytes(a)
    for (src, _), a in values.items():
        if allocates(model.ops[src]):
            distinct[id(a)] = own_bytes(a)
    for a in results.values():
        distinct[id(a)] = own_bytes(a)
    if outside and bound:
        for a in bound.values():
            distinct.pop(id(a), None)
    return outside + sum(distinct.values())
