"""TensorIterator-1, Loop-5 and If-8: ops whose bodies are graphs of their own.

A body is the layer's ``<body>`` (If: ``<then_body>``/``<else_body>``), read
with the layer and bound like the main graph (see ``body.py``), so it is
checked like the main graph (its findings point at lines inside the body) and
run by the same executor, through the services its ``Body`` carries.
``<port_map>`` ties the op's ports to the body's
Parameters and Results; ``<back_edges>`` feed a Result to a Parameter of the
next iteration.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...base import dtypes, limits
from ...base.errors import Diagnostic, ModelError, OpError
from ...base.shapes import DYNAMIC, Dim, PartialShape
from ..framework.base import BOOLEAN, INDEX, In, Inference, Op, TensorInfo, op_error
from ..framework.body import Body, BodyOutput
from ..framework.body_checks import infer_body
from ..framework.body_slicing import check_slices, num_slices, slice_begin
from ..framework.registry import register

# Bodies that feed back into themselves may change a merged input's shape;
# shape inference re-runs the body until the shapes settle, at most this often
# (widening what changed, so the last round always settles).
_SETTLE_ROUNDS = 4
class BodyInference(Inference):
    """An inference that also carries the findings of the bodies' checks."""

    def __init__(self, outputs: list[TensorInfo], plan: Any = None, body_diagnostics: Sequence[Diagnostic] = ()):
        super().__init__(outputs, plan)
        self.body_diagnostics = list(body_diagnostics)


# ------------------------------------------------------------ shared machinery


def _with_dim(shape: PartialShape, axis: int, dim: Dim) -> PartialShape:
    if shape.dims is None or not -len(shape.dims) <= axis < len(shape.dims):
        return shape
    dims = list(shape.dims)
    dims[axis] = dim
    return PartialShape(tuple(dims))


def _hull(a: PartialShape, b: PartialShape) -> PartialShape:
    """A shape that holds both (what an output is when it may come from either)."""
    if a.dims is None or b.dims is None or len(a.dims) != len(b.dims):
        return PartialShape(None)
    dims = []
    for x, y in zip(a.dims, b.dims):
        hi = None if x.hi is None or y.hi is None else max(x.hi, y.hi)
        dims.append(Dim(min(x.lo, y.lo), hi))
    return PartialShape(tuple(dims))


def _widen(seed: PartialShape, found: PartialShape) -> PartialShape:
    """What a back edge's Parameter is fed from the second iteration on: the
    seed when the body gives back a shape within it, otherwise the seed with
    the side that moved left open (a dim that grew has no upper bound, one
    that shrank none but 0 below), so shapes settle in a few rounds."""
    if seed.dims is None:
        return seed
    if found.dims is None or len(found.dims) != len(seed.dims):
        return PartialShape(None)
    dims = []
    for a, b in zip(seed.dims, found.dims):
        lo = a.lo if b.lo >= a.lo else 0
        hi = a.hi if a.hi is not None and b.hi is not None and b.hi <= a.hi else None
        dims.append(a if (lo, hi) == (a.lo, a.hi) else Dim(lo, hi))
    return PartialShape(tuple(dims))


def _param_info(body: Body, lid: int) -> TensorInfo:
    op = body.model.ops.get(lid)
    if op is None:
        return TensorInfo(PartialShape(None), dtypes.get("dynamic"))
    return TensorInfo(op.shape, op.element_type)


def _unknown() -> TensorInfo:
    return TensorInfo(PartialShape(None), dtypes.get("dynamic"))


def _refuse_broken_body(body: Body, what: str) -> None:
    errors = body.errors
    if errors:
        raise ModelError(errors)


@dataclass(frozen=True)
class IterPlan:
    iterations: int | None  # None: decided while running (Loop)


