"""Every op irexec implements, one subpackage per family (``movement/``,
``elementwise/``, ``control/``, ...): each module registers its ops on import.
``base.py`` (the declaration language), ``registry.py``, ``helpers.py`` and
``spatial.py`` are what ops share.  Where a new op goes: docs/adding-an-op.md."""

from __future__ import annotations

import importlib
import pkgutil

_INFRASTRUCTURE = {"base", "registry", "helpers", "spatial", "declare", "tensor"}

for _info in sorted(pkgutil.walk_packages(__path__, prefix=f"{__name__}."), key=lambda m: m.name):
    if _info.name.rpartition(".")[2] not in _INFRASTRUCTURE and not _info.name.rpartition(".")[2].startswith("_"):
        importlib.import_module(_info.name)
