"""How Parameters are named to users: by layer name (what Netron shows) and by
tensor names (what OpenVINO users feed by, e.g. ``input_ids``), everywhere."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..base.errors import shorten

if TYPE_CHECKING:
    import numpy as np

    from ..ir.records import Layer
    from .binding import Model


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


# Suggestions compare names pairwise (difflib is quadratic in their length):
# only names up to this long are compared, and only this many of them, so a
# typo costs little whatever the model's names are.
MAX_COMPARED_CHARS = 512
MAX_COMPARED_NAMES = 20_000


def close_names(text: str, candidates: Iterable[str], n: int = 3, *, parts: bool = False) -> list[str]:
    """Names close to ``text`` as a whole (difflib) or, with ``parts``, holding
    most of its characters in order (a misspelt part of a long converted name).
    Names longer than MAX_COMPARED_CHARS are never offered, and at most
    MAX_COMPARED_NAMES names are compared."""
    if len(text) > MAX_COMPARED_CHARS:
        return []
    names = [c for c in dict.fromkeys(candidates) if len(c) <= MAX_COMPARED_CHARS][:MAX_COMPARED_NAMES]
    close = difflib.get_close_matches(text, names, n=n)
    if parts and len(close) < n and len(text) >= 4:
        scored = []
        for name in names:
            m = difflib.SequenceMatcher(None, text, name, autojunk=False)
            matched = sum(b.size for b in m.get_matching_blocks())
            if matched >= 0.85 * len(text):
                scored.append((-matched, len(name), name))
        close += [name for *_, name in sorted(scored) if name not in close][: n - len(close)]
    return close


def did_you_mean(name: str, candidates: Iterable[str]) -> str:
    """``; did you mean 'x'?`` or ``; known: 'a', 'b'`` (empty when there is nothing to offer)."""
    candidates = list(dict.fromkeys(candidates))
    close = close_names(name, candidates)
    if close:
        return f"; did you mean {' or '.join(repr(c) for c in close)}?"
    if candidates and len(candidates) <= 10:
        return f" (known: {', '.join(shorten(c) for c in candidates)})"
    return ""


def cast_hint(dtype: np.dtype) -> str:
    """The NumPy call that converts an array to ``dtype``: ``x.astype(np.float32)``."""
    from ..base import lowbit  # here: the CLI's --help and `irexec ops` load this module without NumPy

    if dtype.kind == "O":  # the string element type: NumPy text or bytes
        return "x.astype(np.str_)"
    low = lowbit.STRUCTURED.get(dtype)
    if low is not None:  # no NumPy type: the values are the uint8 codes
        return f"irexec.base.lowbit.from_codes(x.astype(np.uint8), {low!r})"
    name = dtype.name
    module = "ml_dtypes" if name == "bfloat16" or lowbit.name_of(dtype) is not None else "np"
    return f"x.astype({module}.{name})"


def output_names(model: Model) -> dict[int, str]:
    """Result layer id -> output key (see README, "Naming of tensors")."""
    names: dict[int, str] = {}
    seen_tensors: set[tuple[int, int]] = set()
    used: set[str] = set()
    for res in model.results:
        src = model.graph.producer.get((res.id, 0))
        key = res.name
        if src is not None and src not in seen_tensors:
            port = model.layers[src[0]].outputs[src[1]]
            if port.names:
                key = port.names[0]
        if src is not None:
            seen_tensors.add(src)
        if key in used:
            key = f"{res.name}:{res.id}"
        used.add(key)
        names[res.id] = key
    return names


def port_key(layer: Layer, index: int) -> str:
    port = layer.outputs[index]
    return port.names[0] if port.names else f"{layer.name}:{port.id}"


def positional_hint(key: str, parameters: list[str]) -> str:
    """np.savez names a positional array arr_0, arr_1, ...: say so, and show the keyword form."""
    if not (key.startswith("arr_") and key[4:].isdigit()):
        return ""
    example = ", ".join(f"{n}=..." if n.isidentifier() else f"**{{{n!r}: ...}}" for n in parameters[:3]) or "name=array"
    return (f"; {key!r} is how np.savez names an array passed by position: pass each input by keyword, "
            f"np.savez('inputs.npz', {example})")
