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


def loaded_jit_module(name: str) -> ModuleType | None:
    """``jit_module(name)`` where Numba is already imported (another layer's compiled kernel
    loaded it); else None, without importing it: a kernel that does not repay Numba's import
    on its own runs compiled only in models that pay it anyway."""
    return jit_module(name) if "numba" in sys.modules else None
