"""The fork and join of the products' pieces (irexec/system/handoff.py): every task once,
on the helpers as well as the caller, errors raised after all have run, nested and
concurrent callers served on their own thread, a forked child served too; and the
compressed product of many rows gives the same bits whichever threads run its blocks."""

from __future__ import annotations

import multiprocessing
import threading
import time

import numpy as np
import pytest

from irexec.system import handoff, parallel


@pytest.fixture
def two_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(parallel.ENV_VAR, "2")


def test_every_task_runs_once_and_the_helper_takes_some(two_threads):
    # the first two tasks wait for each other: one thread alone would break the barrier
    barrier = threading.Barrier(2, timeout=10)
    done: list[tuple[int, int]] = []

    def task(i: int) -> None:
        if i < 2:
            barrier.wait()
        done.append((i, threading.get_ident()))

    for _ in range(20):
        done.clear()
        barrier.reset()
        handoff.run([lambda i=i: task(i) for i in range(9)])
        assert sorted(i for i, _ in done) == list(range(9))
        assert len({ident for _, ident in done}) == 2


def test_one_thread_runs_everything_on_the_caller(monkeypatch):
    monkeypatch.setenv(parallel.ENV_VAR, "1")
    idents: list[int] = []
    handoff.run([lambda: idents.append(threading.get_ident()) for _ in range(5)])
    assert idents == [threading.get_ident()] * 5


def test_the_first_error_is_raised_after_every_task_has_run(two_threads):
    ran: list[int] = []

    def task(i: int) -> None:
        time.sleep(0.002)
        ran.append(i)
        if i in (1, 4):
            raise ValueError(f"task {i}")

    with pytest.raises(ValueError, match="task [14]"):
        handoff.run([lambda i=i: task(i) for i in range(6)])
    assert sorted(ran) == list(range(6))
    handoff.run([lambda: ran.append(9)] * 2)  # the helper still serves after an error
    assert ran.count(9) == 2


def test_a_task_that_forks_again_runs_its_tasks_itself(two_threads):
    seen: list[tuple[int, int]] = []

    def outer(k: int) -> None:
        me = threading.get_ident()
        handoff.run([lambda j=j: seen.append((k, j)) if threading.get_ident() == me else None for j in range(3)])

    handoff.run([lambda k=k: outer(k) for k in range(4)])
    assert sorted(seen) == [(k, j) for k in range(4) for j in range(3)]


def test_concurrent_callers_each_get_all_their_tasks_run(two_threads):
    counts = [0] * 4
    lock = threading.Lock()

    def bump(slot: int) -> None:
        with lock:
            counts[slot] += 1

    def caller(slot: int) -> None:
        for _ in range(200):
            handoff.run([lambda: bump(slot)] * 3)

    threads = [threading.Thread(target=caller, args=(slot,)) for slot in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads)
    assert counts == [600] * 4


def _in_child(queue) -> None:
    out: list[int] = []
    handoff.run([lambda i=i: out.append(i) for i in range(6)])
    queue.put(sorted(out))


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="no fork on this platform")
def test_a_forked_child_starts_its_own_helpers(two_threads):
    handoff.run([lambda: None] * 2)  # the parent's helper exists before the fork
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_in_child, args=(queue,))
    child.start()
    child.join(timeout=60)
    assert child.exitcode == 0
    assert queue.get(timeout=5) == list(range(6))


@pytest.mark.parametrize("bits, groups", [(8, 1), (4, 9)], ids=["u8-per-row", "u4-groups"])
def test_a_prefill_product_gives_the_same_bits_whichever_threads_run_its_blocks(monkeypatch, two_threads, bits, groups):
    pytest.importorskip("numba")
    from irexec.kernels import compressed_linear
    from irexec.kernels.compressed_linear import CompressedWeight

    monkeypatch.setattr(compressed_linear, "BLOCK_BYTES", 64 << 10)  # 28 rows a block: many blocks
    rng = np.random.default_rng(bits)
    n, k = 2048, 576
    q = rng.integers(0, 256, (n, k * bits // 8), dtype=np.uint8)
    zero = rng.integers(0, 1 << bits, (n, groups)).astype(np.float32)
    scale = rng.uniform(1e-3, 1e-1, (n, groups)).astype(np.float32)
    weight = CompressedWeight(q, bits, zero, scale)
    a = (rng.standard_normal((32, k)) * 10.0 ** rng.uniform(-3, 3, (32, k))).astype(np.float32)
    tasks: list[int] = []
    real = handoff.run
    monkeypatch.setattr(handoff, "run", lambda ts: tasks.append(len(ts)) or real(ts))
    shared = weight.product(a, any_rows=True)
    # the same tasks on the calling thread alone, in reverse order
    monkeypatch.setattr(handoff, "run", lambda ts: [t() for t in reversed(ts)] and None)
    alone = weight.product(a, any_rows=True)
    assert tasks and tasks[0] > parallel.num_threads() * 2  # handed out a few blocks at a time
    assert shared is not None and alone is not None and shared.tobytes() == alone.tobytes()
    values = q.astype(np.float32) if bits == 8 else np.stack([q & 15, q >> 4], -1).reshape(n, k).astype(np.float32)
    full = ((values.reshape(n, groups, -1) - zero[:, :, None]) * scale[:, :, None]).reshape(n, k).astype(np.float64)
    expected = a.astype(np.float64) @ full.T
    bound = (k + 1) * 2.0 ** -24 * (np.abs(a).astype(np.float64) @ np.abs(full).T)
    assert (np.abs(shared - expected) <= bound).all()
