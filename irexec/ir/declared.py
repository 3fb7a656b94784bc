"""What a port declares, as shapes: shared by the checker (declared vs inferred)
and the executor (declared vs computed)."""

from __future__ import annotations

from functools import lru_cache

from ..base.shapes import DYNAMIC, Dim, PartialShape, format_dims
from .records import Port


def declared_shape(port: Port, trust_empty_as_scalar: bool = False) -> PartialShape:
    """What a port's ``<dim>``s say.  No ``<dim>`` is a scalar *or* a dynamic rank
    (OpenVINO writes both that way), so it is dynamic rank unless told otherwise."""
    if not port.dims and not trust_empty_as_scalar:
        return PartialShape(None)
    return shape_of_dims(port.dims)


@lru_cache(maxsize=4096)
def shape_of_dims(dims: tuple[int, ...]) -> PartialShape:
    """Shapes are immutable and real models repeat a few dims lists on
    thousands of ports: build each once."""
    return PartialShape(tuple(DYNAMIC if d < 0 else Dim(d, d) for d in dims))


def declared_text(port: Port) -> str:
    """A port's <dim>s as diagnostics print them: [4,?,3]."""
    if not port.dims:
        return "no dims (a scalar)"
    return format_dims(port.dims)
