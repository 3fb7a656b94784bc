"""Sizes for the dynamic dims of made-up inputs that the graph accepts.

Each dim that is not static starts at its lower bound (or 1).  When shape
inference on those sizes finds an error the declared shapes do not have (a
Gather's batch_dims ties two inputs' batch, a ReverseSequence's seq_lengths
Const fixes the batch, a MatMul's inner dims must agree), sizes are searched,
smallest first, each candidate checked by the same shape inference:

1. the dims at one axis of every input together (a batch or a sequence length
   that several inputs share), with the sizes the graph names (static dims of
   its ports, lengths of 1-D Consts) and a few powers of two;
2. every dynamic dim at one size;
3. one dim at a time.

The first assignment with no new error wins; when none is found, the error
names the constraint the smallest assignment still breaks.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator

from ..base.errors import ERROR, Diagnostic
from ..base.shapes import PartialShape
from ..ir.records import Layer
from ..ops.framework.tensor import TensorInfo
from ..ops.io import Const1
from .load import Model

# Sizes tried besides those the graph names: a CNN's spatial dims need a few
# pixels, a sequence a few tokens.
TRIAL_SIZES = (1, 2, 3, 4, 8, 16, 32, 64, 128, 224, 256, 512)
MAX_CANDIDATES = 32
MAX_CHECKS = 300  # shape inferences one search may run

Shapes = dict[str, tuple[int, ...]]


def new_errors(model: Model, shapes: Shapes, before: set | None = None) -> list[Diagnostic]:
    """The errors shape inference finds on these static input shapes that it
    does not find on the declared ones."""
    from ..checker.model_checker import check_model

    if before is None:
        before = {_key(d) for d in check_model(model, {}, keep_tensors=False).diagnostics if d.severity == ERROR}
    pinned = check_model(model, {k: PartialShape.static(v) for k, v in shapes.items()}, keep_tensors=False)
    return [d for d in pinned.diagnostics if d.severity == ERROR and _key(d) not in before]


def inferred_tensors(model: Model, shapes: Shapes) -> dict[tuple[int, int], TensorInfo]:
    """Every tensor's inferred shape on these input shapes (for value ranges)."""
    from ..checker.model_checker import check_model

    return check_model(model, {k: PartialShape.static(v) for k, v in shapes.items()}).tensors


def _key(d: Diagnostic) -> tuple:
    return (d.code, d.layer_id, d.port, d.message)


def graph_sizes(model: Model) -> list[int]:
    """Sizes the graph names: static dims of its ports and lengths of its 1-D Consts."""
    sizes: set[int] = set()
    for layer in model.layers.values():
        for port in (*layer.inputs, *layer.outputs):
            sizes.update(d for d in port.dims or () if d > 1)
        if isinstance(model.ops.get(layer.id), Const1) and len(layer.outputs) == 1:
            dims = layer.outputs[0].dims or ()
            if len(dims) == 1 and dims[0] > 1:
                sizes.add(dims[0])
    return sorted(sizes)


def fit_shapes(model: Model, declared: dict[str, PartialShape], defaults: Shapes,
               free_names: set[str]) -> tuple[Shapes | None, list[Diagnostic]]:
    """(shapes the graph accepts, []) or (None, the errors of the best sizes
    found).  ``defaults`` holds every input's shape; only the dynamic dims of
    the inputs in ``free_names`` (not given in `input_shapes`) are searched."""
    from ..checker.model_checker import check_model

    before = {_key(d) for d in check_model(model, {}, keep_tensors=False).diagnostics if d.severity == ERROR}
    checks = 0

    def cost(shapes: Shapes) -> tuple[int, int]:
        nonlocal checks
        checks += 1
        return len(new_errors(model, shapes, before)), sum(sum(s) for s in shapes.values())

    first = new_errors(model, defaults, before)
    if not first:
        return defaults, []
    free = [(name, axis) for name, shape in declared.items() if name in free_names
            for axis, d in enumerate(shape.dims or ()) if not d.is_static]
    sizes = sorted(set(TRIAL_SIZES) | set(graph_sizes(model)))
    near = sorted(sizes, key=lambda n: (n > 16, n))[:MAX_CANDIDATES]  # small ones first, then the graph's

    def fits(name: str, axis: int, n: int) -> bool:
        return declared[name].dims[axis].contains(n)  # type: ignore[index]

    def with_dims(base: Shapes, dims: list[tuple[str, int]], n: int) -> Shapes | None:
        out = {k: list(v) for k, v in base.items()}
        for name, axis in dims:
            if not fits(name, axis, n):
                return None
            out[name][axis] = n
        return {k: tuple(v) for k, v in out.items()}

    best, best_cost = defaults, (len(first), sum(sum(s) for s in defaults.values()))

    def descend(groups: list[list[tuple[str, int]]], start: Shapes, start_cost: tuple[int, int]) -> tuple[Shapes, tuple[int, int]]:
        current, current_cost = start, start_cost
        for _ in range(3):  # passes: a later group may free an earlier one
            improved = False
            for group in groups:
                for n in near:
                    if checks >= MAX_CHECKS or current_cost[0] == 0:
                        return current, current_cost
                    trial = with_dims(current, group, n)
                    if trial is None or trial == current:
                        continue
                    c = cost(trial)
                    if c < current_cost:
                        current, current_cost, improved = trial, c, True
            if not improved:
                break
        return current, current_cost

    axes = sorted({axis for _, axis in free})
    by_axis = [[(name, axis) for name, axis in free if axis == a] for a in axes]
    searches: list[Callable[[], tuple[Shapes, tuple[int, int]]]] = [
        lambda: descend(by_axis, defaults, best_cost),
        lambda: descend([free], defaults, best_cost),
        lambda: descend([[f] for f in free], best, best_cost),
    ]
    for search in searches:
        found, c = search()
        if c < best_cost:
            best, best_cost = found, c
        if best_cost[0] == 0:
            return best, []
    return None, new_errors(model, best, before) or first


_PASS = frozenset({"Convert", "Reshape", "Squeeze", "Unsqueeze"})


def mask_use(model: Model, parameter: Layer) -> str | None:
    """Why an integer Parameter is a mask (its values reach a Convert to boolean
    through reshapes): an attention mask's made-up value is all ones."""
    for layer, _ in reached_by(model, parameter, _PASS):
        if layer.type == "Convert" and layer.data.get("destination_type", "").lower() in ("boolean", "bool"):
            return f"a mask (Convert to boolean {layer.name!r}): ones"
    return None


def reached_by(model: Model, parameter: Layer, passing: Collection[str]) -> Iterator[tuple[Layer, int]]:
    """Every (layer, input index) a Parameter's value reaches, also through layers
    of the types in ``passing`` (by their first input, which they only reshape)."""
    frontier, seen = [(parameter.id, 0)], set()
    while frontier:
        src = frontier.pop()
        if src in seen:
            continue
        seen.add(src)
        for lid, index in model.graph.consumers.get(src, []):
            layer = model.layers[lid]
            if layer.type in passing and index == 0:
                frontier.append((lid, 0))
            yield layer, index
