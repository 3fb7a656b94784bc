"""Running a model: feeds checked against the Parameters, layers executed in
topological order, every intermediate released after its last consumer."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import ml_dtypes
import numpy as np

from . import dtypes, limits
from .checker import declared_shape, declared_text
from .errors import ERROR, WARNING, Diagnostic, InputError, InternalError, IRExecError, UsageError, shorten
from .ir.reader import Layer
from .model import Model
from .ops.base import FOLD_LIMIT_ELEMENTS, Op, TensorInfo
from .shapes import PartialShape, format_shape

# Called after each layer with (layer, its output arrays, seconds spent).
LayerHook = Callable[[Layer, list[np.ndarray], float], None]


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


def _parameter_for(model: Model) -> dict[str, Layer]:
    by_name: dict[str, Layer] = {}
    for p in model.parameters:
        by_name.setdefault(p.name, p)
    for p in model.parameters:
        for port in p.outputs:
            for n in port.names:
                by_name.setdefault(n, p)
    return by_name


def _coerce(arr: np.ndarray, etype: dtypes.ElementType) -> np.ndarray | None:
    """The array as the Parameter's dtype when it holds exactly that type."""
    if etype.name == "bf16":
        if arr.dtype == ml_dtypes.bfloat16:
            return arr
        if arr.dtype.kind == "V" and arr.dtype.itemsize == 2 or arr.dtype == np.uint16:
            return arr.view(ml_dtypes.bfloat16)  # npz stores bf16 as |V2; uint16 raw bits also accepted
        return None
    got = dtypes.from_dtype(arr.dtype)
    if got is None or got.name != etype.name:
        return None
    return arr if arr.dtype.byteorder != ">" else None


def bind_feeds(model: Model, feeds: Mapping[str, np.ndarray]) -> dict[int, np.ndarray]:
    """Match feeds to Parameters; every problem at once as input-mismatch."""
    params = _parameter_for(model)
    bound: dict[int, np.ndarray] = {}
    problems: list[Diagnostic] = []
    for key, value in feeds.items():
        layer = params.get(key)
        if layer is None:
            known = _some_names(model.parameters)
            problems.append(Diagnostic("input-mismatch", f"input {key!r} matches no Parameter (Parameters: {known})", ERROR,
                                       file=model.path))
            continue
        where = model.where(layer, layer.outputs[0].id if layer.outputs else None, "output" if layer.outputs else None)
        if layer.id in bound:
            problems.append(Diagnostic("input-mismatch", f"fed twice (input {key!r} names the same Parameter)", ERROR, **where))
            continue
        op = model.ops[layer.id]
        arr = np.asarray(value)
        etype, pshape = op.element_type, op.shape  # type: ignore[union-attr]
        coerced = _coerce(arr, etype)
        if coerced is None:
            problems.append(Diagnostic("input-mismatch", f"input {key!r} has dtype {arr.dtype} but the Parameter is {etype.name} "
                                       f"(irexec does not cast inputs)", ERROR, **where))
            continue
        if not pshape.accepts(coerced.shape):
            problems.append(Diagnostic("input-mismatch", f"input {key!r} has shape {format_shape(coerced.shape)} but the Parameter "
                                       f"accepts {pshape}", ERROR, **where))
            continue
        bound[layer.id] = coerced
    reported = {d.layer_id for d in problems}  # a set: a model may have tens of thousands of Parameters
    for p in model.parameters:
        if p.id not in bound and p.id not in reported:
            op = model.ops[p.id]
            problems.append(Diagnostic("input-mismatch", f"no input given for Parameter {p.name!r} "
                                       f"({op.element_type.name}{op.shape})", ERROR, **model.where(p)))  # type: ignore[union-attr]
    if problems:
        raise InputError(problems)
    return bound


def _some_names(layers: list[Layer], shown: int = 10) -> str:
    names = ", ".join(shorten(p.name) for p in layers[:shown]) or "none"
    return names + (f", and {len(layers) - shown} more" if len(layers) > shown else "")


@dataclass
class RunResult:
    outputs: dict[str, np.ndarray]
    times: dict[int, float] = field(default_factory=dict)  # layer id -> seconds
    stopped_at: Layer | None = None
    warnings: list[Diagnostic] = field(default_factory=list)  # computed shapes the file declares otherwise


