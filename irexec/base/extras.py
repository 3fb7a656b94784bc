"""How to install an optional extra.

irexec is installed from its clone (a package named irexec on PyPI is another
project), so every hint names the editable install of the clone, which works
as written from the clone's root."""

from __future__ import annotations


def install_hint(extra: str) -> str:
    """``install the irexec[EXTRA] extra from the irexec clone: pip install -e '.[EXTRA]'``."""
    return f"install the irexec[{extra}] extra from the irexec clone: pip install -e '.[{extra}]'"
