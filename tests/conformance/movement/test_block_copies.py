"""The block-copy kernels behind Transpose, Pad, Slice, StridedSlice and
Concat: every path (plain, threaded parts, tiles through the scratch buffer)
on small tensors with the size thresholds lowered, bit for bit against NumPy."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irexec.kernels import blocks
from irexec.ops.movement.concat import Concat1
from irexec.ops.movement.pad_tile import Pad12
from irexec.ops.movement.slice import Slice8
from irexec.ops.movement.strided_slice import StridedSlice1
from irexec.ops.movement.transpose import Transpose1
from irexec.system import parallel

# Thresholds lowered so that small tensors take each path.
PATHS = {
    "plain": {parallel.ENV_VAR: "1"},
    "threaded": {parallel.ENV_VAR: "2", "_SMALL_BYTES": -1, "MIN_PARALLEL_BYTES": 0, "MIN_PIECE_BYTES": 1,
                 "_MIN_TILE_SIDE": 1 << 62},
    "tiles": {parallel.ENV_VAR: "1", "_SMALL_BYTES": -1, "_MIN_TILE_SIDE": 1, "_CACHED_BYTES": 0, "_TILE_BYTES": 24, "_TILE_COLS": 3,
              "_GROUP_BYTES": 1},
    # groups of several tiles per call, with a short last tile
    "tile-groups-threaded": {parallel.ENV_VAR: "2", "_SMALL_BYTES": -1, "MIN_PARALLEL_BYTES": 0, "MIN_PIECE_BYTES": 1,
                             "_MIN_TILE_SIDE": 1, "_CACHED_BYTES": 0, "_TILE_BYTES": 40, "_TILE_COLS": 2, "_GROUP_BYTES": 200},
    # whole small blocks, several along another axis per call
    "tile-batches": {parallel.ENV_VAR: "1", "_SMALL_BYTES": -1, "_MIN_TILE_SIDE": 1, "_CACHED_BYTES": 0, "_TILE_BYTES": 40, "_TILE_COLS": 2,
                     "_GROUP_BYTES": 2000},
}
DTYPES = [np.float32, np.int8, np.float16, np.int64, np.bool_, np.complex64]


def apply_path(mp: pytest.MonkeyPatch, path: str) -> None:
    for name, value in PATHS[path].items():
        if name == parallel.ENV_VAR:
            mp.setenv(name, value)
        else:
            mp.setattr(parallel if hasattr(parallel, name) else blocks, name, value)


@st.composite
def views(draw: st.DrawFn) -> np.ndarray:
    """A permuted, possibly reversed and strided view of a random array."""
    shape = draw(st.lists(st.integers(1, 7), min_size=1, max_size=5))
    dtype = draw(st.sampled_from(DTYPES))
    seed = draw(st.integers(0, 2**32 - 1))
    data = np.random.default_rng(seed).integers(0, 256, size=int(np.prod(shape)) * np.dtype(dtype).itemsize,
                                                dtype=np.uint8).view(dtype).reshape(shape)
    window = tuple(draw(st.sampled_from([slice(None), slice(None, None, -1), slice(None, None, 2), slice(1, None)]))
                   for _ in shape)
    perm = draw(st.permutations(range(len(shape))))
    return data[window].transpose(perm)


@pytest.mark.parametrize("path", list(PATHS))
@settings(max_examples=150, deadline=None)
@given(view=views())
def test_copy_parallel_matches_numpy(path, view):
    out = np.empty(view.shape, view.dtype)
    with pytest.MonkeyPatch.context() as mp:
        apply_path(mp, path)
        blocks.copy_parallel(out, view)
    assert out.tobytes() == np.ascontiguousarray(view).tobytes()


def _count_copies(monkeypatch) -> list[tuple[int, ...]]:
    """One thread, and the shape of every ``np.copyto`` destination the block copies make."""
    calls: list[tuple[int, ...]] = []
    real = np.copyto

    def counting(dst, src, **kw):
        calls.append(dst.shape)
        return real(dst, src, **kw)

    monkeypatch.setenv(parallel.ENV_VAR, "1")
    monkeypatch.setattr(blocks.np, "copyto", counting)
    return calls


@pytest.mark.parametrize(("group_bytes", "calls_wanted"), [(128 << 10, 2 * 2 * 2), (1 << 20, 2)])
def test_tiles_used_for_a_channels_last_transpose(monkeypatch, group_bytes, calls_wanted):
    """The transposed copy goes through tiles (not one strided copy) when the
    last axis moves: each group of tiles is copied twice (into and out of
    scratch), a group per call; groups of 128 KiB hold half of a batch's
    [1024, 64] block, groups of 1 MiB both batches."""
    calls = _count_copies(monkeypatch)
    monkeypatch.setattr(blocks, "_GROUP_BYTES", group_bytes)
    monkeypatch.setattr(blocks, "_CACHED_BYTES", 0)  # 512 KiB with a side of 64: else one plain copy
    x = np.arange(2 * 64 * 32 * 32, dtype=np.float32).reshape(2, 64, 32, 32)
    out = np.empty((2, 32, 32, 64), np.float32)
    blocks.copy_parallel(out, x.transpose(0, 2, 3, 1))
    assert out.tobytes() == np.ascontiguousarray(x.transpose(0, 2, 3, 1)).tobytes()
    assert len(calls) == calls_wanted
    assert all(shape[-1] in (64, blocks._TILE_BYTES // 4 // 64) for shape in calls)


@pytest.mark.parametrize(("shape", "perm", "tiled"), [
    ((1, 32, 56, 56), (0, 2, 3, 1), False), ((1, 56, 56, 32), (0, 3, 1, 2), False),  # ConvNeXt's, in the cache
    ((1, 256, 28, 28), (0, 2, 3, 1), True),  # a side of 256: tiles
    ((1, 64, 112, 112), (0, 2, 3, 1), True)])  # 3.2 MB: tiles
def test_a_transpose_in_the_cache_is_one_plain_copy(monkeypatch, shape, perm, tiled):
    """A transposed block under _CACHED_BYTES with a side up to _CACHED_SIDE is one
    NumPy copy (no tiles, no views made); a larger one or a longer side goes by tiles."""
    calls = _count_copies(monkeypatch)
    x = np.random.default_rng(3).standard_normal(shape).astype(np.float32)
    (out,) = Transpose1().run(x, np.array(perm, np.int64))
    assert out.tobytes() == np.ascontiguousarray(x.transpose(perm)).tobytes()
    assert (len(calls) > 1) == tiled
    if not tiled:
        assert calls == [out.shape]


MODES = ["constant", "edge", "reflect", "symmetric"]


@st.composite
def pad_cases(draw: st.DrawFn) -> tuple[np.ndarray, list[int], list[int], str]:
    shape = draw(st.lists(st.integers(2, 6), min_size=1, max_size=4))
    mode = draw(st.sampled_from(MODES))
    limit = {"constant": 20, "edge": 20, "reflect": None, "symmetric": None}[mode]
    begins, ends = [], []
    for n in shape:
        top = limit if limit is not None else (n - 1 if mode == "reflect" else n)
        begins.append(draw(st.integers(0, top)))
        ends.append(draw(st.integers(0, top)))
    seed = draw(st.integers(0, 2**32 - 1))
    data = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return data, begins, ends, mode


@pytest.mark.parametrize("path", ["plain", "threaded"])
@settings(max_examples=150, deadline=None)
@given(case=pad_cases(), value=st.floats(-5, 5, width=32))
def test_pad_matches_numpy_pad(path, case, value):
    """Borders filled by slices (runs, broadcast edges, reversed mirrors) and,
    on the last axis, position by position, against np.pad."""
    data, begins, ends, mode = case
    op = Pad12(attrs={"pad_mode": mode})
    args = [data, np.array(begins, np.int64), np.array(ends, np.int64)]
    if mode == "constant":
        args.append(np.array(value, np.float32))
    with pytest.MonkeyPatch.context() as mp:
        apply_path(mp, path)
        (got,) = op.run(*args)
    widths = list(zip(begins, ends))
    want = np.pad(data, widths, constant_values=value) if mode == "constant" else np.pad(data, widths, mode=mode)
    assert got.dtype == data.dtype and got.tobytes() == want.tobytes()


def _big_movement_ops(x: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """(irexec, NumPy) results of each movement op on ``x`` (4-D), default thresholds."""
    i64 = functools.partial(np.array, dtype=np.int64)
    ones = dict.fromkeys(("begin_mask", "end_mask"), (1, 1, 1, 1))
    widths = [(0, 0), (1, 0), (2, 3), (2, 2)]
    begins, ends = i64([w[0] for w in widths]), i64([w[1] for w in widths])
    results = {
        "transpose-0231": (Transpose1().run(x, i64([0, 2, 3, 1]))[0], x.transpose(0, 2, 3, 1)),
        "transpose-3102": (Transpose1().run(x, i64([3, 1, 0, 2]))[0], x.transpose(3, 1, 0, 2)),
        "stridedslice-flip": (StridedSlice1(attrs=ones).run(x, i64([0] * 4), i64([0] * 4), i64([1, 1, -1, 1]))[0],
                              x[:, :, ::-1]),
        "slice-crop": (Slice8().run(x, i64([1, 1]), i64([-1, -1]), i64([1, 1]), i64([2, 3]))[0], x[:, :, 1:-1, 1:-1]),
        "concat-axis1": (Concat1(attrs={"axis": 1}).run(x, x[:, :3], x)[0], np.concatenate([x, x[:, :3], x], axis=1)),
    }
    for mode in MODES:
        got = Pad12(attrs={"pad_mode": mode}).run(x, begins, ends)[0]
        results[f"pad-{mode}"] = (got, np.pad(x, widths, mode=mode))
    return results


@pytest.mark.parametrize("threads", ["1", "2"])
def test_big_tensors_take_the_fast_paths_bit_exact(monkeypatch, threads):
    """4 MiB tensors (tiles, threaded parts, slab copies, border slices at the
    default thresholds) against NumPy, bit for bit, NaNs and -0.0 included."""
    monkeypatch.setenv(parallel.ENV_VAR, threads)
    x = np.random.default_rng(3).standard_normal((4, 64, 64, 64), dtype=np.float32)
    x[0, 0, 0, :4] = [np.nan, -0.0, np.inf, -np.nan]
    assert x.nbytes >= parallel.MIN_PARALLEL_BYTES
    for name, (got, want) in _big_movement_ops(x).items():
        assert got.dtype == want.dtype and got.shape == want.shape, name
        assert got.tobytes() == np.ascontiguousarray(want).tobytes(), name
