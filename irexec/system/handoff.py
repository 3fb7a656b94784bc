"""A fork and join for a few compute-bound pieces, cheaper than the pool's.

``parallel.run`` hands its pieces to a ``ThreadPoolExecutor``: a future, a condition and
a queue entry a piece, and a wait on the future to join, about 30 us a call on a 2-CPU
host, and about 75 us in a prefill's products (benchmarks/README.md, "The prefill's
products"), about a third of a [576, 576] product by 32 rows.  Here each helper
thread waits on a lock of its own, the caller releases it to start the helper and takes
the helper's other lock to join: two lock handoffs, about 12 us.  The pieces are
drained from one list by the caller and the helpers alike, as ``parallel.run`` does, so
a thread slowed by other load leaves its share to the others.

One fork at a time: a caller that finds the helpers busy (another thread's product)
runs its pieces itself, as does a piece that forks again.

    IREXEC_NUM_THREADS=1    # never use more than the calling thread (parallel.py)
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence

from . import parallel


class _Helper:
    """A thread that runs one job each time ``go`` is released, then releases ``done``."""

    __slots__ = ("go", "done", "job")

    def __init__(self) -> None:
        self.go, self.done = threading.Lock(), threading.Lock()
        self.go.acquire()
        self.done.acquire()
        self.job: Callable[[], None] | None = None
        threading.Thread(target=self._serve, name="irexec-handoff", daemon=True).start()

    def _serve(self) -> None:
        _local.inside = True
        while True:
            self.go.acquire()
            job, self.job = self.job, None
            try:
                if job is not None:
                    job()
            finally:
                self.done.release()


_helpers: list[_Helper] = []
_in_use = threading.Lock()
_local = threading.local()  # .inside: a helper thread, or the caller while it drains


def run(tasks: Sequence[Callable[[], object]]) -> None:
    """Run independent tasks on the calling thread and up to ``num_threads() - 1``
    helpers, and return when all are done; the first exception is raised again once
    every task has finished or failed."""
    threads = min(parallel.num_threads(), len(tasks))
    if threads <= 1 or getattr(_local, "inside", False) or not _in_use.acquire(blocking=False):
        for task in tasks:
            task()
        return
    errors: list[BaseException] = []
    try:
        while len(_helpers) < threads - 1:
            _helpers.append(_Helper())
        queue = iter(tasks)

        def drain() -> None:
            while (task := next(queue, None)) is not None:  # one list iterator: each task taken once
                try:
                    task()
                except BaseException as exc:  # noqa: BLE001 - handed to the caller below
                    errors.append(exc)

        started = _helpers[:threads - 1]
        for helper in started:
            helper.job = drain
            helper.go.release()
        _local.inside = True
        try:
            drain()
        finally:
            _local.inside = False
            try:
                for helper in started:
                    helper.done.acquire()
            except BaseException:
                # interrupted while a helper still runs: it is never handed another job
                _helpers.clear()
                raise
    finally:
        _in_use.release()
    if errors:
        raise errors[0]


def _forget_helpers() -> None:
    # a forked child has none of the parent's threads: it starts its own when it needs them
    global _in_use
    _helpers.clear()
    _in_use = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_helpers)
