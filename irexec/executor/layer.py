"""One layer of a run: inference on the concrete inputs, the memory refusal,
the kernel, and (in tests) the kernel's outputs held to its inference."""

from __future__ import annotations

import os
from collections.abc import Mapping

import numpy as np

from ..base import limits
from ..base.errors import InternalError, IRExecError
from ..base.shapes import format_shape
from ..ir.records import Layer
from ..kernels.compressed_linear import StandIn
from ..model.binding import Model
from ..ops.framework.base import Inference, Op, TensorInfo
from ..ops.io import Result1
from .cache import FOLD_BYTES, FOLD_SHARE
from .memory import allocates, own_bytes, refuse_over_memory_limit
from .rewrites import GIVES_STAND_IN, stand_in

# Set (tests do) to hold every kernel's outputs to what inference said.
VERIFY_ENV = "IREXEC_VERIFY_KERNELS"
_verify = os.environ.get(VERIFY_ENV, "") not in ("", "0")


def compute_layer(model: Model, layer: Layer, op: Op, args: list[np.ndarray], values: Mapping[tuple[int, int], np.ndarray],
             results: Mapping[int, np.ndarray], limit: int, held: int, unread: frozenset[int] | None = None,
             inference: Inference | None = None, outside: int = 0,
             bound: Mapping[int, np.ndarray] | None = None) -> tuple[list[np.ndarray], Inference]:
    """Infer on the concrete inputs (cached per signature; ``inference`` when
    the caller knows it already), refuse an output over the memory limit, then
    run the kernel on the plan (told which outputs no layer reads, if any)."""
    try:
        if inference is None:
            inference = op.plan_for(args)
        if isinstance(op, GIVES_STAND_IN):
            given = stand_in(op, args, inference, min(FOLD_BYTES, limit // FOLD_SHARE))  # what runs keep
            if given is not None:
                return [given], inference  # the weight is never made: nothing to charge
        need = inference.charge
        if (need is not None and need + held > limit) and allocates(op):
            refuse_over_memory_limit(model, layer, inference, values, results, limit, held, outside, bound)
        # what the kernel (and a body: its layers) may still allocate; a body makes the outputs itself
        in_use = held if need is None or op.family == "control" else held + need
        token = limits.IN_USE.set((limit, in_use))  # (limits.charged without a generator's cost per layer)
        try:
            outs = list(op.compute_unread(unread, inference.plan, *args) if unread else op.compute(inference.plan, *args))
        finally:
            limits.IN_USE.reset(token)
        # NumPy hands back scalars, not arrays, for many operations on 0-d arrays
        # (a loop: a list comprehension costs a frame per layer)
        for i, o in enumerate(outs):
            if type(o) is not np.ndarray and not isinstance(o, StandIn):
                outs[i] = np.asarray(o)
        if inference.data_sized and allocates(op):
            # outputs no shape sized (ragged, data-dependent, strings): the kernel charged them
            # as they grew (limits.Meter, limits.require); what it made is held to the limit
            # with the run's tensors before any later layer allocates beside it
            made = sum(own_bytes(o) for o in outs)
            if made + held > limit:
                refuse_over_memory_limit(model, layer, inference, values, results, limit, held, outside, bound, made)
    except Exception as e:  # noqa: BLE001 - each kind told apart in layer_failure
        raise layer_failure(model, layer, e) from failure_cause(e)
    if _verify and not isinstance(op, Result1):
        verify_outputs(layer, inference.outputs, outs)
    return outs, inference


def layer_failure(model: Model, layer: Layer, e: Exception) -> Exception:
    """What a layer's failure is told as: a user's error located at the layer, memory
    running out, or a kernel bug (an internal error), not the user's doing."""
    if isinstance(e, IRExecError):
        return type(e)(model.locate(e.diagnostics, layer))
    if isinstance(e, MemoryError):
        return IRExecError("ran out of memory computing this layer", code="out-of-memory", **model.where(layer))
    return InternalError(f"{layer.display} layer {layer.id} {layer.name!r} failed: {type(e).__name__}: {e}")


def failure_cause(e: Exception) -> Exception | None:
    """The cause a layer's failure keeps: a kernel bug's own traceback, nothing for the user's errors."""
    return None if isinstance(e, (IRExecError, MemoryError)) else e


def verifying() -> bool:
    """Whether every kernel's outputs are held to its inference (IREXEC_VERIFY_KERNELS)."""
    return _verify


def verify_outputs(layer: Layer, infos: list[TensorInfo], outs: list[np.ndarray]) -> None:
    """A kernel whose outputs contradict its own inference is a bug, named here
    rather than blamed on the next layer."""
    if len(outs) != len(infos):
        raise InternalError(f"{layer.display} layer {layer.id} {layer.name!r}: kernel returned {len(outs)} outputs, "
                                f"inference said {len(infos)}")
    for k, (info, arr) in enumerate(zip(infos, outs)):
        if not isinstance(arr, np.ndarray) or arr.dtype != info.etype.dtype or not info.shape.accepts(arr.shape):
            got = f"{arr.dtype}{format_shape(arr.shape)}" if isinstance(arr, np.ndarray) else type(arr).__name__
            raise InternalError(f"{layer.display} layer {layer.id} {layer.name!r} output {k}: kernel returned {got}, "
                                f"inference said {info.etype.name}{info.shape}")
