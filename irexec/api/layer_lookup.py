"""A layer named by a user: by id, full name, or a part of a name only one layer has."""

from __future__ import annotations

from ..base.errors import UsageError
from ..ir.records import Layer
from ..model.naming import close_names
from .load import Model


def find_layer(model: Model, key: str | int) -> Layer:
        """A layer by id or full name, else by a name suffix or substring that
        only one layer has (converted names are long: ``.../aten::linear/MatMul``)."""
        layer = model.find_layer(str(key))
        if layer is not None:
            return layer
        text = str(key)
        layers = sorted(model.layers.values(), key=lambda l: l.index)
        partial = not text.isdigit()  # digits mean a layer id: "99" is not a part of "Add_1990"
        for how, found in (("end with", [l for l in layers if partial and text and l.name.endswith(text)]),
                           ("contain", [l for l in layers if partial and text and text in l.name])):
            if len(found) == 1:
                return found[0]
            if found:
                shown = ", ".join(f'{l.id} "{l.name}"' for l in found[:5]) + (", ..." if len(found) > 5 else "")
                raise UsageError(f"`stop_at` {text!r} is ambiguous: {len(found)} layer names {how} it ({shown}); "
                                 f"give more of the name or the layer id", code="unknown-name", file=model.path)
        close = close_names(text, [l.name for l in layers], parts=True)
        hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else " (give a layer id, name, or a unique part of a name)"
        raise UsageError(f"`stop_at` {text!r} names no layer{hint}", code="unknown-name", file=model.path)
