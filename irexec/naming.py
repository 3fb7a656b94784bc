"""How Parameters are named to users: by layer name (what Netron shows) and by
tensor names (what OpenVINO users feed by, e.g. ``input_ids``), everywhere."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import TYPE_CHECKING

from .errors import shorten

if TYPE_CHECKING:
    import numpy as np

    from .ir.reader import Layer


def tensor_names(layer: Layer) -> list[str]:
    """The tensor names of a layer's output ports, in order, without repeats."""
    names: list[str] = []
    for port in layer.outputs:
        names += [n for n in port.names if n not in names]
    return names


def parameter_keys(layer: Layer) -> list[str]:
    """Every name a Parameter answers to: its layer name, then its tensor names."""
    return [layer.name] + [n for n in tensor_names(layer) if n != layer.name]


def parameter_label(layer: Layer) -> str:
    """``'Parameter_1' (tensor 'input_ids')``, or ``'x'`` when the names agree."""
    others = [n for n in tensor_names(layer) if n != layer.name]
    if not others:
        return shorten(layer.name)
    return f"{shorten(layer.name)} (tensor {', '.join(shorten(n) for n in others)})"


def parameter_list(parameters: Iterable[Layer]) -> str:
    return ", ".join(parameter_label(p) for p in parameters) or "none"


def did_you_mean(name: str, candidates: Iterable[str]) -> str:
    """``; did you mean 'x'?`` or ``; known: 'a', 'b'`` (empty when there is nothing to offer)."""
    candidates = list(dict.fromkeys(candidates))
    close = difflib.get_close_matches(name, candidates, n=3)
    if close:
        return f"; did you mean {' or '.join(repr(c) for c in close)}?"
    if candidates and len(candidates) <= 10:
        return f" (known: {', '.join(repr(c) for c in candidates)})"
    return ""


def cast_hint(dtype: np.dtype) -> str:
    """The NumPy call that converts an array to ``dtype``: ``x.astype(np.float32)``."""
    from . import lowbit  # here: the CLI's --help and `irexec ops` load this module without NumPy

    low = lowbit.STRUCTURED.get(dtype)
    if low is not None:  # no NumPy type: the values are the uint8 codes
        return f"irexec.lowbit.from_codes(x.astype(np.uint8), {low!r})"
    name = dtype.name
    module = "ml_dtypes" if name == "bfloat16" or lowbit.name_of(dtype) is not None else "np"
    return f"x.astype({module}.{name})"


def positional_hint(key: str, parameters: list[str]) -> str:
    """np.savez names a positional array arr_0, arr_1, ...: say so, and show the keyword form."""
    if not (key.startswith("arr_") and key[4:].isdigit()):
        return ""
    example = ", ".join(f"{n}=..." if n.isidentifier() else f"**{{{n!r}: ...}}" for n in parameters[:3]) or "name=array"
    return (f"; {key!r} is how np.savez names an array passed by position: pass each input by keyword, "
            f"np.savez('inputs.npz', {example})")
