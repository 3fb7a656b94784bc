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
            _promote_survivors()
            gc.enable()


def _promote_survivors() -> None:
    """Move what the pause allocated to the oldest generation, where the
    collector would have put it anyway after walking all of it in two young
    collections (a tenth of a 27,000-layer check).  Model records hold no
    cycles: refcounting frees them, and a full collection still visits
    whatever survives.  Skipped when the application froze objects itself,
    which unfreezing would undo."""
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()
