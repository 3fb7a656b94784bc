"""The compressed weights of B against A's originals (``irexec diff A.xml B.xml``).

A weight of B is the constant sub-graph feeding a matched weighted layer: NNCF's
decompression chain ``Const(u8/u4/...) -> Convert -> [Subtract zero point] ->
Multiply scale -> [Reshape] -> [Convert]``, or a FakeQuantize.  Its decompressed
value (what B's layer reads) is compared with A's weight at the same input of the
same layer.  Weights are ranked by the layer's own output error on the inputs: the
layer re-run with A's weight on B's activations against B's output, which is what
that weight alone puts into the layer; ``ablation.py`` then measures the first ones by the
model outputs' error with only that weight compressed, and ranks them by it.  Weights beyond
the rounding of their format (below) come first whatever their figures: they are damaged.

A quantized weight is within the rounding of its format when every element is within
one quantization step of A's: the gap between the format's levels where B's value lies,
times the scale.  Integers have evenly spaced levels (the step is the scale); NF4's code
book and the small floats (FP4, FP8) do not: their gap is that of the two levels around
the stored value (FP8's grows with the exponent), and a weight stored as f16 or bf16 with
no scale has its own ulp as the step.  The layer's own error is then bounded by
``|x| @ step`` (the layer run on the activations' magnitudes and the steps).  A layer
beyond that bound, or with a weight beyond one step, is damaged beyond compression.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...ir.records import Layer
from .matching import WEIGHTED, Matching
from .reference import ReferenceSide
from .report import MATCH, ORIGIN, DiffReport

_CHAIN = ("Convert", "Reshape", "Multiply", "Subtract", "Transpose", "Unsqueeze", "Squeeze")


@dataclass
class WeightResult:
    layer: str  # the consumer layer (same name in A and B when matched by name)
    b_layer: str
    port: int  # the consumer's input
    source: str  # B's layer giving the decompressed weight
    element_type: str  # of the stored weight, "u4"
    shape: list[int]
    group_size: int | None
    zero_point: str  # "none", "scalar 8", "per group (u4)"
    sqnr_db: float
    max_abs_error: float
    mean_abs_error: float
    max_steps: float | None  # largest element error in quantization steps; > 1 is beyond rounding
    layer_rel_l2: float = 0.0  # the layer's own output error from this weight, on the inputs
    layer_max_abs_error: float = 0.0
    layer_within_bound: bool | None = None  # own error within |x| @ step
    output_rel_l2: float | None = None  # the model outputs' error with only this weight compressed (ablation.py)
    notes: list[str] = field(default_factory=list)

    @property
    def within_rounding(self) -> bool:
        return self.max_steps is not None and self.max_steps <= 1.0 + 1e-6 and self.layer_within_bound is not False

    def as_dict(self) -> dict[str, Any]:
        def num(x: float | None) -> float | str | None:
            return None if x is None else x if math.isfinite(x) else str(x)

        return {"layer": self.layer, "b_layer": self.b_layer, "port": self.port, "source": self.source,
                "element_type": self.element_type, "shape": self.shape, "group_size": self.group_size,
                "zero_point": self.zero_point, "sqnr_db": num(self.sqnr_db), "max_abs_error": num(self.max_abs_error),
                "mean_abs_error": num(self.mean_abs_error), "max_steps": num(self.max_steps),
                "layer_rel_l2": num(self.layer_rel_l2), "layer_max_abs_error": num(self.layer_max_abs_error),
                "layer_within_bound": self.layer_within_bound, "within_rounding": self.within_rounding,
                "output_rel_l2": num(self.output_rel_l2),
                "notes": self.notes}


@dataclass
class _Chain:
    element_type: str = "?"
    stored_shape: tuple[int, ...] | None = None  # of the stored Const, as the IR declares it
    codebook: np.ndarray | None = None  # the entries of a code book the stored indices select
    scale: np.ndarray | None = None
    zero: np.ndarray | None = None
    zero_type: str = ""


def _const(side: ReferenceSide, kept: dict[int, list[np.ndarray]], src: tuple[Layer, int] | None) -> np.ndarray | None:
    """The value of a constant input, through a Convert."""
    while src is not None:
        layer, port = src
        if layer.type != "Convert":
            return _evaluate(side, kept, src)
        src = side.producers(layer)[0]
    return None


def _evaluate(side: ReferenceSide, kept: dict[int, list[np.ndarray]], src: tuple[Layer, int], depth: int = 0
              ) -> np.ndarray | None:
    """A constant sub-graph's value: as the run kept it, else computed again (a later run of a cached
    model skips a packed Const, an e8m0 scale, whose chains' values it keeps, and the layers between)."""
    layer, port = src
    found = kept.get(layer.id)
    if found is None and depth < 8 and layer.id not in side.varying:
        args = [None if s is None else _evaluate(side, kept, s, depth + 1) for s in side.producers(layer)]
        if all(a is not None for a in args):
            found = side.replay(layer, args)  # type: ignore[arg-type]
    return None if found is None or port >= len(found) else found[port]


