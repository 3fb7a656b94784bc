"""irexec run keeps freed tensor memory for the next tensor instead of mapping fresh pages."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys

import pytest

PROBE = r"""
import ctypes, sys
import numpy as np
import irexec

class MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]

libc = ctypes.CDLL("libc.so.6")
libc.mallinfo2.restype = MallInfo2
took = irexec.retain_freed_memory()
a = np.ones(64 << 20, np.uint8)  # 64 MiB: above glibc's largest automatic mmap threshold
info = libc.mallinfo2()
print(int(took), int(info.hblkhd >= 64 << 20), int(info.arena >= 64 << 20))
"""


def _glibc_with_mallinfo2() -> bool:
    try:
        return os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc") and hasattr(ctypes.CDLL("libc.so.6"), "mallinfo2")
    except (ValueError, OSError, AttributeError):
        return False


def probe(**env: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True,
                         env={**os.environ, **env}).stdout
    return out.split()


@pytest.mark.skipif(not _glibc_with_mallinfo2(), reason="needs glibc >= 2.33")
def test_large_tensors_come_from_the_reusable_heap():
    took, mapped, heap = probe()
    assert (took, mapped, heap) == ("1", "0", "1")


@pytest.mark.skipif(not _glibc_with_mallinfo2(), reason="needs glibc >= 2.33")
def test_opting_out_leaves_the_allocator_alone():
    took, mapped, heap = probe(IREXEC_RETAIN_MEMORY="0")
    assert (took, mapped, heap) == ("0", "1", "0")
