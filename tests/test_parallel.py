"""The thread pool kernels fill big outputs from, and the kernels that use it
(Roll, Gather): the same bits on one thread and on several, for contiguous,
strided and zero-size inputs."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from irexec.kernels import windows
from irexec.kernels.windows import conv_nd
from irexec.ops.framework.registry import resolve
from irexec.ops.movement import gather as gather_module
from irexec.ops.movement import roll as roll_module
from irexec.ops.movement.roll import Roll7
from irexec.ops.movement.transpose import Transpose1
from irexec.system import parallel


@pytest.mark.parametrize("n, parts", [(0, 3), (1, 4), (7, 3), (8, 8), (5, 1), (100, 7), (3, 10)])
def test_spans_cover_the_range_in_order_without_empty_ones(n, parts):
    spans = parallel.spans(n, parts)
    assert [i for lo, hi in spans for i in range(lo, hi)] == list(range(n))
    assert all(hi > lo for lo, hi in spans) and len(spans) == min(max(parts, 1), n)
    sizes = [hi - lo for lo, hi in spans]
    assert not sizes or max(sizes) - min(sizes) <= 1


@pytest.mark.parametrize("raw, want", [("3", 3), ("1", 1), ("0", 1), ("-2", 1), ("1000", parallel.MAX_THREADS)])
def test_thread_count_from_the_environment(monkeypatch, raw, want):
    monkeypatch.setenv(parallel.ENV_VAR, raw)
    assert parallel.num_threads() == want


def test_malformed_thread_count_falls_back_to_the_default(monkeypatch):
    monkeypatch.delenv(parallel.ENV_VAR, raising=False)
    default = parallel.num_threads()
    assert 1 <= default <= parallel.MAX_THREADS
    monkeypatch.setenv(parallel.ENV_VAR, "many")
    assert parallel.num_threads() == default


def test_small_outputs_and_one_thread_stay_on_the_calling_thread(monkeypatch):
    monkeypatch.setenv(parallel.ENV_VAR, "2")
    assert parallel.pieces(parallel.MIN_PARALLEL_BYTES - 1) == 1
    assert parallel.pieces(64 << 20) == 2 * parallel.PIECES_PER_THREAD
    monkeypatch.setenv(parallel.ENV_VAR, "1")
    assert parallel.pieces(64 << 20) == 1


def test_tasks_run_concurrently(monkeypatch):
    monkeypatch.setenv(parallel.ENV_VAR, "2")
    barrier = threading.Barrier(2, timeout=30)  # passes only if both tasks run at once
    names: list[str] = []

    def task() -> None:
        barrier.wait()
        names.append(threading.current_thread().name)

    parallel.run([task, task], 1 << 30)
    assert len(set(names)) == 2


def test_every_task_finishes_before_the_first_error_is_raised(monkeypatch):
    monkeypatch.setenv(parallel.ENV_VAR, "2")
    done: list[int] = []

    def task(k: int) -> None:
        if k in (1, 5):
            raise ValueError(f"task {k}")
        done.append(k)

    with pytest.raises(ValueError, match="task [15]"):
        parallel.run([lambda k=k: task(k) for k in range(8)], 1 << 30)
    assert sorted(done) == [0, 2, 3, 4, 6, 7]


def test_a_task_that_runs_tasks_does_them_itself(monkeypatch):
    monkeypatch.setenv(parallel.ENV_VAR, "2")
    monkeypatch.setattr(parallel, "MIN_PARALLEL_BYTES", 0)
    seen: list[int] = []

    def outer(k: int) -> None:
        assert parallel.pieces(1 << 30) == 1  # no second level of pieces inside a piece
        parallel.run([lambda j=j: seen.append(10 * k + j) for j in range(3)], 1 << 30)

    parallel.run([lambda k=k: outer(k) for k in range(4)], 1 << 30)
    assert sorted(seen) == [10 * k + j for k in range(4) for j in range(3)]


# ------------------------------------------------------------------ kernels


def force_pieces(mp: pytest.MonkeyPatch, threads: str) -> None:
    """Cut even tiny outputs into many pieces, on ``threads`` threads."""
    mp.setenv(parallel.ENV_VAR, threads)
    mp.setattr(parallel, "MIN_PARALLEL_BYTES", 0)
    mp.setattr(parallel, "MIN_PIECE_BYTES", 1)
    mp.setattr(parallel, "PIECES_PER_THREAD", 16)
    mp.setattr(roll_module, "_TILED_ROW_BYTES", 1 << 62)


def inputs() -> list[np.ndarray]:
    data = np.random.default_rng(7).integers(-1000, 1000, (3, 5, 7, 6)).astype(np.int32)
    return [data, np.asfortranarray(data), data[:, ::-1, :, 1::2], data.transpose(2, 0, 3, 1)]


def batch_indices(x: np.ndarray) -> np.ndarray:
    """Four picks along axis 1 per batch of axis 0."""
    return np.arange(x.shape[0] * 4).reshape(-1, 4) % max(x.shape[1], 1)


def depthwise(x: np.ndarray, multiplier: int = 1) -> np.ndarray:
    """A depthwise 3x2 convolution (stride 2,1, dilation 1,2, pads 1,0 / 1,1),
    integer so that any change of summation order would show."""
    c = x.shape[1]
    w = (np.arange(c * multiplier * 6).reshape(c, multiplier, 1, 3, 2) % 7 - 3).astype(x.dtype)
    out = [max(0, (x.shape[2] + 2 - 3) // 2 + 1), max(0, x.shape[3] + 1 - 3 + 1)]
    return conv_nd(x, w, c, (2, 1), (1, 2), out, x.dtype, ((1, 0), (1, 1)))


KERNELS = {
    "depthwise-channels-first": depthwise,
    "depthwise-channels-last": lambda x: depthwise(np.repeat(x, -(-windows.CHANNELS_LAST_FROM // max(x.shape[1], 1)), axis=1)),
    "depthwise-multiplier": lambda x: depthwise(x, 2),
    "roll-1-axis": lambda x: Roll7().run(x, np.array([2]), np.array([1]))[0],
    "roll-last-axes": lambda x: Roll7().run(x, np.array([-3, 4]), np.array([2, 3]))[0],
    "roll-every-axis": lambda x: Roll7().run(x, np.array([1]), np.array([0, 1, 2, 3]))[0],
    "gather-axis0": lambda x: gather_module.gather(x, np.array([2, 0, 0, 1, 2]), 0, 0),
    "gather-axis2": lambda x: gather_module.gather(x, np.array([[6, 0], [-1, 3]]), 2, 0),
    "gather-batch_dims1": lambda x: gather_module.gather(x, batch_indices(x), 1, 1),
    "transpose-channels-last": lambda x: Transpose1().run(x, np.array([0, 2, 3, 1]))[0],
    "transpose-reversed": lambda x: Transpose1().run(x, np.array([3, 2, 1, 0]))[0],
    "maxpool-ceil": lambda x: max_pool(x),
    "maxpool-nan": lambda x: max_pool(with_nan(x)),
    "relu-f32": lambda x: single_op("ReLU", "opset1")(with_nan(x))[0],
    "maximum-bound-f32": lambda x: single_op("Maximum", "opset1")(with_nan(x), np.float32(-0.0))[0],
    "minimum-f32": lambda x: single_op("Minimum", "opset1")(with_nan(x), with_nan(x)[::-1].copy())[0],
}


def single_op(op_type: str, version: str, **attrs: str):
    return resolve(op_type, version).build(None, attrs)[0].run


def with_nan(x: np.ndarray) -> np.ndarray:
    """``x`` as f32 around zero, with a NaN in it when it has elements."""
    y = (x.astype(np.float32) - 500) / 7
    if y.size:
        y.reshape(-1)[y.size // 3] = np.nan
    return y


def max_pool(x: np.ndarray) -> np.ndarray:
    return single_op("MaxPool", "opset1", kernel="3,3", strides="2,2", pads_begin="0,1", pads_end="0,0",
                     rounding_type="ceil")(x)[0]


@pytest.mark.parametrize("kernel", list(KERNELS))
@pytest.mark.parametrize("threads", ["1", "2"])
def test_pieces_give_the_single_threaded_bits(monkeypatch, kernel, threads):
    compute = KERNELS[kernel]
    for data in inputs():
        want = compute(data)  # defaults: tiny tensors stay whole
        with pytest.MonkeyPatch.context() as mp:
            force_pieces(mp, threads)
            got = compute(data)
        assert got.dtype == want.dtype and got.shape == want.shape
        assert got.tobytes() == want.tobytes(), (kernel, data.strides)


@pytest.mark.parametrize("shape", [(0, 5, 7, 6), (3, 0, 7, 6), (3, 5, 7, 0)])
@pytest.mark.parametrize("kernel", [k for k in KERNELS if not k.startswith("maxpool")])  # pooling refuses them
def test_pieces_of_zero_size_tensors(kernel, shape):
    data = np.zeros(shape, np.float32)
    for view in (data, np.asfortranarray(data)):
        want = KERNELS[kernel](view)
        with pytest.MonkeyPatch.context() as mp:
            force_pieces(mp, "2")
            got = KERNELS[kernel](view)
        assert got.shape == want.shape and got.tobytes() == want.tobytes()


def test_a_large_tensor_takes_the_threaded_path_by_default(monkeypatch):
    data = np.random.default_rng(1).standard_normal((4, 64, 64, 64), dtype=np.float32)  # 4 MiB
    assert data.nbytes >= parallel.MIN_PARALLEL_BYTES
    results = {}
    for threads in ("1", "2"):
        monkeypatch.setenv(parallel.ENV_VAR, threads)
        results[threads] = [
            Roll7().run(data, np.array([5, 7]), np.array([2, 3]))[0],
            gather_module.gather(data, np.arange(64)[::-1], 1, 0),
            gather_module.gather(data, np.arange(64)[::-1], 3, 0),
        ]
    assert np.array_equal(results["1"][0], np.roll(data, (5, 7), (2, 3)))
    assert np.array_equal(results["1"][1], data[:, ::-1])
    for one, two in zip(*results.values()):
        assert one.tobytes() == two.tobytes()


@pytest.mark.parametrize("channels, filters, side", [(512, 1000, 13), (64, 16, 96)])
def test_a_big_pointwise_convolution_splits_along_its_longer_side(monkeypatch, channels, filters, side):
    """Many filters on a small map split the product by filters, few filters on
    a big map by positions; either way each output is the whole dot product."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, channels, side, side), dtype=np.float32)
    w = rng.standard_normal((1, filters, channels, 1, 1), dtype=np.float32)
    assert filters * channels * side * side >= 2 * windows.MIN_PARALLEL_MACS  # big enough to split
    want = np.einsum("oc,nchw->nohw", w[0, :, :, 0, 0].astype(np.float64), x.astype(np.float64))
    calls: list[tuple[int, ...]] = []
    matmul = np.matmul

    def spy(a, b, out=None):
        calls.append((a.shape[-2], b.shape[-1]))
        return matmul(a, b, out=out)

    monkeypatch.setattr(windows.np, "matmul", spy)
    for threads in ("1", "2"):
        monkeypatch.setenv(parallel.ENV_VAR, threads)
        calls.clear()
        got = conv_nd(x, w, 1, (1, 1), (1, 1), (side, side), np.dtype(np.float32), ((0, 0), (0, 0)))
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.abs(want).max())
        if threads == "2":
            assert len(calls) > 1
            split_filters = {rows for rows, _ in calls} != {filters}
            assert split_filters == (filters > side * side), calls
