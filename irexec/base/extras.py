"""How to install an optional extra.

irexec is installed from its clone (a package named irexec on PyPI is another
project), so every hint names the editable install of the clone, which works
as written from the clone's root."""

from __future__ import annotations

import importlib
from typing import Any

from .errors import IRExecError


def install_hint(extra: str) -> str:
    """``install the irexec[EXTRA] extra from the irexec clone: pip install -e '.[EXTRA]'``."""
    return f"install the irexec[{extra}] extra from the irexec clone: pip install -e '.[{extra}]'"


def import_extra(module: str, needed_for: str, extra: str) -> Any:
    """The module ``module``, or ``missing-extra``: ``NEEDED_FOR needs MODULE, which is not
    installed (why); install the irexec[EXTRA] extra ...``."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise IRExecError(f"{needed_for} needs {module}, which is not installed ({e}); {install_hint(extra)}",
                          code="missing-extra") from None
