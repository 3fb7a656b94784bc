"""Differential tests: random graphs of Roll-7, ReverseSequence-1 and
Gather-1/7/8 built with OpenVINO's Python API, saved as IR, then run by irexec
(from the saved files) and by OpenVINO's CPU plugin.  Every output must have
the same bits in both, and the same bits as an independent NumPy reference.

Many cases share one model (each case its own Parameters and Results) so one
compile serves a whole batch.  Values where the CPU plugin is known to be
lossy or to disagree with the spec (see the behaviour decisions in the design
notes) are kept out of the OpenVINO comparison; the ``test_irexec_only_*``
tests check irexec's decided behaviour there against the NumPy reference.

IREXEC_DIFF_CASES sets the number of random cases compared with OpenVINO
(default 800, 40 per model); a third as many run irexec alone on values
OpenVINO cannot judge.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

ov = pytest.importorskip("openvino")
import openvino.opset1 as op1
import openvino.opset7 as op7
import openvino.opset8 as op8
from oracle import (
    ALL_TYPES,
    DTYPES,
    OV_TYPES,
    assert_same_bits,
    compile_ir,
    infer,
    same_bits,
    save,
)

import irexec
from irexec.model.builder import IRBuilder

SEED = 20260707
CASES = int(os.environ.get("IREXEC_DIFF_CASES", "800"))
PER_MODEL = 40
BATCHES = max(1, -(-CASES // PER_MODEL))

INDEX_TYPES = ("i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64")
SEQ_LENGTH_TYPES = ("f16", "f32", "f64", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64")
INT32_MAX = 2**31 - 1


# ------------------------------------------------------------------ NumPy references
# Written from the specs, independently of irexec's kernels.

def ref_roll(data: np.ndarray, shift: np.ndarray, axes: np.ndarray) -> np.ndarray:
    """Every axis rolled by the sum of its shifts (a one-element shift applies
    to every axis), exactly for any int64 shift."""
    axes_l = [int(a) for a in np.asarray(axes).reshape(-1)]
    shifts = [int(s) for s in np.asarray(shift).reshape(-1)]
    if len(shifts) == 1:
        shifts = shifts * len(axes_l)
    total: dict[int, int] = {}
    for s, a in zip(shifts, axes_l):
        a = a + data.ndim if a < 0 else a
        total[a] = total.get(a, 0) + s
    out = data
    for a, s in total.items():
        if data.shape[a]:
            out = np.roll(out, s % data.shape[a], axis=a)
    return np.array(out, copy=True)


def ref_gather(data: np.ndarray, indices: np.ndarray, axis: int, batch_dims: int) -> np.ndarray:
    """Gather-8 semantics: negative indices count from the end, indices out of
    [-dim, dim-1] give zeros; batch b of the output reads batch b of the data."""
    axis = axis + data.ndim if axis < 0 else axis
    bd = batch_dims + indices.ndim if batch_dims < 0 else batch_dims
    dim = data.shape[axis]
    out = np.zeros(data.shape[:axis] + indices.shape[bd:] + data.shape[axis + 1:], data.dtype)
    # Python ints: no wrap-around for u64 or i64 extremes
    idx = np.array([int(v) for v in indices.reshape(-1)], dtype=object).reshape(indices.shape)
    for b in np.ndindex(*data.shape[:bd]):
        d, ix = data[b], np.asarray(idx[b], dtype=object)
        norm = np.where(ix < 0, ix + dim, ix)
        valid = np.array((norm >= 0) & (norm < dim), dtype=bool)
        if not valid.any():
            continue
        picked = np.asarray(np.take(d, np.where(valid, norm, 0).astype(np.int64), axis=axis - bd))
        keep = valid.reshape((1,) * (axis - bd) + ix.shape + (1,) * (d.ndim - axis + bd - 1))
        picked[~np.broadcast_to(keep, picked.shape)] = 0
        out[b] = picked
    return out


def ref_reverse_sequence(data: np.ndarray, lengths: np.ndarray, batch_axis: int, seq_axis: int) -> np.ndarray:
    """For batch b, the first trunc(lengths[b]) elements along seq_axis reversed (0 acts as 1)."""
    out = data.copy()
    src = np.moveaxis(data, (batch_axis, seq_axis), (0, 1))
    dst = np.moveaxis(out, (batch_axis, seq_axis), (0, 1))  # a view into out
    for b, n in enumerate(lengths.reshape(-1).tolist()):
        n = int(n)  # floats truncate toward zero
        dst[b, :n] = src[b, :n][::-1]
    return out


# ------------------------------------------------------------------ values

def random_values(rng: np.random.Generator, shape: tuple[int, ...], etype: str, exact_in_f32: bool,
                  for_openvino: bool = True) -> np.ndarray:
    """Values of every kind the CPU plugin reproduces exactly, or any value at
    all when ``for_openvino`` is false.

    ``exact_in_f32``: the tensor goes through ReverseSequence, which the CPU
    plugin computes in f32 for integer data, so integers stay within 2^24,
    and which flushes bf16 denormals to zero and quietens bf16 signalling
    NaNs, so bf16 has neither."""
    n = int(np.prod(shape, dtype=np.int64))
    if etype == "boolean":
        return rng.integers(0, 2, n).astype(np.bool_).reshape(shape)
    if etype in ("f32", "bf16", "f16") or etype == "f64" and not for_openvino:
        width = {"f32": 32, "bf16": 16, "f16": 16, "f64": 64}[etype]
        bits = rng.integers(0, 2**width - 1, n, dtype=np.uint64, endpoint=True).astype(f"u{width // 8}")
        if not for_openvino:
            return bits.view(DTYPES[etype]).reshape(shape)
        if etype == "f16":
            # signalling NaNs come back quietened from the CPU plugin: make them quiet
            nan = (bits & 0x7C00) == 0x7C00
            bits = np.where(nan & ((bits & 0x03FF) != 0), bits | 0x0200, bits).astype(np.uint16)
        if etype == "bf16" and exact_in_f32:
            bits = np.where((bits & 0x7F80) == 0, bits | 0x0080, bits).astype(np.uint16)  # denormal -> normal
            nan = ((bits & 0x7F80) == 0x7F80) & ((bits & 0x007F) != 0)
            bits = np.where(nan, bits | 0x0040, bits).astype(np.uint16)  # signalling -> quiet
        values = bits.view(DTYPES[etype]).copy()
        special = {"f32": [0.0, -0.0, np.inf, -np.inf, 1.0, -2.5]}.get(etype)
        if special is not None:
            pick = rng.random(n) < 0.15
            values[pick] = rng.choice(np.array(special, np.float32), int(pick.sum()))
        return values.reshape(shape)
    if etype == "f64":
        # f32-representable normals and zeros: the CPU plugin computes f64 in f32
        # (and turns infinities into the largest finite f32)
        mags = rng.standard_normal(n).astype(np.float32) * np.float32(10.0) ** rng.integers(-30, 30, n).astype(np.float32)
        mags = np.where(np.abs(mags) < np.finfo(np.float32).tiny, np.float32(0), mags)
        values = mags.astype(np.float64)
        pick = rng.random(n) < 0.1
        values[pick] = rng.choice(np.array([-0.0, 0.0, 1.0, -3.0]), int(pick.sum()))
        return values.reshape(shape)
    info = np.iinfo(DTYPES[etype])
    lo, hi = int(info.min), int(info.max)
    if not for_openvino:
        return rng.integers(lo, hi, n, endpoint=True, dtype=DTYPES[etype]).reshape(shape)
    # i64/u64 are narrowed to i32 by the CPU plugin
    lo, hi = max(lo, -(2**31)), min(hi, INT32_MAX)
    if exact_in_f32:
        lo, hi = max(lo, -(2**24)), min(hi, 2**24)
    return rng.integers(lo, hi, n, endpoint=True).astype(DTYPES[etype]).reshape(shape)


def declared_shape(rng: np.random.Generator, shape: tuple[int, ...], dynamic: bool) -> str:
    """A Parameter shape that accepts ``shape``: static, ``?`` or intervals."""
    if not dynamic:
        return ",".join(map(str, shape))
    parts = []
    for d in shape:
        kind = rng.integers(0, 5)
        parts.append([str(d), "?", f"{max(0, d - 2)}..{d + 3}", f"{d}..", f"..{d}"][kind])
    return ",".join(parts)


# ------------------------------------------------------------------ batches

@dataclass
class Tensor:
    """A tensor of a case: its OpenVINO output, reference value and type."""

    out: ov.Output
    value: np.ndarray
    etype: str
    history: str = ""  # the ops that made it, for failure messages
    has_result: bool = False


@dataclass
class Batch:
    for_openvino: bool = True  # False: also the cases where the CPU plugin is not the oracle
    params: list[ov.Node] = field(default_factory=list)
    feeds: dict[str, np.ndarray] = field(default_factory=dict)
    results: list[ov.Node] = field(default_factory=list)
    expected: dict[str, np.ndarray] = field(default_factory=dict)
    about: dict[str, str] = field(default_factory=dict)

    def parameter(self, name: str, value: np.ndarray, etype: str, shape: str | None = None) -> Tensor:
        decl = shape if shape is not None else ",".join(map(str, value.shape))
        p = op8.parameter(ov.PartialShape(decl) if decl else ov.PartialShape([]), OV_TYPES[etype], name=name)
        p.output(0).get_tensor().set_names({name})
        self.params.append(p)
        self.feeds[name] = value
        return Tensor(p.output(0), value, etype, f"Parameter {name} {etype}[{decl}]")

    def result(self, t: Tensor, name: str, about: str) -> None:
        if t.has_result:
            return  # a second Result on one tensor is named differently; covered elsewhere
        t.has_result = True
        names = sorted(t.out.get_names())
        if not names:
            t.out.get_tensor().set_names({name})
            names = [name]
        self.results.append(op1.result(t.out))
        self.expected[names[0]] = t.value
        self.about[names[0]] = about

    def model(self) -> ov.Model:
        return ov.Model(self.results, self.params, "differential")


def const_or_param(batch: Batch, rng: np.random.Generator, name: str, value: np.ndarray, etype: str,
                   as_param: bool, dynamic: bool = False) -> ov.Output:
    if as_param:
        shape = declared_shape(rng, value.shape, dynamic)
        return batch.parameter(name, value, etype, shape).out
    if etype == "bf16":
        return op8.constant(value.astype(np.float32), dtype=ov.Type.bf16).output(0)
    if value.size == 0:  # the opset helper refuses empty data
        return ov.op.Constant(np.ascontiguousarray(value)).output(0)
    return op8.constant(value, dtype=OV_TYPES[etype]).output(0)


# ------------------------------------------------------------------ op generators

class DoesNotFit(Exception):
    """The op cannot take this tensor (e.g. ReverseSequence on rank 1)."""


def gen_roll(rng: np.random.Generator, batch: Batch, cid: str, x: Tensor) -> tuple[Tensor, str]:
    rank = x.value.ndim
    if rank == 0:
        raise DoesNotFit("rank 0")
    form = rng.integers(0, 4 if batch.for_openvino else 6)
    if form == 0:  # scalar shift, scalar axis
        count, shift_shape, axes_shape = 1, (), ()
    elif form == 1:  # scalar shift, one axis in a 1-D axes
        count, shift_shape, axes_shape = 1, (), (1,)
    elif form == 4:  # a scalar shift for several axes: refused by the CPU plugin
        # (a shift of shape [1] with several axes fails OpenVINO's validation,
        # so the API cannot build it; the examples cover it)
        count = int(rng.integers(2, 4))
        shift_shape, axes_shape = (), (count,)
    elif form == 5:  # empty shift and axes: stale memory from the CPU plugin
        count, shift_shape, axes_shape = 0, (0,), (0,)
    else:
        count = int(rng.integers(1, 4))
        shift_shape = axes_shape = (count,)
    axes = rng.integers(-rank, rank, count)
    n_shifts = int(np.prod(shift_shape))
    repeated = len({int(a) % rank for a in axes}) < count
    stype, atype = str(rng.choice(["i32", "i64"])), str(rng.choice(["i32", "i64"]))
    if not batch.for_openvino and stype == "i64":
        shift = rng.integers(-(2**63), 2**63 - 1, n_shifts, endpoint=True)  # saturated to int32 by the CPU plugin
    elif not repeated and rng.random() < 0.3:
        shift = rng.integers(-(2**31), INT32_MAX, n_shifts, endpoint=True)  # the int32 extremes are exact
    else:
        shift = rng.integers(-25, 26, n_shifts)
    shift_v = shift.reshape(shift_shape).astype(DTYPES[stype])
    axes_v = axes.reshape(axes_shape).astype(DTYPES[atype])
    s = const_or_param(batch, rng, f"{cid}_shift", shift_v, stype, rng.random() < 0.5, rng.random() < 0.3)
    a = const_or_param(batch, rng, f"{cid}_axes", axes_v, atype, rng.random() < 0.5, rng.random() < 0.3)
    node = op7.roll(x.out, s, a)
    about = f"Roll-7 {x.etype}{list(x.value.shape)} shift={shift_v.tolist()} ({stype}) axes={axes_v.tolist()} ({atype})"
    return Tensor(node.output(0), ref_roll(x.value, shift_v, axes_v), x.etype), about


def gen_reverse_sequence(rng: np.random.Generator, batch: Batch, cid: str, x: Tensor) -> tuple[Tensor, str]:
    rank = x.value.ndim
    if rank < 2:
        raise DoesNotFit("rank < 2")
    batch_axis, seq_axis = (int(a) for a in rng.choice(rank, 2, replace=False))
    if rng.random() < 0.4:
        batch_axis -= rank
    if rng.random() < 0.4:
        seq_axis -= rank
    n_batch, n_seq = x.value.shape[batch_axis], x.value.shape[seq_axis]
    ltype = str(rng.choice(SEQ_LENGTH_TYPES))
    lengths = rng.integers(0, n_seq, n_batch, endpoint=True)
    if ltype.startswith("f"):
        # fractions are truncated; stay at or below the dim before truncation
        frac = rng.choice([0.0, 0.25, 0.5, 0.75], n_batch)
        lengths = np.where(lengths < n_seq, lengths + frac, lengths)
    lengths_v = lengths.astype(DTYPES[ltype])
    sl = const_or_param(batch, rng, f"{cid}_lengths", lengths_v, ltype, rng.random() < 0.5, rng.random() < 0.3)
    node = op1.reverse_sequence(x.out, sl, batch_axis, seq_axis)
    about = (f"ReverseSequence-1 {x.etype}{list(x.value.shape)} seq_lengths={lengths_v.tolist()} ({ltype}) "
             f"batch_axis={batch_axis} seq_axis={seq_axis}")
    return Tensor(node.output(0), ref_reverse_sequence(x.value, lengths_v, batch_axis, seq_axis), x.etype), about


def gen_gather(rng: np.random.Generator, batch: Batch, cid: str, x: Tensor) -> tuple[Tensor, str]:
    rank = x.value.ndim
    if rank == 0 or 0 in x.value.shape:
        raise DoesNotFit("no zero-size Gather on the CPU plugin")
    version = int(rng.choice([1, 7, 8]))
    axis = int(rng.integers(0, rank))
    bd = 0 if version == 1 else int(rng.integers(0, axis + 1))
    if bd and int(np.prod(x.value.shape[:bd])) == 1 and batch.for_openvino:
        bd = 0  # batch dims that are all 1 crash the CPU plugin
    extra = tuple(int(d) for d in rng.integers(1, 4, int(rng.integers(0, 3))))
    idx_shape = tuple(x.value.shape[:bd]) + extra
    dim = x.value.shape[axis]
    itype = str(rng.choice(INDEX_TYPES))
    # Gather-1/7 negative indices: zeros from the CPU plugin, wrapped by the spec's reference
    negatives = itype.startswith("i") and (version == 8 or not batch.for_openvino)
    lo, hi = (-dim - 2 if negatives else 0), dim + 2
    if (rank == 1 or dim == 1) and batch.for_openvino:
        # out-of-range indices into 1-D data, or (before a Roll) along an axis of
        # size 1: the CPU plugin returns stale memory instead of zeros there
        lo, hi = max(lo, -dim), dim
    indices = rng.integers(lo, hi, idx_shape).astype(DTYPES[itype])
    i = const_or_param(batch, rng, f"{cid}_indices", indices, itype, rng.random() < 0.5, rng.random() < 0.3)
    axis_written = axis - rank if rng.random() < 0.4 else axis
    atype = str(rng.choice(["i32", "i64"]))
    axis_v = np.array(axis_written if rng.random() < 0.5 else [axis_written], DTYPES[atype])
    a = op8.constant(axis_v, dtype=OV_TYPES[atype])  # a Parameter axis does not compile on CPU
    bd_written = bd - len(idx_shape) if 0 < bd < len(idx_shape) and rng.random() < 0.4 else bd
    if version == 1:
        node = op1.gather(x.out, i, a)
    elif version == 7:
        node = op7.gather(x.out, i, a, bd_written)
    else:
        node = op8.gather(x.out, i, a, bd_written)
    about = (f"Gather-{version} {x.etype}{list(x.value.shape)} indices={indices.tolist()} ({itype}) "
             f"axis={axis_v.tolist()} batch_dims={bd_written}")
    return Tensor(node.output(0), ref_gather(x.value, indices, axis, bd), x.etype), about


GENERATORS: dict[str, Callable[..., tuple[Tensor, str]]] = {
    "roll": gen_roll,
    "reverse_sequence": gen_reverse_sequence,
    "gather": gen_gather,
}


def add_case(rng: np.random.Generator, batch: Batch, cid: str) -> None:
    """One random chain of 1-3 ops, with fan-out and intermediate Results."""
    ops = list(GENERATORS)
    plan = [str(rng.choice(ops)) for _ in range(int(rng.integers(1, 4)))]
    # a second op reading the same tensor (fan-out) after some steps
    branches = [str(rng.choice(ops)) if rng.random() < 0.25 else None for _ in plan]
    used = set(plan) | {b for b in branches if b}
    etype = str(rng.choice(ALL_TYPES))
    rank = int(rng.integers(2, 5)) if "reverse_sequence" in used or rng.random() < 0.7 else 1
    shape = tuple(int(d) for d in rng.integers(1, 6, rank))
    if "gather" not in used and rng.random() < 0.1:
        shape = shape[:-1] + (0,)  # zero-size data: fine for Roll and ReverseSequence
    value = random_values(rng, shape, etype, "reverse_sequence" in used, batch.for_openvino)
    x = batch.parameter(f"{cid}_data", value, etype, declared_shape(rng, shape, rng.random() < 0.4))
    if rng.random() < 0.1:
        batch.result(x, f"{cid}_data_out", x.history)
    about = x.history
    for k, name in enumerate(plan):
        try:
            y, step = GENERATORS[name](rng, batch, f"{cid}_{k}", x)
        except DoesNotFit:  # roll the tensor instead
            if x.value.ndim == 0:
                break
            y, step = gen_roll(rng, batch, f"{cid}_{k}", x)
        about = y.history = f"{x.history} -> {step}"
        if branches[k] is not None:
            try:
                z, step_z = GENERATORS[branches[k]](rng, batch, f"{cid}_{k}b", x)
                batch.result(z, f"{cid}_{k}_branch", f"{x.history} -> {step_z}")
            except DoesNotFit:
                pass
        if k < len(plan) - 1 and rng.random() < 0.3:
            batch.result(y, f"{cid}_{k}_mid", about)
        if y.value.size > 4000:  # keep chains small
            batch.result(y, f"{cid}_{k}_out", about)
            return
        x = y
    batch.result(x, f"{cid}_out", about)


def make_batch(index: int, for_openvino: bool = True) -> Batch:
    rng = np.random.default_rng([SEED, index, for_openvino])
    batch = Batch(for_openvino)
    for c in range(min(PER_MODEL, CASES - index * PER_MODEL)):
        add_case(rng, batch, f"b{index}c{c}")
    return batch


@pytest.mark.parametrize("index", range(BATCHES))
def test_random_graphs_match_openvino(tmp_path: Path, index: int) -> None:
    batch = make_batch(index)
    xml = save(batch.model(), tmp_path / "model.xml")
    report = irexec.check(xml)
    assert report.errors == [], "\n".join(map(str, report.errors))
    ours = irexec.run(irexec.load(xml), batch.feeds)
    theirs = infer(compile_ir(xml), batch.feeds)
    assert set(ours) == set(theirs) == set(batch.expected)
    problems = []
    for key, want in batch.expected.items():
        if not same_bits(ours[key], theirs[key]) or not same_bits(ours[key], want):
            agree = "OpenVINO == reference" if same_bits(theirs[key], want) else "OpenVINO != reference"
            problems.append(f"{key}: {batch.about[key]} ({agree})\n  irexec   {ours[key]!r}\n  OpenVINO {theirs[key]!r}")
    assert not problems, f"{len(problems)} of {len(batch.expected)} outputs differ:\n" + "\n".join(problems)


# ----------------------------------------------- where OpenVINO's CPU plugin is not the oracle
# irexec's decided behaviour, checked against the NumPy reference only.

def _run_irexec(tmp_path: Path, batch: Batch) -> None:
    xml = save(batch.model(), tmp_path / "model.xml")
    assert irexec.check(xml).errors == []
    ours = irexec.run(irexec.load(xml), batch.feeds)
    for key, want in batch.expected.items():
        assert_same_bits(ours[key], want, f"{key}: {batch.about[key]}")


@pytest.mark.parametrize("index", range(max(1, BATCHES // 3)))
def test_irexec_only_random_graphs_any_values(tmp_path: Path, index: int) -> None:
    """Any bits of every type (f64 beyond f32, full-range i64/u64, signalling
    NaNs), Gather-1/7 negative indices, batch dims of size 1, out-of-range
    indices anywhere, int64 shifts, one shift for several axes, empty shift."""
    _run_irexec(tmp_path, make_batch(index, for_openvino=False))


def _value_probe_batch() -> Batch:
    """The values the behaviour notes list as mangled by the CPU plugin, each
    through all three ops."""
    batch = Batch(for_openvino=False)
    cases = {
        "f64": np.array([0.1, 1e300, -1e300, 1 + 2**-52, 5e-324, -0.0, np.inf], np.float64),
        "i64": np.array([2**40 + 3, -(2**62) - 1, 2**63 - 1, -(2**63), 2**31, -(2**31) - 1, 7], np.int64),
        "u64": np.array([2**63, 2**32 + 5, 2**64 - 1, 2**31, 0, 1, 2**40], np.uint64),
        "i32": np.array([2**24 + 1, 123456789, 2**31 - 1, -(2**31), -(2**24) - 3, 5, 0], np.int32),
        "u32": np.array([2**32 - 1, 2**24 + 1, 3000000001, 0, 1, 2**31, 77], np.uint32),
    }
    f64_nan = np.array([0x7FF0000000000001, 0xFFF8000000000123, 0x000FFFFFFFFFFFFF], np.uint64).view(np.float64)
    cases["f64"] = np.concatenate([cases["f64"], f64_nan])
    cases["f16"] = np.array([0x7C01, 0xFC01, 0x7D00, 0x0001, 0x8000, 0x7E01, 0x3C00], np.uint16).view(np.float16)
    cases["bf16"] = np.array([0x0001, 0x8045, 0x7F81, 0xFF96, 0x7FC1, 0x3F80, 0x0000], np.uint16).view(ml_dtypes.bfloat16)
    cases["f32"] = np.array([0x7FA00000, 0x00000001, 0xFF800001, 0x7FC00123, 0x80000000, 0x3F800000, 0x1],
                            np.uint32).view(np.float32)
    for etype, flat in cases.items():
        data = np.stack([flat, flat[::-1]])  # 2 x n
        n = data.shape[1]
        x = batch.parameter(f"{etype}_data", data, etype)
        roll = op7.roll(x.out, op8.constant(np.array([1, 3], np.int64)), op8.constant(np.array([0, 1], np.int64)))
        batch.result(Tensor(roll.output(0), ref_roll(data, np.array([1, 3]), np.array([0, 1])), etype),
                     f"{etype}_roll", f"Roll-7 {etype}")
        idx = np.array([[n - 1, 0, -1, 2]], np.int64)
        gather = op8.gather(x.out, op8.constant(idx), op8.constant(np.array(1, np.int64)), 0)
        batch.result(Tensor(gather.output(0), ref_gather(data, idx, 1, 0), etype), f"{etype}_gather", f"Gather-8 {etype}")
        lengths = np.array([n, n - 2], np.int32)
        rs = op1.reverse_sequence(x.out, op8.constant(lengths), 0, 1)
        batch.result(Tensor(rs.output(0), ref_reverse_sequence(data, lengths, 0, 1), etype),
                     f"{etype}_reverse", f"ReverseSequence-1 {etype}")
    return batch


def test_irexec_only_values_the_cpu_plugin_changes(tmp_path):
    _run_irexec(tmp_path, _value_probe_batch())


def test_irexec_only_roll_shift_forms(tmp_path):
    batch = Batch(for_openvino=False)
    data = np.arange(60, dtype=np.int16).reshape(3, 4, 5)
    x = batch.parameter("data", data, "i16")
    forms = [
        ("one scalar shift, two axes", np.array(2, np.int64), np.array([0, 2], np.int64)),
        ("scalar shift, three axes", np.array(-1, np.int32), np.array([0, 1, -1], np.int32)),
        ("empty shift and axes", np.zeros(0, np.int64), np.zeros(0, np.int64)),
        ("int64 shifts beyond int32", np.array([2**40 + 1, -(2**62)], np.int64), np.array([1, 0], np.int64)),
        ("repeated axis, shifts add up", np.array([2**62, 2**62, 1], np.int64), np.array([2, 2, 2], np.int64)),
    ]
    for k, (about, shift, axes) in enumerate(forms):
        stype, atype = f"i{shift.dtype.itemsize * 8}", f"i{axes.dtype.itemsize * 8}"
        for as_param in (False, True):
            rng = np.random.default_rng(k)
            s = const_or_param(batch, rng, f"f{k}{as_param}_shift", shift, stype, as_param)
            a = const_or_param(batch, rng, f"f{k}{as_param}_axes", axes, atype, as_param)
            y = Tensor(op7.roll(x.out, s, a).output(0), ref_roll(data, shift, axes), "i16")
            batch.result(y, f"f{k}_{'param' if as_param else 'const'}", about)
    _run_irexec(tmp_path, batch)
    # the spec's reading of a one-element shift, spelled out once
    ours = irexec.run(irexec.load(tmp_path / "model.xml"), batch.feeds)
    np.testing.assert_array_equal(ours["f0_const"], np.roll(np.roll(data, 2, axis=0), 2, axis=2))
    np.testing.assert_array_equal(ours["f2_param"], data)
    np.testing.assert_array_equal(ours["f3_const"], np.roll(np.roll(data, (2**40 + 1) % 4, axis=1), (-(2**62)) % 3, axis=0))


def _zero_size_gathers() -> list[tuple[str, np.ndarray, np.ndarray, int, int, int]]:
    data_2x0 = np.zeros((2, 0), np.float32)
    data_0x3 = np.zeros((0, 3), np.int32)
    data_2x3 = np.arange(6, dtype=np.int8).reshape(2, 3)
    return [
        # (about, data, indices, axis, batch_dims, version)
        ("data [2,0] along its empty axis: zeros", data_2x0, np.array([0, 1], np.int32), 1, 0, 8),
        ("data [2,0] along its empty axis, Gather-1", data_2x0, np.array([0, -1, 5], np.int64), 1, 0, 1),
        ("data [0,3] along axis 1: empty", data_0x3, np.array([0, 2], np.int32), 1, 0, 7),
        ("data [0,3] along axis 0: empty data, index count kept", data_0x3, np.array([0], np.int32), 0, 0, 8),
        ("indices [2,0]", data_2x3, np.zeros((2, 0), np.int32), 1, 0, 8),
        ("indices [2,0] with batch_dims 1", data_2x3, np.zeros((2, 0), np.int64), 1, 1, 7),
        ("indices [0]", data_2x3, np.zeros((0,), np.int32), 0, 0, 1),
    ]


@pytest.mark.parametrize("case", range(7))
def test_irexec_only_zero_size_gather(tmp_path, case):
    """Built with irexec's own writer: the CPU plugin crashes on some of these
    during compile_model, so OpenVINO stays out of it entirely."""
    about, data, indices, axis, batch_dims, version = _zero_size_gathers()[case]
    expected = ref_gather(data, indices, axis, batch_dims)
    etype = {"float32": "f32", "int32": "i32", "int8": "i8"}[data.dtype.name]
    b = IRBuilder()
    x = b.parameter("data", list(data.shape), etype)
    attrs = None if version == 1 else {"batch_dims": batch_dims}
    y = b.layer("Gather", f"opset{version}", [x, b.const(indices), b.const(np.array([axis], np.int64))], attrs,
                outputs=[(expected.shape, etype)], names=["out"])
    b.result(y)
    b.write(tmp_path / "model.xml")
    assert irexec.check(tmp_path / "model.xml").errors == []
    ours = irexec.run(irexec.load(tmp_path / "model.xml"), {"data": data})
    assert_same_bits(ours["out"], expected, about)


def _error_model(tmp_path: Path, build: Callable[[], tuple[list[ov.Node], ov.Node]]) -> irexec.Model:
    params, out = build()
    save(ov.Model([op1.result(out)], params, "errors"), tmp_path / "model.xml")
    return irexec.load(tmp_path / "model.xml")


@pytest.mark.parametrize("axis", [3, -4, 7])
def test_irexec_only_runtime_roll_axis_out_of_range_is_an_error(tmp_path, axis):
    x = op8.parameter([2, 3, 4], ov.Type.f32, name="x")
    axes = op8.parameter([1], ov.Type.i64, name="axes")
    model = _error_model(tmp_path, lambda: ([x, axes], op7.roll(x, op8.constant(np.array([1], np.int64)), axes)))
    feeds = {"x": np.zeros((2, 3, 4), np.float32), "axes": np.array([axis], np.int64)}
    with pytest.raises(irexec.IRExecError, match=rf"(?<![0-9]){axis}(?![0-9])"):
        irexec.run(model, feeds)
    feeds["axes"] = np.array([-3], np.int64)  # the same model runs with an axis in range
    assert irexec.run(model, feeds)


@pytest.mark.parametrize("bad", [5, -1, 100])
def test_irexec_only_seq_length_out_of_range_is_an_error(tmp_path, bad):
    x = op8.parameter([3, 4], ov.Type.i32, name="x")
    lengths = op8.parameter([3], ov.Type.i64, name="lengths")
    model = _error_model(tmp_path, lambda: ([x, lengths], op1.reverse_sequence(x, lengths, 0, 1)))
    feeds = {"x": np.zeros((3, 4), np.int32), "lengths": np.array([1, bad, 2], np.int64)}
    with pytest.raises(irexec.IRExecError) as info:
        irexec.run(model, feeds)
    message = str(info.value)
    assert re.search(rf"(?<![0-9]){bad}(?![0-9])", message), message  # the value
    assert re.search(r"(?<![0-9-])1(?![0-9])", message), message  # its batch index
