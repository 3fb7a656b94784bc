"""Elementwise steps of a program (program.py) that write into an input they
are the last to read, instead of allocating their output.

A residual Add, a layer-scale Multiply, a bias: step by step, each allocates a
tensor of its input's size while that input, read by nothing after it, is freed
as the step ends.  In a program such a step writes its result into that input
(``out=`` of the same ufunc: the same operation on the same operands, so the
same bits).

An input is written only where the program owns it alone: it is the output of
a step whose kernel makes a new array (a MatMul, a Convolution, a Transpose, or
one of these elementwise steps), it has no other reader, it is not an output of
the run, a feed, a Const or a shape tensor, and at run time it has the output's
shape and type and can be written (otherwise the step allocates as before).
The bytes charged stay those of the step as it was, so the program's peak
still bounds the run.

The activations stay as they are: their compiled kernels (Numba) lose their
SIMD loop when input and output may overlap (5x the time on ConvNeXt's Gelu)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..ops.convolution.convolution import Convolution1, GroupConvolution1
from ..ops.elementwise.factory import Binary
from ..ops.framework.base import Inference, Op
from ..ops.matmul.matmul import MatMul1
from ..ops.movement.transpose import Transpose1
from .program_calls import COMPUTE, FREES, LID, PLAN, READS, WRITES

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_UFUNCS = (np.add, np.subtract, np.multiply)  # IEEE per element, the result rounded once in the data's type
_FRESH = (MatMul1, Convolution1, GroupConvolution1, Transpose1)  # kernels whose output is a new array


def write_in_place(calls: list[Any], op_of: dict[int, Op], info: dict[int, Inference | None],
                   ends: set[int]) -> list[Any]:
    """``calls`` with each elementwise step that can write into an input it alone
    reads given a kernel that does (module doc)."""
    readers: dict[int, int] = {}
    for call in calls:
        for slot in call[READS]:
            readers[slot] = readers.get(slot, 0) + 1
    owned: set[int] = set()  # slots holding a new array of the run's own, read once
    calls = list(calls)
    for index, call in enumerate(calls):
        op = op_of.get(call[LID])
        if op is None or call[COMPUTE] != op.compute:
            continue
        kernel = _in_place_kernel(op, info.get(call[LID]), call, owned, readers, ends)
        if kernel is not None:
            calls[index] = call[:COMPUTE] + (kernel,) + call[PLAN:]
        if kernel is not None or isinstance(op, _FRESH):
            owned.update(slot for slot in call[WRITES] if readers.get(slot) == 1 and slot not in ends)
    return calls


def _in_place_kernel(op: Op, inference: Inference | None, call: Any, owned: set[int], readers: dict[int, int],
                     ends: set[int]) -> Callable[..., Sequence[np.ndarray]] | None:
    if inference is None or len(call[WRITES]) != 1 or len(inference.outputs) != 1:
        return None
    out = inference.outputs[0]
    if not out.shape.is_static or out.etype.dtype not in _FLOATS or out.shape.rank == 0:
        return None
    shape, dtype = out.shape.to_tuple(), out.etype.dtype
    # the inputs it may write: its own (in ``owned``), freed by it, read by it once
    free = [i for i, slot in enumerate(call[READS])
            if slot in owned and slot in call[FREES] and call[READS].count(slot) == 1]
    if not free:
        return None
    if not isinstance(op, Binary) or len(call[READS]) != 2:
        return None
    cls: type[Binary] = type(op)
    if cls.fn not in _UFUNCS or cls.precise or cls.with_op or cls.boolean_out or cls.compute is not Binary.compute:
        return None
    if call[PLAN] is not None:  # b viewed in another shape (pdpd): only a is written
        free = [i for i in free if i == 0]
    return _binary_into(cls.fn, op.compute, tuple(free), shape, dtype) if free else None


def _writable(array: np.ndarray, shape: tuple[int, ...], dtype: np.dtype) -> bool:
    return type(array) is np.ndarray and array.shape == shape and array.dtype == dtype \
        and array.flags.writeable and array.flags.c_contiguous


def _binary_into(fn: Any, compute: Callable[..., Sequence[np.ndarray]], free: tuple[int, ...],
                 shape: tuple[int, ...], dtype: np.dtype) -> Callable[..., Sequence[np.ndarray]]:
    def kernel(plan: Any, a: np.ndarray, b: np.ndarray) -> Sequence[np.ndarray]:
        if a.dtype == dtype and b.dtype == dtype:
            for i in free:
                target = b if i else a
                if _writable(target, shape, dtype):
                    with np.errstate(all="ignore"):
                        fn(a, b if plan is None else b.reshape(plan), out=target)
                    return [target]
        return compute(plan, a, b)
    return kernel

