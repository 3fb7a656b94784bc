"""The memory limit: how many bytes of tensors a run may hold at once.

Every size here is a Python int, so a shape such as 10^12 x 10^12 or a dim
near 2^63 is multiplied out exactly and refused; nothing wraps around the
way an int64 product would.  The limit is checked *before* allocating:
Const and Parameter shapes when a model is loaded, input tensors from the
header of their .npy entries, and every layer's output from its inferred
shape before the kernel runs.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

# OpenVINO stores dims and element counts as int64 / size_t; no tensor a real
# runtime can address has more bytes than this.
MAX_TENSOR_BYTES = (1 << 63) - 1
INT64_MAX = (1 << 63) - 1
MAX_RANK = 64  # NumPy's limit on the number of dims

# Used when the physical memory cannot be determined.
FALLBACK_LIMIT = 4 << 30

ENV_VAR = "IREXEC_MAX_MEMORY"

_UNITS = {
    "": 1, "b": 1,
    "k": 1000, "kb": 1000, "m": 1000**2, "mb": 1000**2, "g": 1000**3, "gb": 1000**3, "t": 1000**4, "tb": 1000**4,
    "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
}
_SIZE_RE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z]*)\s*$")


def physical_memory() -> int | None:
    """Bytes of physical RAM, or None where the OS does not say."""
    try:
        pages, page_size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None
    if pages <= 0 or page_size <= 0:
        return None
    return int(pages) * int(page_size)


def parse_size(text: str) -> int:
    """``2GiB``, ``512M``, ``1.5g``, ``1048576`` -> bytes; ValueError otherwise."""
    m = _SIZE_RE.match(text)
    unit = m.group(2).lower() if m else ""
    if m is None or unit not in _UNITS:
        raise ValueError(f"{text!r} is not a size (examples: 2GiB, 512MiB, 4G, 1000000)")
    number = m.group(1)
    if "." in number:
        whole, frac = number.split(".")
        value = (int(whole) * 10 ** len(frac) + int(frac)) * _UNITS[unit] // 10 ** len(frac)
    else:
        value = int(number) * _UNITS[unit]
    if value <= 0:
        raise ValueError(f"{text!r}: the memory limit must be positive")
    return value


def default_max_memory() -> int:
    """$IREXEC_MAX_MEMORY if set, else half of physical memory."""
    env = os.environ.get(ENV_VAR)
    if env:
        try:
            return parse_size(env)
        except ValueError:
            pass  # a broken environment must not make every run fail; the default still protects
    ram = physical_memory()
    return ram // 2 if ram else FALLBACK_LIMIT


def resolve(limit: int | None) -> int:
    """The memory limit a caller's ``max_memory`` stands for: itself, or the
    default (``default_max_memory``) when None.  Every default is resolved here."""
    return default_max_memory() if limit is None else limit


def element_count(shape: Iterable[int]) -> int:
    """Exact product of the dims (1 for a scalar)."""
    return math.prod(int(d) for d in shape)


def nbytes(shape: Iterable[int], itemsize: int) -> int:
    return element_count(shape) * int(itemsize)


def format_bytes(n: int) -> str:
    """``4.0 GiB (4294967296 bytes)``; absurd sizes in powers of ten."""
    if n >= 1 << 60:
        return f"about 10^{len(str(n)) - 1} bytes"
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit} ({n} bytes)"
    return f"{n} bytes"


def over_limit(need: int, limit: int) -> str | None:
    """Why ``need`` bytes cannot be allocated under ``limit``, or None when they can."""
    if need <= limit:
        return None
    return f"needs {format_bytes(need)}, more than the memory limit of {format_bytes(limit)} (raise it with `max_memory`)"


# ------------------------------------------------------------ the run's accounting
# While a layer runs: (the run's limit, bytes already in use: the live tensors
# of the run and of every sub-graph op around this layer, plus the layer's own
# outputs).  A body run by If, Loop or TensorIterator starts from it instead of
# from zero, and a kernel whose temporaries or output size only the data or an
# attribute decides asks ``require`` before allocating them.
IN_USE: ContextVar[tuple[int, int] | None] = ContextVar("irexec_in_use", default=None)


def accounting() -> tuple[int, int] | None:
    """(limit, bytes in use) of the layer running now, or None outside a run."""
    return IN_USE.get()


def budget(limit: int | None = None) -> tuple[int, int]:
    """(limit, bytes in use) that work starts from: an explicit ``limit`` with
    nothing in use; else the running layer's accounting; else the default limit."""
    if limit is not None:
        return limit, 0
    return IN_USE.get() or (resolve(None), 0)


@contextmanager
def charged(limit: int, in_use: int) -> Iterator[None]:
    """Run the block as a layer whose run has ``limit`` bytes and uses ``in_use``."""
    token = IN_USE.set((limit, in_use))
    try:
        yield
    finally:
        IN_USE.reset(token)


def require(need: int, what: str) -> None:
    """Refuse (``memory-limit``) ``need`` more bytes for ``what`` when they do not
    fit next to what the run already uses (outside a run: the default limit)."""
    from .errors import OpError

    limit, used = budget()
    if need + used > limit:
        also = f", with {format_bytes(used)} already in use," if used else ""
        raise OpError(f"{what} needs {format_bytes(need)}{also} more than the memory limit of {format_bytes(limit)} "
                      "(raise it with `max_memory`)", code="memory-limit")



class Meter:
    """What a kernel whose output only the data sizes (ragged strings, tokens)
    has built so far, charged as it grows: ``grow`` refuses (``memory-limit``)
    the bytes that would take the run past its limit, before they are added.
    ``copies``: how many times the bytes are held at the kernel's peak (a
    buffer joined into an array at the end holds them twice)."""

    __slots__ = ("what", "total", "copies", "_room")

    def __init__(self, what: str, copies: int = 1):
        state = IN_USE.get()
        limit, used = state if state is not None else (default_max_memory(), 0)
        self.what = what
        self.total = 0
        self.copies = max(1, copies)
        self._room = limit - used

    def grow(self, n: int) -> None:
        self.total += n
        if self.total * self.copies > self._room:
            require(self.total * self.copies, self.what)
