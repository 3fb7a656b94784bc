"""``irexec diff``: where another implementation departs from irexec, layer by layer.

accuracy.py states each op's tolerance; figures.py measures one tensor against the
reference; reference.py runs irexec; device.py runs an OpenVINO device plugin;
core.py exposes layers (all at once or by bisection) and origins.py names where an
error starts; report.py holds the result and render_*.py write it out.
A second IR as the other side: matching.py, ir_side.py, weights.py, dataset.py.
A source model, its IR and a device as the three links of one chain: chain.py, render_chain.py.

The package is callable: ``irexec.api.diff(A, B)`` is ``api.diff``.
"""

import sys as _sys
import types as _types
from typing import Any as _Any


class _Callable(_types.ModuleType):
    def __call__(self, *args: _Any, **kwargs: _Any) -> _Any:
        from .api import diff

        return diff(*args, **kwargs)


_sys.modules[__name__].__class__ = _Callable