class SubgraphOp(Op):
    """An op with bodies; the binding layer sets them (``body.read_bodies``) after the op is built."""

    family = "control"
    body_tags: tuple[str, ...] = ("body",)
    bodies: list[Body]

    def __init__(self, *args: Any, **kw: Any):
        super().__init__(*args, **kw)
        self.bodies = []

    def num_outputs(self, n_inputs: int) -> int:
        if self.layer is not None:
            return len(self.layer.outputs)  # the port map says which body Result gives each
        return max((o.index + 1 for b in self.bodies for o in b.outputs), default=0)

    def fold(self, inputs: Sequence[TensorInfo], inference: Inference) -> list[TensorInfo]:
        return inference.outputs  # a body is never run to fold a constant

    def _body(self, k: int = 0) -> Body:
        if k >= len(self.bodies):
            raise OpError(f"{self.display()} has no body", code="bad-port-map")
        return self.bodies[k]

    # ---- iterating ops (TensorIterator, Loop)
    def _iterate_shapes(self, body: Body, inputs: Sequence[TensorInfo], iterations: Dim,
                        extra: dict[int, TensorInfo]) -> BodyInference:
        seeds = dict(extra)
        for bi in body.inputs:
            info = inputs[bi.index]
            check_slices(bi, info.shape)
            if bi.axis is not None:
                info = TensorInfo(_with_dim(info.shape, bi.axis, Dim.of(bi.part_size)), info.etype)
            else:
                info = TensorInfo(info.shape, info.etype)  # its value is not the body's business
            seeds[bi.param] = info
        diags: list[Diagnostic] = []
        for settle in range(_SETTLE_ROUNDS):
            found, diags = infer_body(body, seeds)
            changed = False
            for bi in body.inputs:
                res = found.get(bi.merged) if bi.merged is not None else None
                if res is None:
                    continue
                cur = seeds[bi.param]
                wider = _widen(cur.shape, res.shape)
                if wider != cur.shape:
                    seeds[bi.param] = TensorInfo(wider, cur.etype)
                    changed = True
            if not changed:
                break
            if settle == _SETTLE_ROUNDS - 2:  # one round left: every back edge any shape, which settles
                for bi in body.inputs:
                    if bi.merged is not None:
                        seeds[bi.param] = TensorInfo(PartialShape(None), seeds[bi.param].etype)
        outs: list[TensorInfo] = [_unknown()] * self.num_outputs(len(inputs))
        for bo in body.outputs:
            res = found.get(bo.result)
            if res is None:
                continue
            if bo.axis is None:
                shape = res.shape
                if iterations.lo == 0:  # no iteration: a merged input's initial value comes out
                    for bi in body.inputs:
                        if bi.merged == bo.result:
                            shape = _hull(shape, inputs[bi.index].shape)
            else:
                dims = res.shape.dims
                if dims is not None and not -len(dims) <= bo.axis < len(dims):
                    raise op_error(f"port map axis {bo.axis} of output {bo.index} is out of range for the body's "
                                   f"{res.shape}", "axis-out-of-range")
                if dims is not None and dims[bo.axis].is_static and dims[bo.axis].value != bo.part_size:
                    raise op_error(f"output {bo.index}: the body gives {res.shape}, {dims[bo.axis]} along axis "
                                   f"{bo.axis}, but the port map says part_size={bo.part_size}", "bad-port-map")
                shape = _with_dim(res.shape, bo.axis, iterations * bo.part_size)
            outs[bo.index] = TensorInfo(shape, res.etype)
        return BodyInference(outs, None, diags)

    def _run_iterations(self, body: Body, arrays: Sequence[np.ndarray], iterations: int | None,
                        trip: int | None = None, cond_in: bool = True) -> list[np.ndarray]:
        _refuse_broken_body(body, "body")
        model = body.model
        feeds: dict[int, np.ndarray] = {}
        sliced = [bi for bi in body.inputs if bi.axis is not None]
        for bi in body.inputs:
            if bi.axis is None:
                feeds[bi.param] = arrays[bi.index]
        ci_op = model.ops.get(body.current_iteration) if body.current_iteration is not None else None
        ci_dtype = ci_op.element_type.dtype if ci_op is not None else np.int64
        ci_shape = ci_op.shape.to_tuple() if ci_op is not None and ci_op.shape.is_static else ()
        targets = sorted({o.result for o in body.outputs} | {bi.merged for bi in body.inputs if bi.merged is not None}
                         | ({body.condition} if body.condition is not None else set()))
        collected: dict[int, list[np.ndarray]] = {o.result: [] for o in body.outputs if o.axis is not None}
        last: Mapping[int, np.ndarray] = {}
        limit = iterations if iterations is not None else (trip if trip is not None and trip >= 0 else None)
        for bi in sliced:  # a Loop also ends when a sliced input has no slice left
            a = arrays[bi.index]
            n = num_slices(Dim.of(a.shape[bi.axis % a.ndim]), bi).value  # type: ignore[operator]
            limit = n if limit is None else min(limit, n)
        # the concatenated parts and the values carried to the next iteration
        # count against the run's memory limit, checked after every iteration
        run_limit, outer = limits.budget()
        parts_bytes = carried = 0
        i = 0
        go_on = cond_in
        while go_on and (limit is None or i < limit):
            for bi in sliced:
                a = arrays[bi.index]
                axis = bi.axis % a.ndim  # type: ignore[operator]
                begin = slice_begin(a.shape[axis], bi, i)
                feeds[bi.param] = np.take(a, np.arange(begin, begin + bi.part_size), axis=axis)
            if body.current_iteration is not None and all(bi.param != body.current_iteration for bi in body.inputs):
                feeds[body.current_iteration] = np.full(ci_shape, i, dtype=ci_dtype)
            with limits.charged(run_limit, outer + parts_bytes + carried):
                values = body.run(feeds, targets)
            for rid, arrs in collected.items():
                arrs.append(values[rid])
                parts_bytes += values[rid].nbytes
            carried = sum({id(a): a.nbytes for a in values.values()}.values())
            if outer + parts_bytes + carried > run_limit:
                limits.require(parts_bytes + carried, f"iteration {i + 1}: the outputs of the iterations so far")
            last = values
            for bi in body.inputs:
                if bi.merged is not None:
                    feeds[bi.param] = values[bi.merged]
            if body.condition is not None:
                go_on = bool(np.asarray(values[body.condition]).reshape(-1)[0])
            i += 1
        outs: list[np.ndarray | None] = [None] * self.num_outputs(len(arrays))
        joined = sum(a.nbytes for bo in body.outputs if bo.axis is not None for a in collected[bo.result])
        if joined:  # the concatenated outputs, while their parts are still alive
            with limits.charged(run_limit, outer + parts_bytes + carried):
                limits.require(joined, f"the concatenated outputs of {i} iterations")
        for bo in body.outputs:
            if bo.axis is not None:
                parts = collected[bo.result]
                if bo.stride < 0:
                    parts = parts[::-1]
                if parts:
                    outs[bo.index] = np.concatenate(parts, axis=bo.axis)
                else:
                    outs[bo.index] = self._empty_concat(body, bo, feeds)
            elif bo.result in last:
                outs[bo.index] = last[bo.result]
            else:  # no iteration ran: a merged input's initial value, else zeros of the declared shape
                init = next((feeds[bi.param] for bi in body.inputs if bi.merged == bo.result), None)
                outs[bo.index] = init if init is not None else self._empty_concat(body, bo, feeds)
        return outs  # type: ignore[return-value]

    def _empty_concat(self, body: Body, bo: BodyOutput, feeds: dict[int, np.ndarray]) -> np.ndarray:
        """What a concatenated output is after zero iterations: the body Result's
        shape with 0 along the axis (learnt from the body's inference)."""
        seeds = {lid: TensorInfo(PartialShape.static(a.shape), dtypes.from_dtype(a.dtype) or dtypes.get("dynamic"))
                 for lid, a in feeds.items()}
        found, _ = infer_body(body, seeds)
        res = found.get(bo.result)
        if res is None or res.shape.dims is None or not res.known_type:
            raise op_error("the loop ran no iteration and the shape of its concatenated output is unknown", "bad-shape")
        dims = [d.lo if d.is_static else 0 for d in res.shape.dims]
        if bo.axis is not None:
            dims[bo.axis] = 0
        return np.zeros(dims, dtype=res.etype.dtype)


