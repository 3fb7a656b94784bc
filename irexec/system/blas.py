"""The thread count of the BLAS library NumPy calls for matmul.

OpenBLAS splits even small products across all its threads, and its threads
spin while they wait for each other: on a busy machine a 40x240 by 240x196
product then takes tens of milliseconds instead of a fraction of one.  A run
therefore keeps BLAS on the calling thread (``IREXEC_BLAS_THREADS``, default
1) and the convolution kernels spread their independent tiles over
``irexec.system.parallel``'s pool instead, where a slow thread only delays its own
pieces.  The previous setting is restored after the run.  Without an
OpenBLAS that exposes its thread setter this module does nothing.

    IREXEC_BLAS_THREADS=0   # leave BLAS threading alone
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import threading
from collections.abc import Callable, Iterator
from typing import Any

ENV_VAR = "IREXEC_BLAS_THREADS"
_SETTERS = ("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads", "openblas_set_num_threads64_",
            "openblas_set_num_threads")
_GETTERS = ("scipy_openblas_get_num_threads64_", "scipy_openblas_get_num_threads", "openblas_get_num_threads64_",
            "openblas_get_num_threads")

_lock = threading.Lock()
_depth = 0  # nested or concurrent runs: only the outermost one sets and restores
_saved = 0
_api: tuple[Callable[..., Any], Callable[..., Any]] | None | bool = False  # False: not looked up yet


def _loaded_blas() -> list[str]:
    """Paths of the BLAS libraries mapped into this process (NumPy's is
    loaded by the time a model runs)."""
    try:
        with open("/proc/self/maps") as f:
            paths = {line.split()[-1] for line in f if "blas" in line.lower() and "/" in line}
    except OSError:
        return []
    return sorted(paths)


def _lookup() -> tuple[Callable[..., Any], Callable[..., Any]] | None:
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


def _wanted() -> int:
    raw = os.environ.get(ENV_VAR, "").strip()
    try:
        return max(0, int(raw)) if raw else 1
    except ValueError:
        return 1


def api() -> tuple[Callable[..., Any], Callable[..., Any]] | None:
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