def live_layers(model: Model, targets: list[int]) -> set[int]:
    live = set(targets)
    stack = list(targets)
    while stack:
        for pred in model.graph.dag.predecessors(stack.pop()):
            if pred not in live:
                live.add(pred)
                stack.append(pred)
    return live


def run_model(
    model: Model,
    feeds: Mapping[str, np.ndarray],
    *,
    stop_at: str | None = None,
    on_layer: LayerHook | None = None,
    keep_all: bool = False,
    max_memory: int | None = None,
) -> RunResult:
    """Execute the model.  ``stop_at`` (layer id or name) ends the run there and
    returns that layer's outputs; ``keep_all`` keeps intermediates alive for hooks.
    ``max_memory`` bounds the bytes of live tensors (default: limits.default_max_memory())."""
    bound = bind_feeds(model, feeds)
    limit = limits.resolve(max_memory)
    _refuse_large_inputs(model, bound, limit)
    graph = model.graph
    stop_layer: Layer | None = None
    if stop_at is not None:
        stop_layer = model.find_layer(stop_at)
        if stop_layer is None:
            raise UsageError(f"--stop-at {stop_at!r} names no layer (give a layer id or name)", code="unknown-layer", file=model.path)
        targets = [stop_layer.id]
    else:
        targets = [r.id for r in model.results]
    live = live_layers(model, targets)
    order = [lid for lid in graph.order if lid in live]
    sources = {lid: graph.inputs_of(lid) for lid in order}

    # how many reads each tensor still has ahead of it
    remaining: dict[tuple[int, int], int] = {}
    for lid in order:
        for src in sources[lid]:
            if src is not None:
                remaining[src] = remaining.get(src, 0) + 1

    values: dict[tuple[int, int], np.ndarray] = {}
    results: dict[int, np.ndarray] = {}
    times: dict[int, float] = {}
    held = 0  # bytes of `values` and `results`, aliases counted twice: an upper bound
    warnings: list[Diagnostic] = []
    for lid in order:
        layer = model.layers[lid]
        op = model.ops[lid]
        if op is None:  # load() refuses such models; read_model() users get a clear error
            raise IRExecError("layer cannot be executed", code="unsupported-op", **model.where(layer))
        args = [values[src] for src in sources[lid]]  # type: ignore[index]
        if lid not in bound:
            refuse_over_memory_limit(model, layer, op, args, values, results, limit, held)
        start = time.perf_counter()
        try:
            outs = [bound[lid]] if lid in bound else list(op.compute(*args))
        except IRExecError as e:
            raise type(e)(model.locate(e.diagnostics, layer)) from None
        except MemoryError:
            raise IRExecError("ran out of memory computing this layer", code="out-of-memory", **model.where(layer)) from None
        except Exception as e:  # a kernel bug, not the user's doing
            raise InternalError(f"{layer.display} layer {layer.id} {layer.name!r} failed: {type(e).__name__}: {e}") from e
        elapsed = time.perf_counter() - start
        times[lid] = elapsed
        if layer.type.lower() == "result":
            results[lid] = outs[0]
            held += outs[0].nbytes
        for i, arr in enumerate(outs[: len(layer.outputs)]):
            values[(lid, i)] = arr
            held += arr.nbytes
            if arr.shape != layer.outputs[i].dims:
                _note_undeclared_shape(model, layer, i, arr.shape, warnings)
        if on_layer is not None:
            on_layer(layer, outs, elapsed)
        if not keep_all:
            for src in sources[lid]:
                remaining[src] -= 1  # type: ignore[index]
                if remaining[src] == 0 and not (stop_layer is not None and src[0] == stop_layer.id):  # type: ignore[index]
                    gone = values.pop(src, None)  # type: ignore[arg-type]
                    held -= gone.nbytes if gone is not None else 0

    if stop_layer is not None:
        if stop_layer.type.lower() == "result":
            outputs = {output_names(model)[stop_layer.id]: results[stop_layer.id]}
        else:
            outputs = {_port_key(stop_layer, i): values[(stop_layer.id, i)] for i in range(len(stop_layer.outputs))}
        return RunResult(outputs, times, stop_layer, warnings)
    names = output_names(model)
    return RunResult({names[r.id]: results[r.id] for r in model.results}, times, None, warnings)