def _root_size(side: ReferenceSide, src: tuple[Layer, int] | None) -> int:
    """Elements of the Const at the root of a decompression input (a Gather's: its indices)."""
    for _ in range(16):
        if src is None:
            return 0
        layer = src[0]
        if layer.type == "Const":
            return int(np.prod([int(d) for d in layer.outputs[0].dims]))
        srcs = side.producers(layer)
        src = srcs[1] if layer.type == "Gather" and len(srcs) > 1 else srcs[0] if srcs else None
    return 0


def _walk(side: ReferenceSide, kept: dict[int, list[np.ndarray]], layer: Layer) -> _Chain:
    chain = _Chain()
    for _ in range(16):
        if layer.type == "FakeQuantize":
            chain.element_type = f"fake-quantize levels={layer.data.get('levels', '?')}"
            return chain
        if layer.type == "Const":
            prec = layer.outputs[0].precision
            chain.element_type = prec.name if prec is not None else "?"
            # the declared shape, not the value: a later run does not unpack a weight whose chain is kept
            chain.stored_shape = tuple(int(d) for d in layer.outputs[0].dims)
            return chain
        srcs = side.producers(layer)
        if layer.type == "Gather" and len(srcs) >= 2:  # a code book (CB4): the stored values are its entries
            book, index = _const(side, kept, srcs[0]), _root_const(side, srcs[1])
            head = _root_const(side, srcs[0])
            if book is not None and index is not None:
                prec = head.outputs[0].precision if head is not None else None
                chain.element_type = f"codebook of {np.size(book)} ({prec.name if prec is not None else '?'})"
                chain.codebook = np.asarray(book, np.float64).ravel()
                chain.stored_shape = tuple(int(d) for d in index.outputs[0].dims)
                return chain
        if layer.type not in _CHAIN:
            chain.element_type = layer.type
            return chain
        if layer.type in ("Multiply", "Subtract") and len(srcs) == 2:
            # the data goes through the side with the most stored elements (a scale or zero point has one a
            # group); with as many, through the side that is not a plain (converted) Const
            sizes = [_root_size(side, s) for s in srcs]
            heads = [_head(side, s) for s in srcs]
            data = 0 if heads[0] is not None and heads[0].type != "Const" else 1 if heads[1] is not None and heads[1].type != "Const" else 0
            if sizes[0] != sizes[1]:
                data = 0 if sizes[0] > sizes[1] else 1
            other = _const(side, kept, srcs[1 - data])
            if layer.type == "Multiply":
                chain.scale = other
            else:
                chain.zero = other
                head = _root_const(side, srcs[1 - data])
                chain.zero_type = "" if head is None or head.outputs[0].precision is None else head.outputs[0].precision.name
            nxt = srcs[data]
        else:
            nxt = srcs[0] if srcs else None
        if nxt is None:
            return chain
        layer = nxt[0]
    return chain


def _head(side: ReferenceSide, src: tuple[Layer, int] | None) -> Layer | None:
    """The first layer above ``src`` that is not a Convert."""
    while src is not None and src[0].type == "Convert":
        src = side.producers(src[0])[0]
    return None if src is None else src[0]


def _root_const(side: ReferenceSide, src: tuple[Layer, int] | None) -> Layer | None:
    head = _head(side, src)
    return head if head is not None and head.type == "Const" else None


_LEVELS: dict[str, np.ndarray | None] = {}


def levels(element_type: str) -> np.ndarray | None:
    """The sorted finite values of a format whose levels are not evenly spaced (NF4's code book,
    the small floats and f16/bf16), or None for an integer format (a gap of 1 everywhere)."""
    if element_type in _LEVELS:
        return _LEVELS[element_type]
    from ...base import lowbit

    found: np.ndarray | None = None
    if element_type == "nf4":
        found = np.asarray(lowbit.NF4_VALUES, np.float64)
    elif element_type in ("f4e2m1", "f8e4m3", "f8e5m2", "f16", "bf16"):
        import ml_dtypes

        dtype = {"f4e2m1": ml_dtypes.float4_e2m1fn, "f8e4m3": ml_dtypes.float8_e4m3fn,
                 "f8e5m2": ml_dtypes.float8_e5m2, "f16": np.float16, "bf16": ml_dtypes.bfloat16}[element_type]
        bits = 4 if element_type == "f4e2m1" else 8 if element_type.startswith("f8") else 16
        codes = np.arange(1 << bits, dtype=np.uint16 if bits == 16 else np.uint8)
        if bits == 4:
            values = np.asarray(lowbit.to_number(lowbit.from_codes(codes, "f4e2m1")), np.float64)
        else:
            values = codes.view(dtype).astype(np.float64)
        found = np.unique(values[np.isfinite(values)])
    _LEVELS[element_type] = found
    return found


