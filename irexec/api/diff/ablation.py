"""What each of the top compressed weights costs the model's outputs on its own.

For each of the ``k`` weights ranked first by their layer's own error, A is run again with
that one weight replaced by B's decompressed value (written over A's Const in a copy of
A's .bin, in A's element type), on the same steps; the outputs' relative L2 error against
A's is that weight's contribution.  The weights are then ranked by it, the others after
them in their order; weights beyond the rounding of their format stay first.  It costs one
run of A per weight and a copy of A's .bin.  An f16 Const of A holds B's value rounded to
f16; a Const that feeds several layers changes them all (both are noted).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence

import numpy as np

from ...ir.records import Layer
from ..session import Session
from .reference import ReferenceSide
from .weights import WeightResult


def _const_of(ref: ReferenceSide, layer: Layer, port: int) -> Layer | None:
    """A's Const giving the weight at ``port`` of ``layer``, through Converts."""
    src = ref.producers(layer)[port]
    while src is not None and src[0].type == "Convert":
        src = ref.producers(src[0])[0]
    return src[0] if src is not None and src[0].type == "Const" else None


def outputs_rel_l2(mine: Sequence[Mapping[str, np.ndarray]], ref: Sequence[Mapping[str, np.ndarray]]) -> float:
    num = den = 0.0
    for got, want in zip(mine, ref):
        for key, value in want.items():
            w = np.asarray(value, np.float64)
            if w.dtype.kind not in "fc":
                continue
            num += float(np.sum((np.asarray(got[key], np.float64) - w) ** 2))
            den += float(np.sum(w * w))
    return float(np.sqrt(num / den)) if den else float(np.sqrt(num))


def patch_of(ref: ReferenceSide, w: WeightResult, value: np.ndarray | None, notes: list[str]
             ) -> tuple[int, bytes] | None:
    """Where A's .bin holds weight ``w`` and B's ``value`` as bytes of A's element type to write
    there; None (with a note) when A's weight is not a Const of the same size in its .bin."""
    layer = ref.by_name[w.layer]
    const = _const_of(ref, layer, w.port)
    if const is None or value is None or "offset" not in const.data or const.outputs[0].precision is None:
        notes.append("its output error alone was not measured: A's weight is not a Const in its .bin")
        return None
    consumers = {dst for port in range(len(const.outputs))
                 for dst, _ in ref.model.graph.consumers.get((const.id, port), ())}
    twins = [c.name for c in ref.order if c.type == "Const" and c.id != const.id
             and c.data.get("offset") == const.data["offset"] and c.data.get("size") == const.data.get("size")]
    if twins:  # the serializer stores equal constants once: a tied embedding and lm_head
        notes.append(f"A's .bin holds this weight once for {len(twins) + 1} Consts ({', '.join(twins[:3])}): "
                     "its outputs' error alone counts them all")
    if len(consumers) > 1:
        notes.append(f"A's Const {const.name} feeds {len(consumers)} layers: its outputs' error alone "
                     "counts them all")
    dtype = const.outputs[0].precision.dtype
    if dtype is not None and np.dtype(dtype).itemsize < 4:
        notes.append(f"B's weight was rounded to A's {const.outputs[0].precision.name} to measure its "
                     "outputs' error alone")
    offset, size = int(const.data["offset"]), int(const.data["size"])
    new = np.ascontiguousarray(np.asarray(value).astype(dtype)).tobytes() if dtype is not None else b""
    if len(new) != size:
        notes.append("its output error alone was not measured: A's Const has another size")
        return None
    return offset, new


def ablate(a: Session, ref: ReferenceSide, weights: list[WeightResult], decompressed: Mapping[str, np.ndarray],
           steps: Sequence[Mapping[str, np.ndarray]], k: int) -> list[WeightResult]:
    """Set ``output_rel_l2`` of the top ``k`` weights and rank them by it."""
    bin_path = a.model.weights.path
    if k <= 0 or not weights or bin_path is None or not os.path.isfile(bin_path):
        return weights
    history, _ = ref.run(steps)
    held = ref.memory.hold(t for outs in history for t in outs.values())
    with tempfile.TemporaryDirectory(prefix="irexec-ablate-") as tmp:
        copy = os.path.join(tmp, "a.bin")
        shutil.copyfile(bin_path, copy)
        for w in weights[:k]:
            found = patch_of(ref, w, decompressed.get(f"{w.layer}:{w.port}"), w.notes)
            if found is None:
                continue
            offset, new = found
            size = len(new)
            with open(copy, "r+b") as f:
                f.seek(offset)
                original = f.read(size)
                f.seek(offset)
                f.write(new)
            try:
                patched = ReferenceSide(Session(a.model.path, copy, max_memory=ref.memory.run_limit("loading A")),
                                        ref.memory)
                mine, _ = patched.run(steps)
                w.output_rel_l2 = outputs_rel_l2(mine, history)
            finally:
                with open(copy, "r+b") as f:
                    f.seek(offset)
                    f.write(original)
    ref.memory.release(held)
    measured = [w for w in weights[:k] if w.output_rel_l2 is not None]
    rest = [w for w in weights if w.output_rel_l2 is None]
    # damaged weights (beyond the rounding of their format) stay first, as weights.py ranks them
    return sorted(measured, key=lambda w: (w.within_rounding, -(w.output_rel_l2 or 0.0))) + rest


__all__ = ["ablate", "outputs_rel_l2", "patch_of"]