def _note_undeclared_shape(model: Model, layer: Layer, index: int, shape: tuple[int, ...], out: list[Diagnostic]) -> None:
    """A computed output whose shape the port's ``<dim>``s rule out.  OpenVINO
    never looks at them, so the run goes on; ``irexec check`` calls it an error."""
    port = layer.outputs[index]
    if declared_shape(port).accepts(shape):  # no <dim> at all reads as dynamic rank, which accepts any shape
        return
    out.append(Diagnostic("shape-mismatch", f"declared {declared_text(port)} but computed {format_shape(shape)}; the run goes on as "
                          "OpenVINO's would (irexec check reports this as an error)", WARNING,
                          **model.where(layer, port.id, "output", port.line)))


def _refuse_large_inputs(model: Model, bound: dict[int, np.ndarray], limit: int) -> None:
    total = sum(a.nbytes for a in bound.values())
    why = limits.over_limit(total, limit)
    if why:
        raise InputError(f"the inputs together {why}", code="memory-limit", file=model.path)


# Outputs of these layers take no new memory: a Const is a view of the mapped
# .bin, a Result passes its input through.
_NO_ALLOCATION = frozenset({"const", "constant", "result"})


def refuse_over_memory_limit(
    model: Model,
    layer: Layer,
    op: Op,
    args: list[np.ndarray],
    values: Mapping[tuple[int, int], np.ndarray],
    results: Mapping[int, np.ndarray],
    limit: int,
    held: int,
) -> None:
    """Before a kernel runs: infer its output shapes from the concrete inputs and
    refuse the layer (``memory-limit``) if they and the tensors still alive would
    exceed ``limit`` bytes.  Nothing is allocated to find out.  ``held`` is an
    upper bound of the live bytes, so the common case costs no inference."""
    if layer.type.lower() in _NO_ALLOCATION:
        return
    quick = op.output_nbytes(*args)
    if quick is not None and quick + held <= limit:
        return
    infos = []
    for a in args:
        etype = dtypes.from_dtype(a.dtype)
        if etype is None:
            return  # a dtype only a kernel bug produces; compute reports it
        # small inputs carry their values (axes, shifts) so shapes that depend on them are exact
        infos.append(TensorInfo(PartialShape.static(a.shape), etype, a if a.size <= FOLD_LIMIT_ELEMENTS else None))
    try:
        outs = op.infer(*infos)
    except IRExecError:
        return  # invalid inputs: the kernel reports them, with its run-time codes
    except Exception as e:  # infer disagreeing with compute is a bug, not the user's doing
        raise InternalError(f"{layer.display} layer {layer.id} {layer.name!r}: shape inference failed on concrete "
                            f"inputs: {type(e).__name__}: {e}") from e
    need = 0
    for info in outs:
        if not info.shape.is_static:
            return  # the op cannot say before computing; nothing to hold it to
        need += limits.nbytes(info.shape.to_tuple(), info.etype.itemsize)
    if need + held <= limit:
        return  # even counting the mapped Consts and any aliases twice, it fits
    distinct: dict[int, int] = {}  # exact: each array once, mapped Consts not at all
    for (src, _), a in values.items():
        if model.layers[src].type.lower() not in _NO_ALLOCATION:
            distinct[id(a)] = a.nbytes
    for a in results.values():
        distinct[id(a)] = a.nbytes
    alive = sum(distinct.values())
    why = limits.over_limit(need + alive, limit)
    if why:
        shapes = ", ".join(f"{i.etype.name}{i.shape}" for i in outs)
        also = f" plus {limits.format_bytes(alive)} of tensors still in use" if alive else ""
        raise IRExecError(f"output {shapes}{also} {why}", code="memory-limit", **model.where(layer))


def _port_key(layer: Layer, index: int) -> str:
    port = layer.outputs[index]
    return port.names[0] if port.names else f"{layer.name}:{port.id}"