def level_gap(element_type: str, stored: np.ndarray) -> np.ndarray | float:
    """The gap between the format's levels around each stored value: the larger of the two
    gaps beside the nearest level (an integer format: 1)."""
    grid = levels(element_type)
    return 1.0 if grid is None else grid_gap(grid, stored)


def grid_gap(grid: np.ndarray, stored: np.ndarray) -> np.ndarray:
    """The larger of the two gaps of the sorted levels ``grid`` beside the level nearest each value."""
    if grid.size < 2:
        return np.ones(np.shape(stored))
    x = np.asarray(stored, np.float64)
    i = np.clip(np.searchsorted(grid, x), 1, grid.size - 1)
    nearest = np.where(np.abs(grid[i - 1] - x) <= np.abs(grid[i] - x), i - 1, i)
    gaps = np.diff(grid)
    below = gaps[np.clip(nearest - 1, 0, gaps.size - 1)]
    above = gaps[np.clip(nearest, 0, gaps.size - 1)]
    return np.maximum(below, above)


def _step(chain: _Chain, vb: np.ndarray) -> np.ndarray | None:
    """Per element of B's decompressed weight, its quantization step: the gap between the
    stored format's levels where the value lies, times |scale|; a float weight with no scale
    (f16, bf16) has its ulp there.  From B's value, never from the stored codes (which a
    cached run does not unpack)."""
    shape = vb.shape
    if chain.scale is None:
        if chain.element_type in ("f16", "bf16") and chain.zero is None:
            return np.broadcast_to(np.asarray(level_gap(chain.element_type, vb), np.float64), shape)
        return None
    stored_shape = chain.stored_shape if chain.stored_shape is not None else shape
    try:
        scale = np.broadcast_to(chain.scale.astype(np.float64), stored_shape).reshape(shape)
        zero = 0.0 if chain.zero is None else \
            np.broadcast_to(chain.zero.astype(np.float64), stored_shape).reshape(shape)
    except ValueError:
        return None
    grid = levels(chain.element_type) if chain.codebook is None else \
        np.unique(chain.codebook[np.isfinite(chain.codebook)])
    if grid is None:
        return np.abs(scale)
    with np.errstate(divide="ignore", invalid="ignore"):
        stored = np.where(scale != 0, vb / np.where(scale != 0, scale, 1.0), 0.0) + zero
    return np.asarray(grid_gap(grid, stored), np.float64) * np.abs(scale)


WEIGHT_TEMPORARIES = 8  # float64 arrays of a weight's size that comparing it makes at once, at most


def rank_weights(ref: ReferenceSide, other: ReferenceSide, matching: Matching, kept_a: dict[int, list[np.ndarray]],
                 kept_b: dict[int, list[np.ndarray]], report: DiffReport) -> list[WeightResult]:
    out: list[WeightResult] = []
    for a_name, b_name in matching.layer.items():
        la, lb = ref.by_name[a_name], other.by_name[b_name]
        if lb.type not in WEIGHTED:
            continue
        srcs_a, srcs_b = ref.producers(la), other.producers(lb)
        for port, (sa, sb) in enumerate(zip(srcs_a, srcs_b)):
            if sa is None or sb is None or sb[0].id in other.varying or sa[0].id in ref.varying:
                continue
            wa, wb = kept_a.get(sa[0].id), kept_b.get(sb[0].id)
            if wa is None or wb is None:
                continue
            # both weights widened, their error, its steps and the layer's bound: float64 arrays of the weight's size
            with ref.memory.temporaries(WEIGHT_TEMPORARIES * 8 * int(np.size(wa[sa[1]])),
                                        f"comparing the weights of {la.display} layer {la.name!r}"):
                va, vb = np.asarray(wa[sa[1]], np.float64), np.asarray(wb[sb[1]], np.float64)
                if va.shape != vb.shape or va.dtype.kind not in "fc" or va.size < 2:
                    continue
                if np.array_equal(va, vb):
                    continue  # the same weight (perhaps stored in another type, f16 against f32 of equal values)
                chain = _walk(other, kept_b, sb[0])
                out.append(_result(ref, la, lb, port, sb[0].name, chain, va, vb, kept_b, other, lb))
    by_layer = {r.name: r for r in report.layers}
    for w in out:
        r = by_layer.get(w.layer)
        if r is not None and r.local is not None and w.layer_rel_l2 == 0.0:
            w.layer_rel_l2 = r.local.rel_l2
    # a weight beyond the rounding of its format is broken, not traded for size: those first
    out.sort(key=lambda w: (w.within_rounding, -w.layer_rel_l2, -w.max_abs_error, w.layer))
    return out


