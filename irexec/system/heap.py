"""Keep freed tensor memory in the process for the next tensor.

glibc hands every block of 32 MiB or more back to the kernel when it is freed and
maps fresh pages for the next one; the kernel then faults in and zeroes every page
again, which costs two to three times the copy itself.  A run frees an intermediate
just before (or just after) it allocates the next one of a similar size, so keeping
the pages makes a layer's output nearly free to allocate: what OpenVINO gets by
reusing its own buffers.  The memory held is at most the run's peak, which the
memory limit already bounds.
"""

from __future__ import annotations

import ctypes
import os

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_KEEP = 1 << 30  # blocks above 1 GiB are still mapped and unmapped one by one

_retained = False


def retain_freed_memory() -> bool:
    """Ask the C allocator to reuse freed blocks instead of returning them to the
    kernel.  Process-wide, so the CLI does it and library users opt in.  Returns
    whether it took effect (glibc only; ``IREXEC_RETAIN_MEMORY=0`` turns it off)."""
    global _retained
    if _retained:
        return True
    if os.environ.get("IREXEC_RETAIN_MEMORY", "1") == "0" or not _glibc():
        return False
    try:
        libc = ctypes.CDLL("libc.so.6")
        _retained = bool(libc.mallopt(_M_MMAP_THRESHOLD, _KEEP)) and bool(libc.mallopt(_M_TRIM_THRESHOLD, _KEEP))
    except (OSError, AttributeError):
        return False
    return _retained


def _glibc() -> bool:
    try:
        return (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc")
    except (ValueError, OSError, AttributeError):  # not a glibc system
        return False
