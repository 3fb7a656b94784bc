"""Inputs generated from the Parameters' declared shapes and element types.

Values, drawn in Parameter order from one ``numpy.random.default_rng(seed)``:
floating types uniform in [-1, 1), integers uniform in [0, 9], booleans fair
coin flips.  Where the graph says which integers are valid (the indices of a
Gather, GatherND, Scatter*Update or Embedding* layer, the seq_lengths of a
ReverseSequence, reached directly or through Convert/Reshape chains), an
integer input is drawn from that range instead: ``INDEX_INPUTS`` maps an op
type and input position to the dim it indexes, so ops that are not executed
(or not implemented yet) are read the same way.  ``--val-range
[NAME:]LOW,HIGH`` sets a range by hand, as in Polygraphy.

A dim that is not static gets its lower bound, or 1 (``?`` and ``0..N``), as
Polygraphy does, unless shape inference rules that out: then sizes that fit are
searched (``irexec.api.input_fit``).  ``--input-shape NAME:DIMS`` sets a shape and is
checked against the declared intervals; a dynamic rank needs it.  An integer
input converted to boolean (a mask) is all ones.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from ..base import limits, lowbit
from ..base.errors import ERROR, Diagnostic, InputError, UsageError, spelled
from ..base.shapes import PartialShape, format_shape
from ..ir.records import Layer
from ..model.naming import did_you_mean, parameter_keys, parameter_label, parameter_list, tensor_names
from ..ops.io import Const1
from .input_fit import fit_shapes, inferred_tensors, mask_use, reached_by
from .load import Model

INT_RANGE = (0, 9)  # inclusive
FLOAT_RANGE = (-1.0, 1.0)


@dataclass(frozen=True)
class IndexRule:
    """Input ``index`` of an op holds positions along a dim of input ``data``:
    the dim at ``axis`` (("input", i): a Const input; ("attr", name, default);
    ("dim", k); ("nd", batch_dims attribute or None): the dims the last indices
    dim spans).  Valid values are [low, dim - 1], or [low, dim] when ``inclusive``."""

    index: int
    data: int
    axis: tuple
    low: int = 0
    inclusive: bool = False
    what: str = "indices"


INDEX_INPUTS: dict[str, IndexRule] = {
    "Gather": IndexRule(1, 0, ("input", 2)),
    "GatherElements": IndexRule(1, 0, ("attr", "axis", 0)),
    "GatherND": IndexRule(1, 0, ("nd", "batch_dims")),
    "ScatterUpdate": IndexRule(1, 0, ("input", 3)),
    "ScatterElementsUpdate": IndexRule(1, 0, ("input", 3)),
    "ScatterNDUpdate": IndexRule(1, 0, ("nd", None)),
    "EmbeddingBagOffsetsSum": IndexRule(1, 0, ("dim", 0)),
    "EmbeddingBagPackedSum": IndexRule(1, 0, ("dim", 0)),
    "EmbeddingSegmentsSum": IndexRule(1, 0, ("dim", 0)),
    "ReverseSequence": IndexRule(1, 0, ("attr", "seq_axis", 1), low=1, inclusive=True, what="seq_lengths"),
}
# Ops whose input 0 reaches their output unchanged in value
PASS_THROUGH = frozenset({"Convert", "Reshape", "Squeeze", "Unsqueeze"})


@dataclass
class InputPlan:
    """How one input is generated, and why."""

    layer: Layer
    shape: tuple[int, ...]
    shape_note: str
    dtype: np.dtype
    low: float
    high: float  # inclusive for integers, exclusive for floats
    range_note: str

    @property
    def values(self) -> str:
        if self.dtype == object:
            return "text of 0..16 ASCII letters and spaces"
        if self.dtype.kind == "b":
            return "{False, True}"
        if self.dtype.kind in "iu" or lowbit.name_of(self.dtype) in (*lowbit.NARROW_INTS, "nf4"):
            return f"[{int(self.low)}, {int(self.high)}]"
        return f"[{self.low:g}, {self.high:g})"


def _const(model: Model, lid: int, index: int) -> np.ndarray | None:
    src = model.graph.producer.get((lid, index))
    op = model.ops[src[0]] if src is not None else None
    if not isinstance(op, Const1):
        return None
    try:
        value = np.asarray(op.run()[0])
    except Exception:  # noqa: BLE001 - no bound is better than no inputs
        return None
    return value if value.dtype.kind in "iu" else None  # an axis or a count: integers (not a packed low-bit type)


def _indexed_dim(model: Model, layer: Layer, rule: IndexRule, tensors: Mapping | None = None) -> int | None:
    """The size of the dim the index input of ``layer`` indexes: inferred on the
    chosen input shapes when ``tensors`` has it, else as declared."""
    if rule.data >= len(layer.inputs):
        return None
    dims = layer.inputs[rule.data].dims
    src = model.graph.producer.get((layer.id, rule.data))
    known = (tensors or {}).get(src) if src is not None else None
    if known is not None and known.shape.dims is not None:
        dims = tuple(d.lo if d.is_static else -1 for d in known.shape.dims)
    kind = rule.axis[0]
    try:
        if kind == "input":
            value = _const(model, layer.id, rule.axis[1])
            if value is None or value.size != 1:
                return None
            axes = [int(value.reshape(()))]
        elif kind == "attr":
            axes = [int(layer.data.get(rule.axis[1], rule.axis[2]))]
        elif kind == "dim":
            axes = [rule.axis[1]]
        else:  # nd: the last dim of the indices says how many data dims they span
            batch = int(layer.data.get(rule.axis[1], 0)) if rule.axis[1] else 0
            depth = layer.inputs[rule.index].dims[-1]
            if depth < 1:
                return None
            axes = list(range(batch, batch + depth))
    except (ValueError, IndexError, TypeError):
        return None
    sizes = []
    for axis in axes:
        if not -len(dims) <= axis < len(dims):
            return None
        sizes.append(dims[axis])
    if any(n < 1 for n in sizes):
        return None  # dynamic or empty: no bound from here
    return min(sizes)


def infer_range(model: Model, parameter: Layer, tensors: Mapping | None = None) -> tuple[int, int, str] | None:
    """(low, high, why) for an integer Parameter the graph uses as positions.  A
    1-D index into axis 0 of a Gather whose data's dim 0 is unknown (a KV cache
    reordered by ``beam_idx``) picks rows of the batch: [0, its own length)."""
    low, high, why = None, None, []
    for layer, index in reached_by(model, parameter, PASS_THROUGH):
        if layer.type in PASS_THROUGH and index == 0:
            continue  # only reshapes the value: what reads it next counts
        rule = INDEX_INPUTS.get(layer.type)
        if rule is None or rule.index != index:
            continue
        dim = _indexed_dim(model, layer, rule, tensors)
        what = rule.what
        if dim is None:
            dim = _batch_rows(model, layer, index, tensors)
            what = "rows of the batch axis, as long as the index itself"
        if dim is None:
            continue
        top = dim if rule.inclusive else dim - 1
        low = rule.low if low is None else max(low, rule.low)
        high = top if high is None else min(high, top)
        why.append(f"{what} of {layer.type} {layer.name!r} (dim of {dim})")
    if low is None or high is None or high < low:
        return None
    return low, high, "; ".join(why) if len(why) <= 2 else f"{why[0]} and {len(why) - 1} more layers"


def _batch_rows(model: Model, layer: Layer, index: int, tensors: Mapping | None) -> int | None:
    if layer.type != "Gather" or index != 1 or not tensors:
        return None
    axis = _const(model, layer.id, 2)
    src = model.graph.producer.get((layer.id, 1))
    known = tensors.get(src) if src is not None else None
    if axis is None or axis.size != 1 or int(axis.reshape(())) != 0 or known is None or not known.shape.is_static:
        return None
    shape = known.shape.to_tuple()
    return shape[0] if len(shape) == 1 and shape[0] >= 1 else None


def _default_shape(declared: PartialShape) -> tuple[tuple[int, ...], str]:
    dims, notes = [], []
    for i, d in enumerate(declared.dims or ()):
        if d.is_static:
            dims.append(d.lo)
            continue
        n = max(d.lo, 1) if d.contains(max(d.lo, 1)) else d.lo
        dims.append(n)
        notes.append(f"dim {i} {'?' if d.is_dynamic else d} -> {n}")
    return tuple(dims), ", ".join(notes)


def _unknown_names(model: Model, given: Iterable[str], option: str) -> None:
    keys = [k for p in model.parameters for k in parameter_keys(p)]
    unknown = [n for n in given if n not in keys]
    if unknown:
        raise UsageError([Diagnostic("unknown-name", f"{option} names {n!r}, which is not a Parameter "
                                     f"(Parameters: {parameter_list(model.parameters)}){did_you_mean(n, keys)}",
                                     ERROR, file=model.path) for n in unknown])


def plan_inputs(
    model: Model,
    shapes: Mapping[str, tuple[int, ...]] | None = None,
    val_ranges: Mapping[str | None, tuple[float, float]] | None = None,
) -> list[InputPlan]:
    """A shape and a value range for every Parameter; a name that is no
    Parameter is a UsageError (unknown-name), every other problem at once as
    an InputError."""
    shapes, val_ranges = dict(shapes or {}), dict(val_ranges or {})
    _unknown_names(model, shapes, "`input_shapes`")
    _unknown_names(model, [k for k in val_ranges if k is not None], "`val_ranges`")
    problems: list[Diagnostic] = []
    plans: list[InputPlan] = []
    defaults: dict[str, tuple[int, ...]] = {}
    for layer in model.parameters:
        op = model.ops[layer.id]
        if op is None:
            continue  # a type irexec cannot run: a run that needs this input is refused with unsupported-op
        declared: PartialShape = op.shape
        etype = op.element_type
        where = model.where(layer)
        given_as = next((n for n in parameter_keys(layer) if n in shapes), None)
        if given_as is not None:
            shape = shapes[given_as]
            bad = _misfit(declared, shape)
            if bad:
                problems.append(Diagnostic("input-shape-mismatch", f"`input_shapes` {given_as}:{','.join(map(str, shape))} "
                                           f"does not fit Parameter {parameter_label(layer)} declared {declared}: {bad}",
                                           ERROR, **where))
            note = "`input_shapes`"
        elif declared.is_static:
            shape, note = declared.to_tuple(), ""
        elif declared.dims is None:
            problems.append(Diagnostic("input-shape-needed", f"Parameter {parameter_label(layer)} ({etype.name}{declared}) "
                                       f"has a dynamic rank, so no default shape; give the shape with `input_shapes` "
                                       f"{layer.name}:{_example(declared)}", ERROR, **where))
            continue
        else:
            shape, note = _default_shape(declared)
            defaults[layer.name] = shape
        plans.append(InputPlan(layer, shape, note, np.dtype(etype.dtype), 0, 0, ""))
    if not problems and defaults:
        declared_shapes = {p.layer.name: model.ops[p.layer.id].shape for p in plans}  # type: ignore[union-attr]
        fitted, errors = fit_shapes(model, declared_shapes, {p.layer.name: p.shape for p in plans}, set(defaults))
        for plan in plans:
            if plan.layer.name not in defaults:
                continue
            if fitted is None:
                problems.append(Diagnostic(
                    "input-shape-needed", f"Parameter {parameter_label(plan.layer)} has dims that are not static and no "
                    f"size tried fits the model: with {format_shape(plan.shape)} {errors[0].format()}; give a shape "
                    f"that fits with `input_shapes` {plan.layer.name}:DIMS", ERROR, **model.where(plan.layer)))
            elif fitted[plan.layer.name] != plan.shape:
                plan.shape = fitted[plan.layer.name]
                plan.shape_note = _fitted_note(declared_shapes[plan.layer.name], plan.shape)
    if problems:
        raise InputError(problems)
    tensors: list = []  # inferred once, on the shapes chosen, when a range needs them

    def shapes_known() -> dict:
        if not tensors:
            tensors.append(inferred_tensors(model, {p.layer.name: p.shape for p in plans}))
        return tensors[0]

    for plan in plans:
        plan.low, plan.high, plan.range_note = _value_range(model, plan.layer, plan.dtype, val_ranges, shapes_known)
    return plans


def _fitted_note(declared: PartialShape, shape: tuple[int, ...]) -> str:
    notes = [f"dim {i} {'?' if d.is_dynamic else d} -> {n}" for i, (d, n) in enumerate(zip(declared.dims or (), shape))
             if not d.is_static]
    return ", ".join(notes) + " (sizes that fit the graph)"


def _value_range(model: Model, layer: Layer, dtype: np.dtype, val_ranges: Mapping[str | None, tuple[float, float]],
                 tensors: Callable[[], dict]) -> tuple[float, float, str]:
    given = next((n for n in parameter_keys(layer) if n in val_ranges), None)
    if dtype.kind == "b":
        return 0, 1, "coin flips"
    low_bit = lowbit.name_of(dtype)
    if low_bit in lowbit.NARROW_INTS or low_bit == "nf4":  # every value of the type (nf4: every code)
        bits, signed = lowbit.NARROW_INTS.get(low_bit, (4, False))
        return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1, "the type's range") if signed else (0, (1 << bits) - 1, "every code")
    if given is not None or None in val_ranges:
        low, high = val_ranges[given]
        why = "`val_ranges`"
    elif dtype.kind in "iu" and (inferred := infer_range(model, layer, tensors())) is not None:
        low, high, why = inferred
    elif dtype.kind in "iu" and (mask := mask_use(model, layer)) is not None:
        low, high, why = 1, 1, mask
    else:
        (low, high), why = (INT_RANGE if dtype.kind in "iu" else FLOAT_RANGE), "default"
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        low, high = max(math.ceil(low), int(info.min)), min(math.floor(high), int(info.max))
        if low > high:
            raise UsageError(f"`val_ranges` for {layer.name!r} holds no {dtype} value", code="bad-val-range")
    return low, high, why


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


def random_array(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype,
                 low: float | None = None, high: float | None = None) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind == "O":  # strings: random words, as NumPy unicode (what an .npz holds)
        letters = np.array(list("abcdefghijklmnopqrstuvwxyz    "))
        lengths = rng.integers(0, 17, size=shape)
        return np.array(["".join(rng.choice(letters, int(n))) for n in lengths.reshape(-1)], dtype=np.str_).reshape(shape)
    if dtype.kind == "b":
        return rng.integers(0, 2, size=shape, dtype=np.uint8).astype(np.bool_)
    low_bit = lowbit.name_of(dtype)
    if low_bit in lowbit.NARROW_INTS or low_bit == "nf4":
        values = rng.integers(int(low), int(high), size=shape, dtype=np.int64, endpoint=True)  # type: ignore[arg-type]
        return lowbit.from_integers(values, low_bit) if low_bit != "nf4" else lowbit.from_codes(values, "nf4")
    if low_bit is not None:  # the small floats: uniform values rounded to the type as Convert does
        lo_f, hi_f = FLOAT_RANGE if low is None or high is None else (low, high)
        return lowbit.from_float(rng.uniform(lo_f, hi_f, size=shape).astype(np.float32), low_bit)
    if dtype.kind in "iu":
        lo, hi = (INT_RANGE if low is None or high is None else (int(low), int(high)))
        if dtype.kind == "u" and dtype.itemsize == 8:
            return rng.integers(lo, hi, size=shape, dtype=np.uint64, endpoint=True)
        return rng.integers(lo, hi, size=shape, dtype=np.int64, endpoint=True).astype(dtype)
    lo_f, hi_f = FLOAT_RANGE if low is None or high is None else (low, high)
    return rng.uniform(lo_f, hi_f, size=shape).astype(dtype)  # float64 rounded once to the target type


def random_inputs(
    model: Model, seed: int = 0, shapes: Mapping[str, tuple[int, ...]] | None = None, max_memory: int | None = None,
    val_ranges: Mapping[str | None, tuple[float, float]] | None = None, plans: list[InputPlan] | None = None,
) -> dict[str, np.ndarray]:
    """One array per Parameter (keyed by Parameter name), reproducible from
    ``seed``; refused before allocating when over the memory limit."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        shown = repr(seed) if len(repr(seed)) <= 40 else repr(seed)[:40] + "..."
        raise UsageError(f"seed {shown} must be a non-negative integer", code="bad-seed")
    if plans is None:
        plans = plan_inputs(model, shapes, val_ranges)
    limit = limits.resolve(max_memory)
    # every value is drawn as a float64 or int64 temporary, then narrowed
    for plan in plans:
        why = limits.over_limit(limits.nbytes(plan.shape, 8 + plan.dtype.itemsize), limit)
        if why:
            raise InputError(f"generating input {plan.layer.name!r} {plan.dtype}{format_shape(plan.shape)} {why}",
                             code="memory-limit", **model.where(plan.layer))
    rng = np.random.default_rng(seed)
    return {plan.layer.name: random_array(rng, plan.shape, plan.dtype, plan.low, plan.high) for plan in plans}


def plan_rows(plans: list[InputPlan]) -> list[list[str]]:
    """Rows of the table ``irexec run`` prints for generated inputs."""
    rows = []
    for p in plans:
        names = ", ".join(n for n in tensor_names(p.layer) if n != p.layer.name) or "-"
        shape = format_shape(p.shape) + (f" ({spelled(p.shape_note)})" if p.shape_note else "")
        dtype = "string" if p.dtype.kind == "O" else lowbit.STRUCTURED.get(p.dtype) or str(p.dtype)
        rows.append([p.layer.name, names, dtype, shape, p.values, spelled(p.range_note)])
    return rows


def describe(feeds: Mapping[str, np.ndarray]) -> str:
    return ", ".join(f"{k} {v.dtype}{format_shape(v.shape)}" for k, v in feeds.items())