@register
class TensorIterator1(SubgraphOp):
    type, version = "TensorIterator", 1
    summary = "runs its body once per slice of its sliced inputs; back edges carry values between iterations"
    inputs = (In("inputs", optional=True, variadic=True),)

    def _iterations(self, body: Body, inputs: Sequence[TensorInfo]) -> Dim:
        n: Dim | None = None
        for bi in body.inputs:
            if bi.axis is None:
                continue
            shape = inputs[bi.index].shape
            if shape.dims is None:
                continue
            if not -len(shape.dims) <= bi.axis < len(shape.dims):
                raise op_error(f"port map axis {bi.axis} is out of range for input shape {shape}", "axis-out-of-range", bi.index)
            k = num_slices(shape.dims[bi.axis], bi)
            if n is not None and n.is_static and k.is_static and n.value != k.value:
                raise op_error(f"sliced inputs give different iteration counts ({n} and {k})", "incompatible-inputs", bi.index)
            n = k if n is None or not n.is_static else n
        return n if n is not None else Dim.of(1)

    def infer(self, *inputs: TensorInfo) -> Inference:
        body = self._body()
        n = self._iterations(body, inputs)
        inference = self._iterate_shapes(body, inputs, n, {})
        inference.plan = IterPlan(n.value if n.is_static else None)
        return inference

    def compute(self, plan: IterPlan, *arrays: np.ndarray) -> list[np.ndarray]:
        return self._run_iterations(self._body(), arrays, plan.iterations)


