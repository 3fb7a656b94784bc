"""Fused steps of a program (program.py): kernels that write where their reader
would have copied to.

A SqueezeNet Fire module is a 1x1 "squeeze" Convolution and ReLU, then two
"expand" Convolutions, each with its ReLU, joined by a Concat over the channels.
Step by step, each Convolution allocates its output, its ReLU reads it once more
and allocates another, and the Concat copies both into a third.  In a program:

- a Convolution whose output only a ReLU reads applies that ReLU to each tile of
  its output while the tile is in the cache (the ReLU's steps, so the same bits),
  and the ReLU step hands the tensor on;
- a ReLU whose output only a MaxPool reads (its indexes unread) runs after the
  MaxPool instead, on a quarter of the elements of a 2x2-strided pooling: max and
  ReLU commute bit for bit where every window holds an element of the input (a
  ReLU gives +0 for NaN, -0 and negatives alike; the pooling never picks a NaN);
- a Concat over channels (every axis before it of length 1, so each input is one
  contiguous block of its output) whose inputs are such Convolutions' outputs,
  read by nothing else: the first of them allocates the Concat's output and each
  writes its part there; the Concat step hands that output on (and where only a
  MaxPool reads it, their ReLUs move after the MaxPool, as above).

Decided once, when the program is built, from its steps and their inferences; a
run only calls the fused kernels.  The first writer of a Concat's output is
charged the whole output, so the program's peak bytes still bound the run."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..kernels.conv_direct import relu_in_place
from ..ops.convolution.convolution import Convolution1, GroupConvolution1
from ..ops.elementwise.activations import ReLU1
from ..ops.framework.base import Inference, Op, normalize_axis
from ..ops.movement.concat import Concat1
from ..ops.pooling.max_avg_pool import MaxPool1, MaxPool8, PoolPlan
from .compiled_steps import load_for
from .in_place import write_in_place
from .plan import Step
from .program_calls import COMPUTE, FREES, IS_RESULT, LID, PLAN, READS, USED, VERIFY, WRITES

_IN_PLACE = (np.dtype(np.float32), np.dtype(np.float64))  # the types whose ReLU runs on the tiles


def fuse(calls: list[Any], steps: Sequence[Step], inferences: Sequence[Inference | None], template: list[Any],
         ends: set[int]) -> list[Any]:
    """``calls`` (program.py's tuples) with Convolution -> ReLU, ReLU -> MaxPool
    and Concat over such Convolutions fused, and elementwise steps written in
    place (in_place.py); a fused Concat's output takes a new slot of
    ``template``.  ``ends``: the slots no step frees (never fused)."""
    op_of = {step.lid: step.op for step in steps}
    info = {step.lid: inference for step, inference in zip(steps, inferences)}
    readers: dict[int, list[int]] = {}
    for index, call in enumerate(calls):
        for slot in call[READS]:
            readers.setdefault(slot, []).append(index)
    calls = list(calls)

    def only_reader(slot: int) -> int | None:
        found = readers.get(slot, [])
        return found[0] if len(found) == 1 and slot not in ends else None

    # Convolution -> ReLU: conv call index -> its ReLU's; made: slot -> conv call index
    relu_of: dict[int, int] = {}
    made: dict[int, int] = {}
    for index, call in enumerate(calls):
        op = op_of.get(call[LID])
        if not isinstance(op, (Convolution1, GroupConvolution1)) or call[COMPUTE] != op.compute \
                or len(call[WRITES]) != 1:
            continue
        made[call[WRITES][0]] = index
        reader = only_reader(call[WRITES][0])
        if reader is None:
            continue
        relu = calls[reader]
        if type(op_of.get(relu[LID])) is ReLU1 and relu[READS] == call[WRITES] \
                and call[WRITES][0] in relu[FREES]:
            relu_of[index] = reader
            made[relu[WRITES][0]] = index
    pooled: dict[int, int] = {}  # ReLU call index -> the MaxPool call it moves after
    for index, reader in list(relu_of.items()):
        relu = calls[reader]
        pool = only_reader(relu[WRITES][0])
        if pool is not None and _commutes(calls[pool], op_of, info, relu):
            pooled[reader] = pool
            del relu_of[index]
            del made[relu[WRITES][0]]
    for reader, pool in pooled.items():
        call = calls[pool]
        calls[reader] = calls[reader][:COMPUTE] + (_hand_on,) + calls[reader][PLAN:]
        calls[pool] = call[:COMPUTE] + (_then_relu(call[COMPUTE]),) + call[PLAN:]
    # conv call index -> (concat call, first channel, channels, slot of the concat's output, whether it allocates it)
    into: dict[int, tuple[int, int, int, int, bool]] = {}
    for index, call in enumerate(calls):
        _plan_concat(index, call, calls, op_of, info, made, only_reader, relu_of, template, into)
    for reader in relu_of.values():
        calls[reader] = calls[reader][:COMPUTE] + (_hand_on,) + calls[reader][PLAN:]
    # a fused Concat of ReLU outputs read by a MaxPool alone: the ReLUs move after the MaxPool too
    joined: dict[int, list[int]] = {}
    for index, (concat, *_) in into.items():
        joined.setdefault(concat, []).append(index)
    moved: set[int] = set()
    for concat, producers in joined.items():
        pool = only_reader(calls[concat][WRITES][0])
        if pool is not None and all(p in relu_of for p in producers) and _commutes(calls[pool], op_of, info, calls[concat]):
            moved.add(concat)
            calls[pool] = calls[pool][:COMPUTE] + (_then_relu(calls[pool][COMPUTE]),) + calls[pool][PLAN:]
    for index in set(relu_of) | set(into):
        call = calls[index]
        conv = op_of[call[LID]]
        relu_op = op_of[calls[relu_of[index]][LID]] if index in relu_of else None
        target = into.get(index)
        compute: Callable[..., Sequence[np.ndarray]]
        if target is None:
            compute = _conv_relu(conv, relu_op)
            calls[index] = call[:COMPUTE] + (compute,) + call[PLAN:]
            continue
        concat, offset, channels, slot, first = target
        out = info[calls[concat][LID]].outputs[0]  # type: ignore[union-attr]
        shape, dtype = out.shape.to_tuple(), out.etype.dtype
        assert dtype is not None  # a type of _IN_PLACE
        compute = _conv_into(conv, relu_op is not None and concat not in moved, shape, dtype, offset, channels, first)
        if first:  # allocates the Concat's output: charged for all of it (and held to its inference)
            extra = math.prod(shape) * dtype.itemsize * (shape[1] - channels) // shape[1]
            verify = call[VERIFY] + [out] if call[VERIFY] is not None else None
            calls[index] = call[:COMPUTE] + (compute, call[PLAN], call[READS], call[WRITES] + (slot,), call[FREES],
                                             call[USED] + extra, call[IS_RESULT], verify)
        else:
            calls[index] = call[:COMPUTE] + (compute, call[PLAN], call[READS] + (slot,)) + call[WRITES:]
    load_for(calls, op_of, info)  # small activations compiled in a program's repeated runs
    return write_in_place(calls, op_of, info, ends)


def _plan_concat(index: int, call: Any, calls: list[Any], op_of: dict[int, Op], info: dict[int, Inference | None],
                 made: dict[int, int], only_reader: Callable[[int], int | None], relu_of: dict[int, int],
                 template: list[Any], into: dict[int, tuple[int, int, int, int, bool]]) -> None:
    """Where ``call`` is a Concat whose inputs fused Convolutions can write in
    place: each such Convolution's entry in ``into``, and the Concat's step
    rewritten to hand on the output they wrote."""
    op, inference = op_of.get(call[LID]), info.get(call[LID])
    if type(op) is not Concat1 or inference is None or len(call[READS]) < 2:
        return
    out = inference.outputs[0]
    if not out.shape.is_static or out.etype.dtype not in _IN_PLACE:
        return
    shape = out.shape.to_tuple()
    axis = normalize_axis(op.axis, len(shape), "axis", "axis-out-of-range")
    if axis != 1 or len(shape) < 3 or shape[0] != 1:
        return  # channels, batch 1: each input one contiguous block of the output
    producers = []
    for slot in call[READS]:
        conv = made.get(slot)
        if conv is None or only_reader(slot) != index or conv in into or slot not in call[FREES]:
            return
        producers.append(conv)
    if len(set(producers)) != len(producers):
        return
    if any(calls[p][LID] not in info or info[calls[p][LID]] is None for p in producers):
        return
    # the output's slot: the first Convolution (in run order) allocates it, the Concat hands it on
    slot = len(template)
    template.append(None)
    first = min(producers)
    offset = 0
    for p in producers:
        part = info[calls[p][LID]].outputs[0]  # type: ignore[union-attr]
        channels = part.shape.to_tuple()[1]
        into[p] = (index, offset, channels, slot, p == first)
        offset += channels
    calls[index] = call[:COMPUTE] + (_hand_on_last, call[PLAN], call[READS] + (slot,), call[WRITES],
                                     call[FREES] + (slot,)) + call[USED:]


def _commutes(pool: Any, op_of: dict[int, Op], info: dict[int, Inference | None], relu: Any) -> bool:
    """Whether ReLU then ``pool`` gives the bits of ``pool`` then ReLU: a MaxPool of float
    data whose indexes nothing reads, every window holding an element of the input.
    ``relu``: the call whose output the MaxPool reads (a ReLU, or a Concat of ReLUs)."""
    op, inference = op_of.get(pool[LID]), info.get(pool[LID])
    relu_info = info.get(relu[LID])
    if not isinstance(op, (MaxPool1, MaxPool8)) or inference is None or relu_info is None \
            or not isinstance(inference.plan, PoolPlan) or pool[READS] != relu[WRITES] \
            or relu[WRITES][0] not in pool[FREES] or relu_info.outputs[0].etype.dtype not in _IN_PLACE:
        return False
    if isinstance(op, MaxPool8) and pool[COMPUTE] == op.compute:
        return False  # its indexes are read
    plan, shape = inference.plan, relu_info.outputs[0].shape
    if not shape.is_static or any(plan.pads_begin) or any(plan.pads_end):
        return False
    spatial = shape.to_tuple()[2:]
    return all((o - 1) * s <= n - 1 for o, s, n in zip(plan.out_spatial, op.strides, spatial))


def _then_relu(pool: Callable[..., Sequence[np.ndarray]]) -> Callable[..., Sequence[np.ndarray]]:
    def compute(plan: Any, data: np.ndarray) -> list[np.ndarray]:
        outs = list(pool(plan, data))
        values = outs[0] if outs[0].flags.c_contiguous and outs[0].flags.writeable else outs[0].copy()
        relu_in_place(values)
        return [values, *outs[1:]]
    return compute


def _hand_on(plan: object, data: np.ndarray) -> list[np.ndarray]:
    """A fused ReLU's step: its Convolution applied it already."""
    return [data]


def _hand_on_last(plan: object, *inputs: np.ndarray) -> list[np.ndarray]:
    """A fused Concat's step: its inputs wrote their parts into the last one."""
    return [inputs[-1]]


def _conv_relu(conv: Op, relu: Op | None) -> Callable[..., Sequence[np.ndarray]]:
    def compute(plan: Any, data: np.ndarray, filters: np.ndarray) -> list[np.ndarray]:
        if data.dtype in _IN_PLACE:
            return [conv.compute_into(plan, data, filters, relu=True)]
        out = conv.compute(plan, data, filters)
        return list(relu.compute(None, out[0])) if relu is not None else list(out)
    return compute


def _conv_into(conv: Op, relu: bool, shape: tuple[int, ...], dtype: np.dtype, offset: int, channels: int,
               first: bool) -> Callable[..., Sequence[np.ndarray]]:
    def compute(plan: Any, data: np.ndarray, filters: np.ndarray, *rest: np.ndarray) -> list[np.ndarray]:
        whole = np.empty(shape, dtype) if first else rest[0]
        part = conv.compute_into(plan, data, filters, into=whole[:, offset:offset + channels],
                                 relu=relu)
        return [part, whole] if first else [part]
    return compute
