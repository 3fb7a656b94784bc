"""NumPy references of movement ops, written from the op specifications
(each takes the case's inputs and attributes, returns the outputs)."""

from __future__ import annotations

import math
from typing import Any

import ml_dtypes
import numpy as np


def gather(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    """Gather-1/7/8 without negative or out-of-range indices: np.take per batch."""
    data, indices, axis = x[0], x[1], int(np.asarray(x[2]).reshape(-1)[0])
    b = int(attrs.get("batch_dims", 0))
    axis %= data.ndim
    if b == 0:
        return [np.take(data, indices.astype(np.int64), axis=axis)]
    out = [gather([d, i, np.array(axis - 1)], {"batch_dims": b - 1})[0] for d, i in zip(data, indices)]
    return [np.stack(out)]


def ref_concat(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    return [np.concatenate(x, axis=int(attrs["axis"]))]


def ref_split(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    return [np.ascontiguousarray(p) for p in np.split(x[0], int(attrs["num_splits"]), axis=int(x[1]))]


def ref_roll(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, shift, axes = x
    shifts, axis_list = shift.reshape(-1).tolist(), axes.reshape(-1).tolist()
    if len(shifts) == 1:
        shifts = shifts * len(axis_list)
    out = data
    for s, a in zip(shifts, axis_list):
        if data.shape[a]:
            out = np.roll(out, s, axis=a)
    return [np.array(out)]


def _source(o: int, n: int, mode: str) -> int | None:
    """The input index output index ``o`` (shifted by pads_begin) reads, None: the pad value."""
    if 0 <= o < n:
        return o
    if mode == "constant":
        return None
    if mode == "edge":
        return 0 if o < 0 else n - 1
    if mode == "reflect":
        return -o if o < 0 else 2 * n - 2 - o
    return -o - 1 if o < 0 else 2 * n - 1 - o


def ref_pad(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, begins, ends = x[0], [int(v) for v in x[1]], [int(v) for v in x[2]]
    value = x[3] if len(x) > 3 else np.zeros((), data.dtype)
    mode = attrs.get("pad_mode", "constant")
    out_shape = tuple(n + b + e for n, b, e in zip(data.shape, begins, ends))
    out = np.empty(out_shape, data.dtype)
    for pos in np.ndindex(*out_shape):
        src = [_source(o - b, n, mode) for o, b, n in zip(pos, begins, data.shape)]
        out[pos] = value if None in src else data[tuple(src)]
    return [out]


def ref_tile(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    return [np.tile(x[0], [max(int(v), 0) for v in x[1]])]  # a negative count repeats nothing, as OpenVINO does


BF16 = ml_dtypes.bfloat16


def ref_gather_nd(version: int):
    def ref(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
        data, indices = x
        b = int(attrs.get("batch_dims", 0))
        k = indices.shape[-1]
        out = np.empty(indices.shape[:-1] + data.shape[b + k:], data.dtype)
        for pos in np.ndindex(*indices.shape[:-1]):
            tup = tuple(int(v) for v in indices[pos])
            out[pos] = data[pos[:b] + tup]  # negative entries count from the end
        if version == 5 and b:
            out = out.reshape((math.prod(out.shape[:b]),) + out.shape[b:])
        return [out]
    return ref


def ref_scatter_update(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, indices, updates, axis = x
    a = int(np.asarray(axis).reshape(-1)[0]) % data.ndim
    out = data.copy()
    for pos in np.ndindex(*indices.shape):
        i = int(indices[pos])
        for lead in np.ndindex(*data.shape[:a]):
            out[lead + (i,)] = updates[lead + pos]
    return [out]


def ref_scatter_elements(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, indices, updates, axis = x
    a = int(axis) % data.ndim
    red = attrs.get("reduction", "none")
    init = attrs.get("use_init_val", True)
    out = data.copy()
    acc: dict[tuple[int, ...], list[Any]] = {}
    for pos in np.ndindex(*indices.shape):
        target = list(pos)
        target[a] = int(indices[pos]) % data.shape[a]
        acc.setdefault(tuple(target), []).append(updates[pos])
    for t, vals in acc.items():
        if red == "none":
            out[t] = vals[-1]
            continue
        items = ([data[t]] if init else []) + vals
        if red == "mean":
            if data.dtype.kind in "iu":
                total = sum(int(v) for v in items)
                out[t] = abs(total) // len(items) * (1 if total >= 0 else -1)  # truncated toward zero
            else:
                out[t] = sum(float(v) for v in items) / len(items)
            continue
        r = items[0]
        for v in items[1:]:
            r = {"sum": lambda p, q: p + q, "prod": lambda p, q: p * q, "min": min, "max": max}[red](r, v)
        out[t] = r
    return [out]


def ref_scatter_nd(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, indices, updates = x
    red = attrs.get("reduction", "none")
    out = data.copy()
    ops = {"none": lambda p, q: q, "sum": lambda p, q: p + q, "sub": lambda p, q: p - q, "prod": lambda p, q: p * q,
           "min": np.minimum, "max": np.maximum}
    if out.dtype == bool:
        ops.update({"sum": np.logical_or, "sub": np.logical_xor, "prod": np.logical_and})
    for pos in np.ndindex(*indices.shape[:-1]):
        t = tuple(int(v) for v in indices[pos])
        with np.errstate(over="ignore"):
            out[t] = ops[red](out[t], updates[pos])
    return [out]


def ref_strided_slice(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, begin, end = x[0], [int(v) for v in x[1]], [int(v) for v in x[2]]
    stride = [int(v) for v in x[3]] if len(x) > 3 else [1] * len(begin)

    def bit(name: str, i: int) -> bool:
        m = attrs.get(name, ())
        return i < len(m) and int(m[i]) == 1

    index: list[Any] = []
    for i in range(len(begin)):
        if bit("ellipsis_mask", i):
            index.append(...)
        elif bit("new_axis_mask", i):
            index.append(None)
        elif bit("shrink_axis_mask", i):
            index.append(begin[i])
        else:
            index.append(slice(None if bit("begin_mask", i) else begin[i], None if bit("end_mask", i) else end[i], stride[i]))
    return [np.ascontiguousarray(data[tuple(index)])]


def ref_broadcast(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, target = x[0], [int(v) for v in x[1]]
    mode = attrs.get("mode", "numpy")
    if mode == "bidirectional":
        return [data * np.ones(target, data.dtype) if data.dtype != bool else np.logical_and(data, np.ones(target, bool))]
    if mode == "explicit":
        view = [1] * len(target)
        for k, a in enumerate(x[2]):
            view[int(a)] = data.shape[k]
        data = data.reshape(view)
    return [np.broadcast_to(data, target).copy()]


def ref_transpose(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    order = [int(v) for v in x[1]]
    return [np.transpose(x[0], order or None).copy()]


def ref_slice(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data = x[0]
    start, stop, step = ([int(v) for v in a] for a in x[1:4])
    axes = [int(v) for v in x[4]] if len(x) > 4 else list(range(len(start)))
    index = [slice(None)] * data.ndim
    big = 1 << 40
    for s, e, t, a in zip(start, stop, step, axes):
        index[a] = slice(max(min(s, big), -big), max(min(e, big), -big), t)
    return [data[tuple(index)].copy()]


def ref_vsplit(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, axis, lengths = x[0], int(np.asarray(x[1]).reshape(-1)[0]), [int(v) for v in x[2]]
    dim = data.shape[axis]
    if -1 in lengths:
        lengths[lengths.index(-1)] = dim - (sum(lengths) + 1)
    return [p.copy() for p in np.split(data, np.cumsum(lengths)[:-1], axis=axis)]


def ref_gather_elements(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, idx = x
    axis = attrs["axis"] % data.ndim
    idx = np.where(idx < 0, idx + data.shape[axis], idx)
    return [np.take_along_axis(data, idx.astype(np.int64), axis)]


def ref_select(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    c, a, b = x
    return [np.where(c, a, b).astype(a.dtype)]


def ref_reverse(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, axis = x
    if attrs["mode"] == "mask":
        flipped = {a for a, on in enumerate(axis.tolist()) if on}
    else:
        flipped = {int(a) % data.ndim for a in axis.tolist()}
    out = np.empty_like(data)
    for pos in np.ndindex(*data.shape):
        out[pos] = data[tuple(data.shape[a] - 1 - p if a in flipped else p for a, p in enumerate(pos))]
    return [out]


def ref_depth_to_space(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data = x[0]
    bs = attrs.get("block_size", 1)
    n, c, *space = data.shape
    k = len(space)
    cc = c // bs**k
    out = np.empty((n, cc, *(d * bs for d in space)), data.dtype)
    for pos in np.ndindex(*out.shape):
        b, rest = pos[0], pos[2:]
        block = tuple(p % bs for p in rest)
        flat = int(np.ravel_multi_index(block, (bs,) * k)) if k else 0
        src_c = flat * cc + pos[1] if attrs["mode"] == "blocks_first" else pos[1] * bs**k + flat
        out[pos] = data[(b, src_c) + tuple(p // bs for p in rest)]
    return [out]


def ref_space_to_depth(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data = x[0]
    bs = attrs.get("block_size", 1)
    n, c, *space = data.shape
    k = len(space)
    out = np.empty((n, c * bs**k, *(d // bs for d in space)), data.dtype)
    for pos in np.ndindex(*data.shape):
        rest = pos[2:]
        block = tuple(p % bs for p in rest)
        flat = int(np.ravel_multi_index(block, (bs,) * k)) if k else 0
        dst_c = flat * c + pos[1] if attrs["mode"] == "blocks_first" else pos[1] * bs**k + flat
        out[(pos[0], dst_c) + tuple(p // bs for p in rest)] = data[pos]
    return [out]


def ref_shuffle(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data = x[0]
    axis, group = attrs.get("axis", 1) % data.ndim, attrs.get("group", 1)
    n = data.shape[axis]
    out = np.empty_like(data)
    for pos in np.ndindex(*data.shape):
        i = pos[axis]
        src = (i % group) * (n // group) + i // group  # output i = j * group + g reads input g * (n/group) + j
        out[pos] = data[pos[:axis] + (src,) + pos[axis + 1 :]]
    return [out]


def ref_batch_to_space(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, block, begin, end = x[0], [int(v) for v in x[1]], [int(v) for v in x[2]], [int(v) for v in x[3]]
    batch, *space = data.shape
    small = batch // int(np.prod(block))
    full = [d * b for d, b in zip(space, block[1:])]
    out_shape = (small, *(f - b - e for f, b, e in zip(full, begin[1:], end[1:])))
    out = np.empty(out_shape, data.dtype)
    for pos in np.ndindex(*out_shape):
        # output position p (before cropping) of dim i is block offset p % B_i of input position p // B_i;
        # the block offsets, in row-major order over B_1..B_k, select the batch group
        full_pos = [p + b for p, b in zip(pos[1:], begin[1:])]
        offsets = [p % b for p, b in zip(full_pos, block[1:])]
        group = int(np.ravel_multi_index(offsets, block[1:])) if offsets else 0
        out[pos] = data[(group * small + pos[0], *(p // b for p, b in zip(full_pos, block[1:])))]
    return [out]


def ref_space_to_batch(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, block, begin, end = x[0], [int(v) for v in x[1]], [int(v) for v in x[2]], [int(v) for v in x[3]]
    batch, *space = data.shape
    padded = [d + b + e for d, b, e in zip(space, begin[1:], end[1:])]
    small = [p // b for p, b in zip(padded, block[1:])]
    out = np.zeros((batch * int(np.prod(block)), *small), data.dtype)
    for pos in np.ndindex(*out.shape):
        group, n = divmod(pos[0], batch)
        offsets = np.unravel_index(group, block[1:]) if block[1:] else ()
        src = [p * b + o - pb for p, b, o, pb in zip(pos[1:], block[1:], offsets, begin[1:])]
        if all(0 <= s < d for s, d in zip(src, space)):
            out[pos] = data[(n, *src)]
    return [out]


def _pad_before(size: int, stride: int, extent: int, mode: str) -> int:
    if mode == "valid":
        return 0
    total = (math.ceil(size / stride) - 1) * stride + extent - size
    if not 0 < total < extent:
        return 0
    return total // 2 + (total % 2 if mode == "same_lower" else 0)


def ref_extract_image_patches(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data = x[0]
    (kh, kw), (sh, sw), (rh, rw) = (attrs[k] for k in ("sizes", "strides", "rates"))
    mode = attrs["auto_pad"]
    n, c, h, w = data.shape
    eh, ew = rh * (kh - 1) + 1, rw * (kw - 1) + 1
    oh = max(0, math.ceil((h - (eh - 1)) / sh)) if mode == "valid" else math.ceil(h / sh)
    ow = max(0, math.ceil((w - (ew - 1)) / sw)) if mode == "valid" else math.ceil(w / sw)
    top, left = _pad_before(h, sh, eh, mode), _pad_before(w, sw, ew, mode)
    out = np.zeros((n, c * kh * kw, oh, ow), data.dtype)
    for b, y, z, i, j, ch in np.ndindex(n, oh, ow, kh, kw, c):
        row, col = y * sh - top + i * rh, z * sw - left + j * rw
        if 0 <= row < h and 0 <= col < w:
            out[b, (i * kw + j) * c + ch, y, z] = data[b, ch, row, col]
    return [out]


def attrs(sizes: tuple[int, int], strides: tuple[int, int], rates: tuple[int, int], pad: str) -> dict[str, Any]:
    return {"sizes": sizes, "strides": strides, "rates": rates, "auto_pad": pad}


def element_gather(data: np.ndarray, indices: np.ndarray, axis: int, batch_dims: int) -> np.ndarray:
    """The spec formula, one output element at a time:
    output[p_0..p_{axis-1}, i_b..i_{M-1}, p_{axis+1}..] =
        data[p_0..p_{axis-1}, indices[p_0..p_{b-1}, i_b..i_{M-1}], p_{axis+1}..]
    with negative indices counted from the end and out-of-range ones giving 0."""
    rank = data.ndim
    axis = axis + rank if axis < 0 else axis
    b = batch_dims + indices.ndim if batch_dims < 0 else batch_dims
    out_shape = data.shape[:axis] + indices.shape[b:] + data.shape[axis + 1:]
    out = np.zeros(out_shape, data.dtype)
    dim = data.shape[axis]
    taken = indices.ndim - b
    for pos in np.ndindex(*out_shape):
        before, picked, after = pos[:axis], pos[axis:axis + taken], pos[axis + taken:]
        raw = indices[before[:b] + picked]
        k = int(np.trunc(float(raw))) if indices.dtype.kind not in "iu" else int(raw)
        if k < 0:
            k += dim
        if 0 <= k < dim:
            out[pos] = data[before + (k,) + after]
    return out


def element_reverse_sequence(data: np.ndarray, lengths: list[float], batch_axis: int, seq_axis: int) -> np.ndarray:
    """One element at a time on the raw bits: position s < L of batch b reads L-1-s."""
    bits = np.ascontiguousarray(data).reshape(-1).view(f"u{data.itemsize}").reshape(data.shape)
    batch, seq = batch_axis % data.ndim, seq_axis % data.ndim
    out = np.empty_like(bits)
    for idx in np.ndindex(*data.shape):
        length = max(int(lengths[idx[batch]]), 1)  # int() truncates toward zero; 0 means 1
        src = list(idx)
        if idx[seq] < length:
            src[seq] = length - 1 - idx[seq]
        out[idx] = bits[tuple(src)]
    return out


def element_roll(data: np.ndarray, shift: list[int], axes: list[int]) -> np.ndarray:
    """out[i] = data[i - total shift] per axis, one element at a time, on the raw bits."""
    bits = np.ascontiguousarray(data).reshape(-1).view(f"u{data.itemsize}").reshape(data.shape)
    rank = data.ndim
    totals = [0] * rank
    for k, axis in enumerate(axes):
        totals[axis % rank] += shift[0] if len(shift) == 1 else shift[k]
    out = np.empty_like(bits)
    for idx in np.ndindex(*data.shape):
        src = tuple((i - t) % n for i, t, n in zip(idx, totals, data.shape))
        out[idx] = bits[src]
    return out
