"""Inputs generated from the Parameters' declared shapes and element types.

Values, drawn in Parameter order from one ``numpy.random.default_rng(seed)``:
floating types uniform in [-1, 1), integers uniform in [0, 9] (small and
non-negative, so they are plausible indices, lengths and shifts), booleans
fair coin flips.  A dim that is not static (``?``, an interval, a dynamic rank)
has no single size: ``--input-shape NAME:DIMS`` gives it, and is checked
against the declared intervals.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from . import limits
from .errors import ERROR, Diagnostic, InputError, UsageError
from .ir.reader import Layer
from .model import Model
from .shapes import PartialShape, ShapeSyntaxError, format_shape, parse_static_shape

INT_RANGE = (0, 9)  # inclusive
FLOAT_RANGE = (-1.0, 1.0)


def parse_input_shapes(specs: Iterable[str]) -> dict[str, tuple[int, ...]]:
    """``NAME:1,3,224,224`` (brackets optional, ``NAME:`` or ``NAME:[]`` for a
    scalar) -> {name: shape}.  The shape follows the last colon."""
    shapes: dict[str, tuple[int, ...]] = {}
    for spec in specs:
        name, sep, dims = spec.rpartition(":")
        if not sep or not name:
            raise UsageError(f"--input-shape {spec!r} is not NAME:DIMS (e.g. x:1,3,224,224)", code="bad-input-shape")
        text = dims.strip()
        if text.startswith("[") and text.endswith("]"):
            text = text[1:-1]
        try:
            shapes[name] = parse_static_shape(text)
        except ShapeSyntaxError as e:
            raise UsageError(f"--input-shape {spec!r}: {e} (give every dim as a non-negative integer)",
                             code="bad-input-shape") from None
    return shapes


def _parameter_names(layer: Layer) -> list[str]:
    names = [layer.name]
    for port in layer.outputs:
        names += [n for n in port.names if n not in names]
    return names


def resolve_input_shapes(model: Model, overrides: Mapping[str, tuple[int, ...]] | None = None) -> dict[str, tuple[int, ...]]:
    """A concrete shape for every Parameter (keyed by Parameter name); every
    problem at once as an InputError."""
    overrides = dict(overrides or {})
    problems: list[Diagnostic] = []
    shapes: dict[str, tuple[int, ...]] = {}
    for layer in model.parameters:
        declared: PartialShape = model.ops[layer.id].shape  # type: ignore[union-attr]
        where = model.where(layer)
        given_as = next((n for n in _parameter_names(layer) if n in overrides), None)
        if given_as is not None:
            shape = overrides.pop(given_as)
            bad = _misfit(declared, shape)
            if bad:
                problems.append(Diagnostic("input-shape-mismatch", f"--input-shape {given_as}:{','.join(map(str, shape))} "
                                           f"does not fit Parameter {layer.name!r} declared {declared}: {bad}", ERROR, **where))
            shapes[layer.name] = shape
            continue
        if declared.is_static:
            shapes[layer.name] = declared.to_tuple()
            continue
        etype = model.ops[layer.id].element_type.name  # type: ignore[union-attr]
        if declared.dims is None:
            why = "has a dynamic rank"
        else:
            loose = [f"dim {i} is dynamic (?)" if d.is_dynamic else f"dim {i} is the interval {d}"
                     for i, d in enumerate(declared.dims) if not d.is_static]
            why = "has no single size to generate: " + ", ".join(loose)
        problems.append(Diagnostic("input-shape-needed", f"Parameter {layer.name!r} ({etype}{declared}) {why}; give "
                                   f"the shape with --input-shape {layer.name}:{_example(declared)}", ERROR, **where))
    for name in overrides:
        known = ", ".join(repr(p.name) for p in model.parameters) or "none"
        problems.append(Diagnostic("unknown-input", f"--input-shape names {name!r}, which is not a Parameter "
                                   f"(Parameters: {known})", ERROR, file=model.path))
    if problems:
        raise InputError(problems)
    return shapes


def _misfit(declared: PartialShape, shape: tuple[int, ...]) -> str:
    if declared.dims is None:
        return ""
    if len(shape) != len(declared.dims):
        return f"rank {len(shape)} instead of {len(declared.dims)}"
    for i, (d, n) in enumerate(zip(declared.dims, shape)):
        if not d.contains(n):
            return f"dim {i} is {n}, not {d}" if d.is_static else f"dim {i} is {n}, outside the interval {d}"
    return ""


def _example(declared: PartialShape) -> str:
    if declared.dims is None:
        return "1,2,3"
    return ",".join(str(d.lo if d.is_static else max(d.lo, 1)) for d in declared.dims)


def random_array(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, size=shape, dtype=np.uint8).astype(np.bool_)
    if dtype.kind in "iu":
        return rng.integers(INT_RANGE[0], INT_RANGE[1] + 1, size=shape, dtype=np.int64).astype(dtype)
    return rng.uniform(*FLOAT_RANGE, size=shape).astype(dtype)  # float64 rounded once to the target type


def random_inputs(
    model: Model, seed: int = 0, shapes: Mapping[str, tuple[int, ...]] | None = None, max_memory: int | None = None
) -> dict[str, np.ndarray]:
    """One array per Parameter (keyed by Parameter name), reproducible from
    ``seed``; refused before allocating when over the memory limit."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        shown = repr(seed) if len(repr(seed)) <= 40 else repr(seed)[:40] + "..."
        raise UsageError(f"seed {shown} must be a non-negative integer", code="bad-seed")
    resolved = resolve_input_shapes(model, shapes)
    limit = limits.resolve(max_memory)
    # every value is drawn as a float64 or int64 temporary, then narrowed
    for layer in model.parameters:
        etype = model.ops[layer.id].element_type  # type: ignore[union-attr]
        shape = resolved[layer.name]
        why = limits.over_limit(limits.nbytes(shape, 8 + etype.itemsize), limit)
        if why:
            raise InputError(f"generating input {layer.name!r} {etype.name}{format_shape(shape)} {why}",
                             code="memory-limit", **model.where(layer))
    rng = np.random.default_rng(seed)
    feeds: dict[str, np.ndarray] = {}
    for layer in model.parameters:
        etype = model.ops[layer.id].element_type  # type: ignore[union-attr]
        feeds[layer.name] = random_array(rng, resolved[layer.name], etype.dtype)
    return feeds


def describe(feeds: Mapping[str, np.ndarray]) -> str:
    return ", ".join(f"{k} {v.dtype}{format_shape(v.shape)}" for k, v in feeds.items())