@register
class Loop5(SubgraphOp):
    type, version = "Loop", 5
    summary = "runs its body while the condition holds, up to the trip count (-1: no limit)"
    inputs = (In("trip_count", INDEX, rank=(0, 1), elements=1, value=True),
              In("execution_condition", BOOLEAN, rank=(0, 1), elements=1, value=True),
              In("inputs", optional=True, variadic=True))

    @classmethod
    def input_range(cls) -> tuple[int, int | None]:
        return 2, None

    def _iterations(self, body: Body, trip: TensorInfo, cond: TensorInfo) -> Dim:
        t, c = trip.value(), cond.value()
        if c is not None and np.asarray(c).size and not bool(np.asarray(c).reshape(-1)[0]):
            return Dim.of(0)
        if t is None or not np.asarray(t).size:
            return DYNAMIC
        n = int(np.asarray(t).reshape(-1)[0])
        if c is None or n < 0:
            return DYNAMIC if n < 0 else Dim(0, n)
        if body.condition is None:
            return Dim.of(n)
        src = body.model.graph.producer.get((body.condition, 0))
        op = body.model.ops.get(src[0]) if src is not None else None
        from ..io import Const1

        if isinstance(op, Const1):  # a constant body condition: all trip-count iterations, or just one
            v = op.inference([]).outputs[0].value()
            if v is not None and np.asarray(v).size:
                return Dim.of(n if bool(np.asarray(v).reshape(-1)[0]) else min(n, 1))
        return Dim(min(n, 1), n)

    def infer(self, trip: TensorInfo, cond: TensorInfo, *inputs: TensorInfo) -> Inference:
        body = self._body()
        n = self._iterations(body, trip, cond)
        extra = {}
        if body.current_iteration is not None and all(bi.param != body.current_iteration for bi in body.inputs):
            extra[body.current_iteration] = _param_info(body, body.current_iteration)
        everything = (trip, cond, *inputs)
        inference = self._iterate_shapes(body, everything, n, extra)
        inference.plan = IterPlan(None)
        return inference

    def compute(self, plan: IterPlan, trip: np.ndarray, cond: np.ndarray, *arrays: np.ndarray) -> list[np.ndarray]:
        t = int(np.asarray(trip).reshape(-1)[0])
        c = bool(np.asarray(cond).reshape(-1)[0])
        return self._run_iterations(self._body(), (trip, cond, *arrays), None, t, c)


