"""Feeds bound to Parameters (every problem at once), and a stateful model's
variables bound to its ReadValue layers."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..base import dtypes
from ..base.errors import ERROR, Diagnostic, InputError, IRExecError
from ..base.shapes import PartialShape, format_shape
from ..ir.records import Layer
from ..model.binding import Model
from ..model.naming import cast_hint, parameter_label, parameter_list, positional_hint
from ..system.tensorfile import as_dtype
from .cache import run_cache
from .plan import RunPlan


def parameters_by_name(model: Model) -> dict[str, Layer]:
    cache = run_cache(model)
    if cache.params_by_name is None:
        cache.params_by_name = _parameters_by_name(model)
    return cache.params_by_name


def _parameters_by_name(model: Model) -> dict[str, Layer]:
    by_name: dict[str, Layer] = {}
    for p in model.parameters:
        by_name.setdefault(p.name, p)
    for p in model.parameters:
        for port in p.outputs:
            for n in port.names:
                by_name.setdefault(n, p)
    return by_name


def _coerce(arr: np.ndarray, etype: dtypes.ElementType) -> np.ndarray | None:
    """The array as the Parameter's dtype when it holds exactly that type."""
    held = as_dtype(arr, etype.dtype)  # npz files hold the ml_dtypes types as raw bytes
    if held is not None:
        return held
    if etype.name == "bf16":
        return None
    got = dtypes.from_dtype(arr.dtype)
    if got is None or got.name != etype.name:
        return None
    return arr if arr.dtype.byteorder != ">" else None


def bind_feeds(model: Model, feeds: Mapping[str, np.ndarray], needed: set[int] | None = None) -> dict[int, np.ndarray]:
    """Match feeds to Parameters; every problem at once as input-mismatch.
    Only the Parameters in ``needed`` (default: all) must be fed; a feed for
    another one is checked if irexec can, and otherwise left unused."""
    params = parameters_by_name(model)
    bound: dict[int, np.ndarray] = {}
    problems: list[Diagnostic] = []
    for key, value in feeds.items():
        layer = params.get(key)
        if layer is None:
            known = _some_names(model.parameters)
            problems.append(Diagnostic("input-mismatch", f"input {key!r} matches no Parameter (Parameters: {known})"
                                       f"{positional_hint(key, [p.name for p in model.parameters])}", ERROR, file=model.path))
            continue
        if layer.id in bound:
            problems.append(Diagnostic("input-mismatch", f"fed twice (input {key!r} names the same Parameter)", ERROR,
                                       **_where(model, layer)))
            continue
        op = model.ops[layer.id]
        if op is None:
            continue  # a Parameter of a type irexec cannot run: a run that needs it is refused before this
        arr = np.asarray(value)
        etype, pshape = op.element_type, op.shape
        coerced = _coerce(arr, etype)
        if coerced is None:
            problems.append(Diagnostic("input-mismatch", f"input {key!r} has dtype {arr.dtype} but the Parameter is {etype.name} "
                                       f"(irexec does not cast inputs; convert it first, e.g. {cast_hint(etype.dtype)})", ERROR,
                                       **_where(model, layer)))
            continue
        if not pshape.accepts(coerced.shape):
            problems.append(Diagnostic("input-mismatch", f"input {key!r} has shape {format_shape(coerced.shape)} but the Parameter "
                                       f"accepts {pshape}", ERROR, **_where(model, layer)))
            continue
        bound[layer.id] = coerced
    reported = {d.layer_id for d in problems}  # a set: a model may have tens of thousands of Parameters
    for p in run_cache(model).parameters:
        op = model.ops[p.id]
        if op is None or needed is not None and p.id not in needed:
            continue
        if p.id not in bound and p.id not in reported:
            problems.append(Diagnostic("input-mismatch", f"no input given for Parameter {parameter_label(p)} "
                                       f"({op.element_type.name}{op.shape})", ERROR, **model.where(p)))
    if problems:
        raise InputError(problems)
    return bound


def _where(model: Model, layer: Layer) -> dict:
    """Where a feed's problem is told: its Parameter's output port (looked up only for a problem)."""
    return model.where(layer, layer.outputs[0].id if layer.outputs else None, "output" if layer.outputs else None)


def _some_names(layers: list[Layer], shown: int = 10) -> str:
    names = parameter_list(layers[:shown])
    return names + (f", and {len(layers) - shown} more" if len(layers) > shown else "")


def bind_variables(model: Model, plan: RunPlan, state: Mapping[str, np.ndarray], bound: dict[int, np.ndarray],
                   limit: int) -> None:
    """Feed each ReadValue the value of its variable: the one ``state`` holds,
    else zeros when it has no initialising input (it computes that input itself),
    charged with the inputs to the memory limit before they are allocated."""
    for lid, var, has_init in plan.reads:
        value = state.get(var.id)
        if value is None:
            if has_init:
                continue
            try:
                value = var.initial_zeros(limit - sum(a.nbytes for a in bound.values()))
            except IRExecError as e:
                raise type(e)(model.locate(e.diagnostics, model.layers[lid])) from None
            if value is None:
                continue  # no declared type or rank to start from: the op says so
        else:
            why = var.fits(PartialShape.static(value.shape), dtypes.from_dtype(value.dtype) or dtypes.get("dynamic"))
            if why:
                layer = model.layers[lid]
                raise InputError(f"the state of variable {var.id!r} does not fit: {why}", code="state-mismatch", **model.where(layer))
        bound[lid] = value
