"""Depthwise convolution through compiled kernels (the ``jit`` extra).

A 2-D layer of one channel per group, f32 or f64, with an output at least
``COMPILED_FROM_WIDTH`` wide, goes through depthwise_jit.planes: per channel,
the padded plane split into its stride phases and each tap one long
unit-stride multiply-add over a block of output rows in the L1 cache
(0.39-0.97x the einsum's time on EfficientNet's, MobileNet's and ConvNeXt's
layers from 14 wide; benchmarks/README.md).  A narrower output (an
EfficientNet's or a MobileNet's 7 x 7 maps, where a plane's rows are too short
for it) goes channels last through depthwise_jit.channels_last: per output
pixel, each tap one multiply-add over the contiguous channels (0.2-0.8x the
einsum's time, the copies to and from channels last included).  The taps are
added in kernel order from zero, as windows.py's NumPy paths add them.  Numba is imported by
the first such layer a process runs; IREXEC_JIT=0 turns the kernel off.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable, Sequence
from functools import partial

import numpy as np

from ..base import limits
from ..system import parallel
from .jit_modules import jit_module

# Output width from which a depthwise layer runs through the planes kernel: on 7-wide maps the
# einsum over channels last took 0.56-0.81x its time, from 14 wide the planes kernel 0.39-0.97x
# the einsum's (benchmarks/README.md); narrower outputs run compiled channels last
COMPILED_FROM_WIDTH = 14
# The compiled kernel sums a block of output rows of at most this many bytes at a time: with
# the phase rows it reads, it stays in the L1 cache
ACC_BYTES = 8 << 10
# Channels from which a narrower output runs compiled channels last (a pass over
# fewer channels than a vector holds is mostly its remainder loop)
CHANNELS_LAST_FROM = 8
# the compiled depthwise kernels: False until first asked for, None without Numba
_planes: Callable[..., None] | None | bool = False
_channels_last: Callable[..., None] | None | bool = False


def compiled_planes() -> Callable[..., None] | None:
    """depthwise_jit's kernel, imported (and Numba with it) when first asked
    for; None without the ``jit`` extra or with IREXEC_JIT=0."""
    global _planes
    if _planes is False:
        module = jit_module("depthwise_jit")
        _planes = None if module is None else module.planes
    return _planes  # type: ignore[return-value]


def compiled_channels_last() -> Callable[..., None] | None:
    """depthwise_jit's channels-last kernel, as compiled_planes."""
    global _channels_last
    if _channels_last is False:
        module = jit_module("depthwise_jit")
        _channels_last = None if module is None else module.channels_last
    return _channels_last  # type: ignore[return-value]