def _either(a: PartialShape, b: PartialShape) -> PartialShape:
    """An output that may come from either branch, as OpenVINO's If infers it
    (``resolve_shape`` in its if.cpp): a dim not static in both is dynamic, two
    different static dims give their interval; ranks that differ give a dynamic
    rank (dynamic 1-D when both are at most 1)."""
    if a.dims is None or b.dims is None:
        return PartialShape(None)
    if len(a.dims) != len(b.dims):
        return PartialShape((DYNAMIC,)) if len(a.dims) <= 1 and len(b.dims) <= 1 else PartialShape(None)
    dims = []
    for x, y in zip(a.dims, b.dims):
        if not (x.is_static and y.is_static):
            dims.append(DYNAMIC)
        else:
            dims.append(Dim(min(x.lo, y.lo), max(x.lo, y.lo)))
    return PartialShape(tuple(dims))


@register
class If8(SubgraphOp):
    type, version = "If", 8
    summary = "runs then_body or else_body as the condition says"
    body_tags = ("then_body", "else_body")
    inputs = (In("cond", BOOLEAN, rank=(0, 1), elements=1, value=True), In("inputs", optional=True, variadic=True))

    def _branch(self, body: Body, inputs: Sequence[TensorInfo]) -> tuple[list[TensorInfo | None], list[Diagnostic]]:
        seeds = {bi.param: TensorInfo(inputs[bi.index].shape, inputs[bi.index].etype) for bi in body.inputs}
        found, diags = infer_body(body, seeds)
        outs: list[TensorInfo | None] = [None] * self.num_outputs(len(inputs))
        for bo in body.outputs:
            if bo.index < len(outs):
                outs[bo.index] = found.get(bo.result)
        return outs, diags

    def infer(self, cond: TensorInfo, *inputs: TensorInfo) -> Inference:
        everything = (cond, *inputs)
        then_outs, then_diags = self._branch(self._body(0), everything)
        else_outs, else_diags = self._branch(self._body(1), everything)
        c = cond.value()
        taken = None if c is None or not np.asarray(c).size else bool(np.asarray(c).reshape(-1)[0])
        outs = []
        for k, (t, e) in enumerate(zip(then_outs, else_outs)):
            if taken is True or (taken is None and e is None):
                pick = t
            elif taken is False or t is None:
                pick = e
            else:
                assert t is not None and e is not None  # both branches known: the cases above took the others
                if t.known_type and e.known_type and t.etype is not e.etype:
                    raise op_error(f"output {k}: then_body gives {t.etype.name}, else_body {e.etype.name}", "incompatible-inputs")
                pick = TensorInfo(_either(t.shape, e.shape), t.etype)
            outs.append(pick if pick is not None else _unknown())
        return BodyInference(outs, None, then_diags + else_diags)

    def compute(self, plan: Any, cond: np.ndarray, *arrays: np.ndarray) -> list[np.ndarray]:
        body = self._body(0 if bool(np.asarray(cond).reshape(-1)[0]) else 1)
        _refuse_broken_body(body, "body")
        everything = (cond, *arrays)
        feeds = {bi.param: everything[bi.index] for bi in body.inputs}
        values = body.run(feeds, sorted({o.result for o in body.outputs}))
        outs: list[np.ndarray | None] = [None] * self.num_outputs(len(everything))
        for bo in body.outputs:
            outs[bo.index] = values[bo.result]
        if any(o is None for o in outs):
            raise op_error("the branch taken gives no value for some outputs of the layer", "bad-port-map")
        return outs  # type: ignore[return-value]
