"""The ``jit`` extra's compiled kernel modules, imported (and Numba with them) when a layer
first needs one, so that a model without such layers never pays Numba's import."""

from __future__ import annotations

import importlib
import os
import sys
from types import ModuleType

JIT_ENV_VAR = "IREXEC_JIT"  # "0": never compile; the NumPy (and BLAS) paths run


def jit_module(name: str) -> ModuleType | None:
    """``irexec.kernels.<name>``; None without Numba or with IREXEC_JIT=0."""
    if os.environ.get(JIT_ENV_VAR, "1") == "0":
        return None
    try:
        return importlib.import_module(f"{__package__}.{name}")
    except ImportError:  # no Numba
        return None


class AfterNumba:
    """A compiled kernel module that never imports Numba itself: ``get`` gives it only once
    Numba is imported (another layer's compiled kernel loaded it), so a kernel that does not
    repay the import on its own runs compiled only in models that pay it anyway; until then
    it is asked again, and once asked it stays (None without it, or with IREXEC_JIT=0).
    ``load`` imports it now, Numba with it (a program that will call it many times)."""

    __slots__ = ("name", "module")

    def __init__(self, name: str) -> None:
        self.name = name
        self.module: ModuleType | None | bool = False  # False: not asked yet

    def get(self) -> ModuleType | None:
        if self.module is False and "numba" in sys.modules:
            self.module = jit_module(self.name)
        return self.module if isinstance(self.module, ModuleType) else None

    def load(self) -> bool:
        """Import the module now; whether it is there."""
        if self.module is False:
            self.module = jit_module(self.name)
        return self.module is not None