def run(x: np.ndarray, w: np.ndarray, strides: Sequence[int], dilations: Sequence[int], begin: Sequence[int],
        out: np.ndarray) -> bool:
    """``out`` [N, C, OH, OW] = the depthwise convolution of ``x`` [N, C, H, W]
    (``begin`` zeros before the data; as many after as the windows reach) with
    ``w`` [C, 1, 1, KH, KW], both of ``out``'s float type; False, and nothing
    written, where the compiled kernel does not apply (a narrow output, no Numba)."""
    out_spatial, kernel = out.shape[2:], w.shape[3:]
    if out_spatial[-1] < COMPILED_FROM_WIDTH:
        return out.shape[1] >= CHANNELS_LAST_FROM and _run_channels_last(x, w, strides, dilations, begin, out)
    planes = compiled_planes()
    if planes is None:
        return False
    c = out.shape[1]
    reach = [(o - 1) * s + (k - 1) * d + 1 for o, s, k, d in zip(out_spatial, strides, kernel, dilations)]
    ph, pw = (-(-m // s) for m, s in zip(reach, strides))
    phase_len = ph * pw + (kernel[1] - 1) * dilations[1] // strides[1]
    limits.require(math.prod(strides) * phase_len * x.dtype.itemsize, f"the padded phases of {list(reach)} positions")
    xs = np.ascontiguousarray(x).reshape(-1)
    wc = np.ascontiguousarray(w, dtype=x.dtype).reshape(-1)
    st, di, be = (int(strides[0]), int(strides[1])), (int(dilations[0]), int(dilations[1])), (int(begin[0]), int(begin[1]))
    geometry = (x.shape[0], c, *x.shape[2:], *kernel, *out_spatial)
    flat = out.reshape(-1)

    def channels(c0: int, c1: int) -> None:
        phases = np.empty(math.prod(strides) * phase_len, x.dtype)
        planes(xs, wc, flat, geometry, c0, c1, st, di, be, pw, phases,
               np.empty(max(ACC_BYTES // x.dtype.itemsize, pw), x.dtype))

    # cut over the threads by output size, as windows.py's channels-first path is
    parts = max(1, min(parallel.pieces(out.nbytes), c))
    tasks = [partial(channels, a, b) for a, b in parallel.spans(c, parts)]
    parallel.run(tasks, parallel.MIN_PARALLEL_BYTES if parts > 1 else 0)
    return True


# A read-only weight (a Const's value, the same array every run) moved channels last, by id, with
# a weak reference that tells a new array at a reused address from it: 5-30 us a layer saved
_weights_moved: dict[int, tuple[weakref.ref[np.ndarray], np.ndarray]] = {}


def _channels_last_weights(w: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``w`` [C, 1, 1, KH, KW] as a contiguous [KH, KW, C] of ``dtype``, kept while ``w`` lives
    where ``w`` cannot change (read-only)."""
    found = _weights_moved.get(id(w))
    if found is not None and found[0]() is w and found[1].dtype == dtype:
        return found[1]
    moved = np.ascontiguousarray(np.moveaxis(w.reshape(w.shape[0], *w.shape[3:]), 0, -1), dtype=dtype)
    if not w.flags.writeable:
        key = id(w)

        def forget(_: object) -> None:
            _weights_moved.pop(key, None)

        _weights_moved[key] = (weakref.ref(w, forget), moved)
    return moved


def _run_channels_last(x: np.ndarray, w: np.ndarray, strides: Sequence[int], dilations: Sequence[int],
                       begin: Sequence[int], out: np.ndarray) -> bool:
    """``run`` for a narrow output: the input copied once channels last with its
    padding, the compiled kernel over blocks of output rows, the result moved back."""
    kernel_rows = compiled_channels_last()
    if kernel_rows is None:
        return False
    n, c = out.shape[:2]
    out_spatial, kernel = out.shape[2:], w.shape[3:]
    reach = [(o - 1) * s + (k - 1) * d + 1 for o, s, k, d in zip(out_spatial, strides, kernel, dilations)]
    limits.require((n * math.prod(reach) * c + out.size) * x.dtype.itemsize, f"the input padded to {reach}, channels last")
    xc = np.zeros((n, *reach, c), x.dtype)
    src, dst = [slice(None), slice(None)], [slice(None)]
    for b, length, m in zip(begin, x.shape[2:], reach):
        take = max(0, min(length, m - b))  # data past the last window is not read
        src.append(slice(0, take))
        dst.append(slice(b, b + take))
    xc[tuple(dst)] = np.moveaxis(x[tuple(src)], 1, -1)
    wc = _channels_last_weights(w, x.dtype)  # [KH, KW, C]
    oc = np.empty((n, *out_spatial, c), x.dtype)
    st, di = (int(strides[0]), int(strides[1])), (int(dilations[0]), int(dilations[1]))
    rows = n * out_spatial[0]
    parts = max(1, min(parallel.pieces(out.nbytes), rows))
    tasks = [partial(kernel_rows, xc, wc, oc, st, di, a, b, np.empty(c, x.dtype)) for a, b in parallel.spans(rows, parts)]
    parallel.run(tasks, parallel.MIN_PARALLEL_BYTES if parts > 1 else 0)
    out[...] = np.moveaxis(oc, -1, 1)
    return True
