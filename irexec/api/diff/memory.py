"""What a diff holds, under the one memory limit of its runs (``max_memory``,
else $IREXEC_MAX_MEMORY or half the RAM: ``limits.default_max_memory``).

A diff keeps layer outputs of both sides and makes temporaries to compare them.
Every such byte is charged here before it is made or as it is kept; each run of
either model gets as its own limit what the diff does not hold, and a run that
keeps layers counts them as live tensors (``keeps`` on its hook), so the diff
and its runs together never pass the limit: beyond it, ``memory-limit``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager

import numpy as np

from ...base import limits
from ...base.errors import IRExecError

# float64 arrays tensor_figures makes per element at most at once (both sides widened, the
# error, its scale and units, the masks), with a margin
FIGURE_BYTES_PER_ELEMENT = 10 * 8


class DiffMemory:
    def __init__(self, max_memory: int | None = None):
        self.limit = limits.resolve(max_memory)
        self.held = 0  # bytes of the tensors the diff keeps

    def run_limit(self, what: str) -> int:
        """The limit of a run made while the diff holds what it holds."""
        self.require(1, what)
        return self.limit - self.held

    def require(self, need: int, what: str) -> None:
        """Refuse (``memory-limit``) ``need`` more bytes for ``what``."""
        why = limits.over_limit(self.held + need, self.limit)
        if why:
            also = f" (the diff holds {limits.format_bytes(self.held)} of kept tensors)" if self.held else ""
            raise IRExecError(f"{what}{also} {why}", code="memory-limit")

    def hold(self, arrays: Iterable[np.ndarray]) -> int:
        """Charge kept arrays (each once; the kept outputs of a run were charged by that run while
        it ran, and are now the diff's); the bytes charged, for ``release``."""
        n = held_bytes(arrays)
        self.held += n
        return n

    def release(self, n: int) -> None:
        self.held = max(0, self.held - n)

    @contextmanager
    def temporaries(self, need: int, what: str) -> Iterator[None]:
        """A block that makes ``need`` bytes of temporaries; a kernel re-run in it (a layer's
        own error) is held to what is left, as a kernel in a run is.  Inside a run (a layer
        compared as the run makes it), what the run holds counts too."""
        state = limits.accounting()
        if state is None:
            self.require(need, what)
            limit, used = self.limit, self.held
        else:
            limit, used = state
            why = limits.over_limit(used + need, limit)
            if why:
                raise IRExecError(f"{what}, with {limits.format_bytes(used)} in use by the run and "
                                  f"{limits.format_bytes(self.held)} kept by the diff, {why}", code="memory-limit")
        with limits.charged(limit, used + need):
            yield


def held_bytes(arrays: Iterable[np.ndarray]) -> int:
    """Bytes of distinct arrays; a read-only view of a mapped .bin (a Const) takes none."""
    seen: dict[int, int] = {}
    for a in arrays:
        if isinstance(a, np.ndarray) and id(a) not in seen:
            seen[id(a)] = 0 if _mapped(a) else int(a.nbytes)
    return sum(seen.values())


def _mapped(a: np.ndarray) -> bool:
    base = a
    while isinstance(base, np.ndarray) and base.base is not None:
        base = base.base
    return isinstance(base, np.memmap) or type(base).__name__ == "mmap"


def kept_arrays(kept: dict[int, list[np.ndarray]]) -> Iterator[np.ndarray]:
    for outs in kept.values():
        yield from outs


__all__ = ["DiffMemory", "FIGURE_BYTES_PER_ELEMENT", "held_bytes", "kept_arrays"]
