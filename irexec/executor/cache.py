"""What every run of a model shares, kept for as long as the model lives:
the outputs of layers computed from Consts alone, shape arithmetic per input
shapes, run plans, and the Parameters by name."""

from __future__ import annotations

import weakref
from functools import cached_property

import numpy as np

from ..base import strings
from ..ir.records import Layer
from ..kernels.compressed_linear import StandIn
from ..model.binding import Model
from ..ops.framework.base import Op
from ..ops.io import Const1, Result1
from .plan import RunPlan
from .rewrites import Rewrites

# At most this many bytes of folded tensors are kept per model, and at most
# this share (1/FOLD_SHARE) of a run's memory limit.
FOLD_BYTES = 1 << 30
FOLD_SHARE = 8
# At most this many bytes of shape-derived tensors (see RunCache).
DERIVED_BYTES = 64 << 20


class RunCache:
    """What every run of a model shares, kept on the model: the outputs of
    layers computed from Consts alone (the f16 weights -> Convert -> f32 of a
    saved model), kept after their first run so later runs skip them, as
    OpenVINO folds them when compiling; the run order per set of targets; the
    Parameters by name."""

    def __init__(self, model: Model) -> None:
        self.graph = model.graph
        self.model_ops = model.ops
        # graph rewrites (weight decompression chains: their last layer computes the chain in f32)
        rewrites = Rewrites(model)
        self.rewired = rewrites.rewired
        self.chain_only = rewrites.chain_only
        self.chain_readers = rewrites.chain_readers
        const: set[int] = set()
        for lid in model.graph.order:
            op = model.ops[lid]
            if isinstance(op, Const1):
                const.add(lid)
            elif (op is not None and op.deterministic and not isinstance(op, Result1)
                  and model.layers[lid].inputs
                  and all(src is not None and src[0] in const for src in self.inputs_of(lid))):
                const.add(lid)
        self.foldable = const
        self.outputs: dict[int, list[np.ndarray]] = {}
        self.nbytes = 0
        self.dropped = False  # the cache gave way to a run once: Consts only from then on
        self.full = False  # some foldable layer's outputs were too big to keep
        # Layers computed from the output of ShapeOf layers (and Consts) alone:
        # the shape arithmetic of a converted model (ShapeOf -> Gather -> Concat,
        # Range...), the same for every run on inputs of the same shapes.  Their
        # outputs are kept per "shape signature": the values every ShapeOf
        # before them in the run order gave (see _execute).
        self.shape_of = {lid for lid in model.graph.order if (op := model.ops[lid]) is not None and op.shape_only}
        derived: set[int] = set()
        for lid in model.graph.order:
            op = model.ops[lid]
            if (op is None or lid in const or lid in self.shape_of or isinstance(op, Result1)
                    or not op.deterministic or not model.layers[lid].inputs):
                continue
            srcs = self.inputs_of(lid)
            if all(s is not None and (s[0] in derived or s[0] in const or s[0] in self.shape_of) for s in srcs):
                derived.add(lid)
        self.shape_derived = derived
        # every layer a run treats other than by computing it (fed layers aside)
        self.special = frozenset(const | self.shape_of | derived | set(self.chain_readers))
        self.signatures: dict[tuple[int, int, bytes], int] = {}
        self.derived: dict[tuple[int, int], list[np.ndarray]] = {}
        self.derived_nbytes = 0
        self.runs: dict[tuple, RunPlan] = {}
        # (layer id, output index, shape) found to agree with the declared dims
        self.shapes_ok: set[tuple[int, int, tuple[int, ...]]] = set()
        self.parameters = model.parameters
        self.params_by_name: dict[str, Layer] | None = None

    @cached_property
    def settled(self) -> frozenset[int]:
        """The layers whose values follow from the feeds' shapes and types alone (made once: a
        run asks for it every time)."""
        return frozenset(self.foldable | self.shape_of | self.shape_derived)

    def inputs_of(self, lid: int) -> list[tuple[int, int] | None]:
        """The tensors a layer reads in a run (a decompression chain's last layer reads the chain's Consts)."""
        found = self.rewired.get(lid)
        return list(found[0]) if found is not None else self.graph.inputs_of(lid)

    def op(self, lid: int) -> Op | None:
        found = self.rewired.get(lid)
        return found[1] if found is not None else self.model_ops[lid]

    def remember(self, key: tuple, plan: RunPlan) -> None:
        if len(self.runs) > 16:
            self.runs.clear()  # a caller asking for ever new targets: keep the cache small
        self.runs[key] = plan

    def offer(self, model: Model, lid: int, outs: list[np.ndarray], limit: int) -> int:
        """Keep a folded layer's outputs for later runs, within FOLD_BYTES and an
        eighth of the run's memory limit: the rest of a run must fit beside them
        (a weight that does not fit is computed again by each run).  The bytes it
        now holds (the cache counts against --max-memory like any tensor)."""
        if lid not in self.foldable or lid in self.chain_only:
            return 0
        # (a StandIn is one value seen at a weight's shape: nothing of its own)
        size = 0 if self._mapped(lid) else sum(strings.array_bytes(a) for a in outs if not isinstance(a, StandIn))
        if self.nbytes + size > min(FOLD_BYTES, limit // FOLD_SHARE) or self.dropped and size:
            self.full = True
            return 0
        for a in outs:
            a.flags.writeable = False  # shared by every later run
        self.outputs[lid] = outs
        self.nbytes += size
        return size

    def _mapped(self, lid: int) -> bool:
        """A Const is a view of the mapped weights, no memory of its own, unless unpacked from a low-bit type
        or from packed strings."""
        op = self.model_ops[lid]
        return isinstance(op, Const1) and not op.element_type.packed and not op.element_type.is_string

    def drop(self) -> bool:
        """Let go of every kept output that has memory of its own, for good: a
        run that needs the room comes first (the cache counts against
        --max-memory like any tensor).  Whether there was anything to drop."""
        if not self.nbytes:
            return False
        for lid in [lid for lid in self.outputs if not self._mapped(lid)]:
            del self.outputs[lid]
        self.nbytes = 0
        self.dropped = self.full = True
        for plan in self.runs.values():
            plan.compact = None  # its preset holds kept outputs
            for replay in plan.replays.values():
                replay.programs.clear()  # so do their programs
                replay.patterns.clear()
                replay.learnt.clear()
        return True


    def signature(self, before: int, lid: int, shape: np.ndarray) -> int:
        """The shape signature after ShapeOf layer ``lid`` gave ``shape``."""
        key = (before, lid, shape.tobytes())
        found = self.signatures.get(key)
        if found is None:
            if len(self.signatures) > 4096:  # ever new shapes: start over
                self.signatures.clear()
                self.derived.clear()
                self.derived_nbytes = 0
            found = self.signatures[key] = len(self.signatures) + 1
        return found

    def keep_derived(self, lid: int, signature: int, outs: list[np.ndarray]) -> None:
        size = sum(a.nbytes for a in outs)
        if self.derived_nbytes + size > DERIVED_BYTES:
            return
        for a in outs:
            a.flags.writeable = False  # shared by every later run with these shapes
        self.derived[(lid, signature)] = outs
        self.derived_nbytes += size


# What every run of a model shares (folded Const-only layers, run orders), kept
# here for as long as the model lives.
_RUN_CACHE: weakref.WeakKeyDictionary[Model, RunCache] = weakref.WeakKeyDictionary()


def run_cache(model: Model) -> RunCache:
    found = _RUN_CACHE.get(model)
    if found is None:
        found = _RUN_CACHE[model] = RunCache(model)
    return found
