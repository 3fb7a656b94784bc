"""The thread count of the BLAS library NumPy calls for matmul.

OpenBLAS spins its threads while they wait for each other: on a busy machine
a small product split across them (a 40x240 by 240x196 one) took tens of
milliseconds instead of a fraction of one, while a big one gains nearly the
full second core (a 1000x512 by 512x169 product: 2.5 ms on two threads, 4.9
to 18 ms on one).  So a run keeps BLAS on the calling thread, and gives it
irexec's threads (``irexec.parallel.num_threads()``) for the duration of each
product of at least ``PARALLEL_MACS`` multiply-adds (``product()``).  The
previous setting is restored after the run.  Without an OpenBLAS that exposes
its thread setter this module does nothing.

    IREXEC_BLAS_THREADS=1   # every product on one thread
    IREXEC_BLAS_THREADS=4   # every product on 4 threads
    IREXEC_BLAS_THREADS=0   # leave BLAS threading alone
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import threading
from collections.abc import Iterator

ENV_VAR = "IREXEC_BLAS_THREADS"
_SETTERS = ("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads", "openblas_set_num_threads64_",
            "openblas_set_num_threads")
_GETTERS = ("scipy_openblas_get_num_threads64_", "scipy_openblas_get_num_threads", "openblas_get_num_threads64_",
            "openblas_get_num_threads")

_lock = threading.Lock()
_depth = 0  # nested or concurrent runs: only the outermost one sets and restores
_saved = 0
_api: tuple[ctypes._CFuncPtr, ctypes._CFuncPtr] | None | bool = False  # False: not looked up yet


def _loaded_blas() -> list[str]:
    """Paths of the BLAS libraries mapped into this process (NumPy's is
    loaded by the time a model runs)."""
    try:
        with open("/proc/self/maps") as f:
            paths = {line.split()[-1] for line in f if "blas" in line.lower() and "/" in line}
    except OSError:
        return []
    return sorted(paths)


def _lookup() -> tuple[ctypes._CFuncPtr, ctypes._CFuncPtr] | None:
    import numpy  # noqa: F401 - maps NumPy's BLAS into the process

    for path in _loaded_blas():
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        setter = next((getattr(lib, n) for n in _SETTERS if hasattr(lib, n)), None)
        getter = next((getattr(lib, n) for n in _GETTERS if hasattr(lib, n)), None)
        if setter is not None and getter is not None:
            setter.argtypes, setter.restype = [ctypes.c_int], None
            getter.argtypes, getter.restype = [], ctypes.c_int
            return setter, getter
    return None


# Products of at least this many multiply-adds get irexec's threads (when
# IREXEC_BLAS_THREADS is not set): below it a split saves less than a busy
# machine can cost.
PARALLEL_MACS = 1 << 22


def _wanted() -> int:
    """Threads inside a run: IREXEC_BLAS_THREADS, else 1 (and more per big product)."""
    raw = os.environ.get(ENV_VAR, "").strip()
    try:
        return max(0, int(raw)) if raw else 1
    except ValueError:
        return 1


def _automatic() -> bool:
    return not os.environ.get(ENV_VAR, "").strip()


def api() -> tuple[ctypes._CFuncPtr, ctypes._CFuncPtr] | None:
    global _api
    if _api is False:
        try:
            _api = _lookup()
        except Exception:  # noqa: BLE001 - an odd build just keeps its own threading
            _api = None
    return _api  # type: ignore[return-value]


@contextlib.contextmanager
def limited() -> Iterator[None]:
    """BLAS at ``IREXEC_BLAS_THREADS`` threads inside the block."""
    global _depth, _saved
    want = _wanted()
    fns = api() if want else None
    if fns is None:
        yield
        return
    setter, getter = fns
    with _lock:
        if _depth == 0:
            _saved = getter()
            if _saved != want:
                setter(want)
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _saved != want:
                setter(_saved)


@contextlib.contextmanager
def product(macs: int) -> Iterator[None]:
    """Inside a run (``limited()``), BLAS on irexec's threads for one product
    of ``macs`` multiply-adds if it is big enough and IREXEC_BLAS_THREADS is
    not set; otherwise as the run set it."""
    if not takes_threads(macs):
        yield
        return
    from . import parallel

    setter = api()[0]  # type: ignore[index]
    setter(parallel.num_threads())
    try:
        yield
    finally:
        setter(1)


def takes_threads(macs: int) -> bool:
    """Whether ``product(macs)`` spreads the product over several threads (a
    kernel then need not split it itself)."""
    if macs < PARALLEL_MACS or not _depth or not _automatic() or api() is None:
        return False
    from . import parallel

    return parallel.num_threads() > 1
