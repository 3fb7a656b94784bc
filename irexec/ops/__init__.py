"""Every op irexec implements: each module of this package registers its ops
on import, so adding an op means adding one file (and its test file)."""

from __future__ import annotations

import importlib
import pkgutil

_INFRASTRUCTURE = {"base", "registry"}

for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if _info.name not in _INFRASTRUCTURE and not _info.name.startswith("_"):
        importlib.import_module(f"{__name__}.{_info.name}")