def _result(ref: ReferenceSide, la: Layer, lb: Layer, port: int, source: str, chain: _Chain, va: np.ndarray,
            vb: np.ndarray, kept_b: dict[int, list[np.ndarray]], other: ReferenceSide, layer_b: Layer) -> WeightResult:
    err = vb - va
    power, noise = float(np.sum(va * va)), float(np.sum(err * err))
    sqnr = math.inf if noise == 0 else 10 * math.log10(power / noise) if power > 0 else -math.inf
    step = _step(chain, vb)
    max_steps = None if step is None else float(np.max(np.abs(err) / np.maximum(step, 1e-30)))
    group = None
    if chain.scale is not None and chain.scale.size:
        group = int(va.size // chain.scale.size)
    if chain.zero is None:
        zero = "none"
    elif chain.zero.size == 1:
        zero = f"scalar {float(np.ravel(chain.zero)[0]):g}"
    else:
        zero = f"per group ({chain.zero_type or chain.zero.dtype})"
    w = WeightResult(la.name, lb.name, port, source, chain.element_type, list(va.shape), group, zero, sqnr,
                     float(np.max(np.abs(err))), float(np.mean(np.abs(err))), max_steps)
    _own_error(ref, la, port, va, step, kept_b, other, layer_b, w)
    return w


def _own_error(ref: ReferenceSide, la: Layer, port: int, va: np.ndarray, step: np.ndarray | None,
               kept_b: dict[int, list[np.ndarray]], other: ReferenceSide, lb: Layer, w: WeightResult) -> None:
    """The layer re-run with A's weight on B's inputs against B's output, and the bound
    the weight's rounding gives (the layer on |inputs| and the steps)."""
    inputs = []
    for src in other.producers(lb):
        if src is None or src[0].id not in kept_b:
            return
        inputs.append(kept_b[src[0].id][src[1]])
    y_b = kept_b.get(lb.id)
    if y_b is None:
        return
    mine = list(inputs)
    mine[port] = va.astype(np.asarray(inputs[port]).dtype)
    outs = ref.replay(la, mine)
    if outs is None:
        return
    yb, ya = np.asarray(y_b[0], np.float64), np.asarray(outs[0], np.float64)
    if yb.shape != ya.shape:
        return
    diff = np.abs(yb - ya)
    norm = float(np.linalg.norm(ya))
    w.layer_rel_l2 = float(np.linalg.norm(diff)) / norm if norm else float(np.linalg.norm(diff))
    w.layer_max_abs_error = float(diff.max()) if diff.size else 0.0
    if step is None:
        return
    bound_in = [np.abs(np.asarray(x)) for x in inputs]
    bound_in[port] = step.astype(np.asarray(inputs[port]).dtype)
    bound = ref.replay(la, bound_in)
    if bound is None or np.shape(bound[0]) != diff.shape:
        return
    slack = 1e-5 * (np.abs(ya) + 1e-30) + 1e-6 * float(np.max(np.abs(ya), initial=0.0))  # f32 rounding of both sides
    w.layer_within_bound = bool(np.all(diff <= np.asarray(bound[0], np.float64) * (1 + 1e-5) + slack))


def decompressed(other: ReferenceSide, kept_b: dict[int, list[np.ndarray]], weights: list[WeightResult]
                 ) -> dict[str, np.ndarray]:
    """B's decompressed value of each weight, by "layer:port" (the arrays B's run kept, not copies)."""
    out = {}
    for w in weights:
        src = other.producers(other.by_name[w.b_layer])[w.port]
        if src is not None and src[0].id in kept_b:
            out[f"{w.layer}:{w.port}"] = kept_b[src[0].id][src[1]]
    return out


def compression_tolerance(report: DiffReport) -> list[str]:
    """Origins whose every compressed weight is within rounding become matches; their names."""
    by_layer: dict[str, list[WeightResult]] = {}
    for w in report.weights:
        by_layer.setdefault(w.layer, []).append(w)
    tolerated = []
    for r in report.layers:
        ws = by_layer.get(r.name)
        if r.status == ORIGIN and ws and all(w.within_rounding for w in ws):
            r.status = MATCH
            tolerated.append(r.name)
    for r in report.outputs:  # the outputs table repeats the statuses of the layers giving them
        if r.name in tolerated:
            r.status = MATCH
    return tolerated


def ignored_scope(weights: list[WeightResult], top: int = 5) -> str:
    """The top layers as an NNCF ignored scope to paste."""
    return scope_text(list(dict.fromkeys(w.layer for w in weights[:top])))


def scope_text(names: list[str]) -> str:
    body = ",\n".join(f"    {n!r}" for n in names)
    return f"nncf.IgnoredScope(names=[\n{body},\n])"


__all__ = ["WeightResult", "compression_tolerance", "decompressed", "ignored_scope", "rank_weights"]
