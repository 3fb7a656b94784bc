"""model.bin access: memory-mapped, bounds-checked, never read whole."""

from __future__ import annotations

import math
import mmap
import os

import numpy as np

from ..base import lowbit, strings
from ..base.dtypes import ElementType
from ..base.errors import ModelError
from ..system.files import open_regular


class Weights:
    """The weights file of a model, opened on first use."""

    def __init__(self, path: str | None, explicit: bool = False):
        self.path = path
        self.explicit = explicit
        self._map: mmap.mmap | None = None
        self._buffer: memoryview | None = None
        self._size: int | None = None
        self._exists: bool | None = None  # one stat per model, not one per Const

    @property
    def exists(self) -> bool:
        if self._exists is None:
            self._exists = self.path is not None and os.path.isfile(self.path)
        return self._exists

    @property
    def size(self) -> int | None:
        """Length of the .bin in bytes (a stat, no read), None when absent."""
        if self._size is None and self.exists:
            self._size = os.path.getsize(self.path)  # type: ignore[arg-type]
        return self._size

    def _view(self) -> memoryview:
        if self._buffer is None:
            if self.path is None or not os.path.isfile(self.path):  # at run time, not the cached answer
                raise ModelError(f"weights file {self.path} cannot be opened", code="missing-weights")
            try:
                with open_regular(self.path, "weights file") as f:
                    if os.fstat(f.fileno()).st_size == 0:
                        self._buffer = memoryview(b"")
                    else:
                        self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
                        self._buffer = memoryview(self._map)
            except OSError as e:  # no permission (EACCES), a file system that cannot map it (ENODEV), ...
                raise ModelError(f"weights file {self.path} cannot be read: {e.strerror or e}", code="cannot-read-file",
                                 file=self.path) from None
            self._size = len(self._buffer)
        return self._buffer

    def array(self, offset: int, shape: tuple[int, ...], etype: ElementType, size: int | None = None) -> np.ndarray:
        """A read-only array over the mapped bytes (no copy, any alignment);
        the packed low-bit types are unpacked into a new array, and strings
        (``size`` bytes of count, offsets and characters) into an object array."""
        assert etype.dtype is not None
        if etype.is_string:
            return self._strings(offset, shape, size)
        count = math.prod(int(d) for d in shape)  # Python ints: an absurd shape cannot wrap around
        if count == 0:
            return np.empty(shape, dtype=etype.dtype)
        buf = self._view()
        nbytes = lowbit.packed_nbytes(count, etype.name, etype.bits) if etype.packed else count * etype.dtype.itemsize
        if offset < 0 or offset + nbytes > len(buf):
            raise ModelError(
                f"bytes {offset}..{offset + nbytes} lie outside the {len(buf)}-byte weights file", code="weights-out-of-bounds"
            )
        if etype.packed:
            raw = np.ndarray((nbytes,), dtype=np.uint8, buffer=buf, offset=offset)
            out = lowbit.unpack(raw, count, etype.name).reshape(shape)
            out.flags.writeable = False
            return out
        # one array object straight over the map (frombuffer + reshape makes two, and a check holds thousands)
        return np.ndarray(shape, dtype=etype.dtype, buffer=buf, offset=offset)

    def packed(self, offset: int, nbytes: int) -> np.ndarray | None:
        """The ``nbytes`` bytes at ``offset`` as a read-only u8 array over the map
        (a low-bit Const as stored), or None when they are not all in the file."""
        buf = self._view()
        if offset < 0 or nbytes <= 0 or offset + nbytes > len(buf):
            return None
        out = np.ndarray((nbytes,), dtype=np.uint8, buffer=buf, offset=offset)
        out.flags.writeable = False
        return out

    def string_chars(self, offset: int, shape: tuple[int, ...], size: int | None) -> int:
        """The characters' length of a packed string Const, read from its count and
        offsets (checked), never from its characters."""
        if math.prod(int(d) for d in shape) == 0:
            return 0
        return strings.packed_chars(self._string_blob(offset, size), shape)

    def _string_blob(self, offset: int, size: int | None) -> memoryview:
        buf = self._view()
        end = len(buf) if size is None else offset + size
        if offset < 0 or end > len(buf):
            raise ModelError(f"bytes {offset}..{end} lie outside the {len(buf)}-byte weights file", code="weights-out-of-bounds")
        return buf[offset:end]

    def _strings(self, offset: int, shape: tuple[int, ...], size: int | None) -> np.ndarray:
        if math.prod(int(d) for d in shape) == 0:
            return np.empty(shape, dtype=object)
        out = strings.unpack(self._string_blob(offset, size), shape)
        out.flags.writeable = False
        return out

    def close(self) -> None:
        self._buffer = None
        if self._map is not None:
            try:
                self._map.close()
            except BufferError:  # arrays still view it; the map closes with them
                pass
            self._map = None
