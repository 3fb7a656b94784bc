"""Splitting the data movement of big tensors across a few threads.

NumPy releases the GIL while it copies or takes, so the kernels cut the
output of a large tensor into disjoint pieces and fill them from a small
thread pool; small tensors stay on the calling thread, where a thread
hand-off would cost more than it saves.

    IREXEC_NUM_THREADS=1    # never use more than the calling thread
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor

ENV_VAR = "IREXEC_NUM_THREADS"
# Data movement is memory bound: past a few threads more only contend.
MAX_THREADS = 8
# Outputs below this many bytes are filled on the calling thread.
MIN_PARALLEL_BYTES = 2 << 20
# A piece is at least this big, and each thread gets a few pieces, so that a
# thread slowed down by other load leaves its share to the others.
MIN_PIECE_BYTES = 512 << 10
PIECES_PER_THREAD = 4

_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_pool_workers = 0
_local = threading.local()  # .busy: this thread is running pieces already
_threads: dict[str, int] = {}  # IREXEC_NUM_THREADS as set -> threads


def num_threads() -> int:
    """Threads a kernel may use: IREXEC_NUM_THREADS, else the CPUs this
    process may run on, capped at MAX_THREADS.  Asked per kernel call, so the
    answer is kept per setting (the CPU count is read once: a system call)."""
    raw = os.environ.get(ENV_VAR, "")
    found = _threads.get(raw)
    if found is None:
        found = _threads[raw] = _count_threads(raw)
    return found


def _count_threads(raw: str) -> int:
    raw = raw.strip()
    if raw:
        try:
            return max(1, min(int(raw), MAX_THREADS))
        except ValueError:
            pass  # a malformed setting falls back to the default rather than failing every run
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, MAX_THREADS))


def pieces(nbytes: int) -> int:
    """How many pieces to cut the work on an output of ``nbytes`` into;
    1 means do it on the calling thread."""
    if nbytes < MIN_PARALLEL_BYTES or getattr(_local, "busy", False):
        return 1  # small, or already inside a piece: nested pools could wait on each other
    threads = num_threads()
    if threads <= 1:
        return 1
    return max(1, min(threads * PIECES_PER_THREAD, nbytes // max(MIN_PIECE_BYTES, 1)))


def spans(n: int, parts: int) -> list[tuple[int, int]]:
    """[start, stop) of ``min(parts, n)`` nearly equal, non-empty ranges covering range(n)."""
    parts = max(1, min(parts, n))
    return [(n * k // parts, n * (k + 1) // parts) for k in range(parts)] if n else []


def run(tasks: Sequence[Callable[[], object]], nbytes: int) -> None:
    """Run independent tasks (each writes its own part of an output of
    ``nbytes``) on the pool and the calling thread, and return when all are
    done; one after the other on the calling thread if the output is small.
    The first exception is raised again once every task has finished or failed."""
    threads = 1 if len(tasks) <= 1 else min(pieces(nbytes), num_threads(), len(tasks))
    if threads <= 1:
        for task in tasks:
            task()
        return
    queue = iter(tasks)
    take = threading.Lock()
    errors: list[BaseException] = []

    def drain() -> None:
        _local.busy = True
        try:
            while True:
                with take:
                    task = next(queue, None)
                if task is None:
                    return
                try:
                    task()
                except BaseException as exc:  # noqa: BLE001 - handed to the caller below
                    errors.append(exc)
        finally:
            _local.busy = False

    futures = _start(drain, threads - 1)
    drain()
    for future in futures:
        future.result()
    if errors:
        raise errors[0]


def _start(fn: Callable[[], None], count: int) -> list[Future[None]]:
    """``fn`` started ``count`` times on the shared pool, which is created on
    first use and replaced by a bigger one if more threads are asked for.
    Submitting under the lock: no caller can hit a pool being shut down."""
    global _pool, _pool_workers
    # imported here: commands that never run a big kernel skip the import
    from concurrent.futures import ThreadPoolExecutor

    with _lock:
        if _pool is None or _pool_workers < count:
            old = _pool
            _pool, _pool_workers = ThreadPoolExecutor(count, thread_name_prefix="irexec"), count
            if old is not None:
                old.shutdown(wait=False)  # its idle threads exit; work already queued still runs
        return [_pool.submit(fn) for _ in range(count)]
