"""Block copies: moving same-shape views with NumPy's inner loop running as
long as the strides allow."""

from __future__ import annotations

import functools

import numpy as np

from .. import parallel

# Below this size the merging of axes costs more than it saves.
_SMALL_BYTES = 1 << 16


def merge_trailing(dst: np.ndarray, src: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Views of two same-shape arrays with their trailing axes merged as far
    as the strides of both allow (a merged axis is walked at one stride)."""
    shape, d_str, s_str = list(dst.shape), list(dst.strides), list(src.strides)
    while len(shape) > 1 and d_str[-2] == shape[-1] * d_str[-1] and s_str[-2] == shape[-1] * s_str[-1]:
        shape[-2:] = [shape[-2] * shape[-1]]
        d_str[-2:], s_str[-2:] = [d_str[-1]], [s_str[-1]]
    if len(shape) == dst.ndim:
        return dst, src
    return _view(dst, shape), _view(src, shape)


def copy_runs(dst: np.ndarray, src: np.ndarray) -> None:
    """``dst[...] = src`` for same-shape, same-dtype views (any strides, also
    negative), with trailing axes merged so NumPy's inner loop runs long.
    (Copying runs as opaque void elements was tried: NumPy holds the GIL for
    those, so threads stopped scaling, and it was no faster on one thread.)"""
    if dst.ndim > 1 and dst.size and dst.nbytes > _SMALL_BYTES:  # small: overhead dominates
        dst, src = merge_trailing(dst, src)
    np.copyto(dst, src)


def _view(a: np.ndarray, shape: list[int]) -> np.ndarray:
    """``a`` reshaped to ``shape``, which the caller checked needs no copy."""
    try:
        return a.reshape(shape, copy=False)
    except TypeError:  # NumPy < 2.1 has no copy=; the strides check makes it a view anyway
        return a.reshape(shape)


def copy_parallel(dst: np.ndarray, src: np.ndarray) -> None:
    """``np.copyto(dst, src)`` for a big strided ``src`` (a transposed view), cut
    along the first axis long enough into parts filled from the thread pool:
    NumPy copies such a view an element at a time, so the second core halves it."""
    parts = parallel.pieces(dst.nbytes)
    axis = next((a for a in range(dst.ndim) if dst.shape[a] >= 2), None)
    if parts <= 1 or axis is None:
        np.copyto(dst, src)
        return
    lead = (slice(None),) * axis
    tasks = [functools.partial(np.copyto, dst[lead + (slice(lo, hi),)], src[lead + (slice(lo, hi),)])
             for lo, hi in parallel.spans(dst.shape[axis], parts)]
    parallel.run(tasks, dst.nbytes)
