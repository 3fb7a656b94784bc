"""Pausing Python's cyclic garbage collector around a bulk read.

Reading a model allocates a few objects per XML element and frees almost
nothing until the end; every allocation burst triggers collections that walk
all of them again (a third of the time of a 27,000-layer check).  Reference
counting still frees everything that is not a cycle, and the collector runs as
usual afterwards.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
