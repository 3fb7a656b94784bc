#!/usr/bin/env python
"""How fast irexec moves data, how much the run loop costs, how much memory a
run needs and how long the command takes to start.

    python benchmarks/bench_ops.py            # full run, a few minutes
    python benchmarks/bench_ops.py --quick    # small sizes, few repeats (CI)

Sections (``--only`` picks some):

math       elementwise kernels against the matching NumPy ufunc on 32 MiB of f32,
           MatMul against np.matmul, SoftMax and MVN against OpenVINO CPU on
           [64,128,768] f32 (OpenVINO on all of them where it runs them).
ops        Roll, Gather and ReverseSequence kernels (``op.compute(plan, ...)``, which
           allocates its output) against ``np.copyto`` into a preallocated
           array (the memory floor), ``x.copy()`` (the floor for anything that
           allocates its output), the naive NumPy way and OpenVINO CPU in the
           same process; the whole ``irexec.run`` of the single-op model too,
           and the kernel writing into a reused buffer (its data movement alone).
overhead   a chain of 1,000 small layers: run time not spent in kernels, per layer.
memory     peak RSS of ``irexec run`` on a chain of 256 MiB tensors.
coldstart  wall time of ``irexec --help``, ``irexec ops``, ``irexec check``.

Every timing is the median over interleaved repeats: each round runs every
contender once, in a rotating order, so that they share the machine's
conditions; compare the ratios within one run, not absolute times across runs.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
try:
    import irexec
except ImportError:  # a fresh clone, not installed
    sys.path.insert(0, str(REPO))
    import irexec
from irexec.executor.engine import run_model
from irexec.model.builder import IRBuilder, Out
from irexec.ops.framework.registry import resolve
from irexec.system import parallel

try:
    import openvino as ov
except ImportError:
    ov = None

MiB = 1 << 20
LARGE = (8, 64, 128, 128)  # 32 MiB of f32
SMALL = (2, 8, 32, 32)  # 64 KiB of f32


# ------------------------------------------------------------------ timing


def measure(contenders: dict[str, Callable[[], Any]], rounds: int, inner: int = 1) -> dict[str, float]:
    """Median seconds per call of each contender, interleaved round by round."""
    names = list(contenders)
    for fn in contenders.values():  # warm up: first-touch pages, plan caches
        fn()
    samples: dict[str, list[float]] = {n: [] for n in names}
    for r in range(rounds):
        k = r % len(names)
        for name in names[k:] + names[:k]:
            fn = contenders[name]
            t0 = time.perf_counter()
            for _ in range(inner):
                fn()
            samples[name].append((time.perf_counter() - t0) / inner)
    return {n: statistics.median(v) for n, v in samples.items()}


def subprocess_env() -> dict[str, str]:
    """Children import irexec from this tree, whether or not it is installed."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return env


def wall(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=subprocess_env(), check=True)
    return time.perf_counter() - t0


# Linux carries the parent's peak RSS into a forked child across exec, so the
# command is started from a minimal launcher whose own footprint is negligible.
_LAUNCHER = (
    "import resource, subprocess, sys\n"
    "rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode\n"
    "print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)


def peak_rss_mib(cmd: list[str]) -> float:
    """Peak RSS of one run of ``cmd`` (ru_maxrss of the launcher's child, KiB on Linux)."""
    proc = subprocess.run([sys.executable, "-c", _LAUNCHER, *cmd], capture_output=True, text=True, env=subprocess_env(),
                          check=False)
    rc, kib = proc.stdout.split()
    if rc != "0":
        raise RuntimeError(f"{' '.join(cmd)} failed ({rc}): {proc.stderr[-2000:]}")
    return int(kib) / 1024


def table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    right = [i > 0 and all(re.match(r"^[-0-9.x]+$|^n/a$", r[i]) for r in rows) for i in range(len(headers))]

    def line(cells: list[str]) -> str:
        return "  ".join(c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right)).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in widths])] + [line(r) for r in rows])


# ------------------------------------------------------------------- cases


@dataclass
class Case:
    name: str
    op: str  # IR type
    version: str
    build: Callable[[IRBuilder, Out, tuple[int, ...], np.random.Generator], tuple[list[Out], dict[str, Any], tuple[int, ...]]]
    naive: Callable[[np.ndarray, list[np.ndarray]], np.ndarray]
    target: str = ""  # "<=1.3x memcpy" etc., besides "no slower than OpenVINO"


def _roll_build(axes: tuple[int, ...]):
    def build(b: IRBuilder, x: Out, shape: tuple[int, ...], rng: np.random.Generator):
        shifts = np.array([shape[a] // 3 + 1 for a in axes], dtype=np.int64)
        return [x, b.const(shifts), b.const(np.array(axes, dtype=np.int64))], {}, shape

    return build


def _roll_naive(x: np.ndarray, consts: list[np.ndarray]) -> np.ndarray:
    return np.roll(x, tuple(int(s) for s in consts[0]), tuple(int(a) for a in consts[1]))


def _gather_build(axis: int, batch_dims: int = 0):
    def build(b: IRBuilder, x: Out, shape: tuple[int, ...], rng: np.random.Generator):
        if batch_dims:
            idx = np.stack([rng.permutation(shape[axis]) for _ in range(shape[0])]).astype(np.int32)
        else:
            idx = rng.permutation(shape[axis]).astype(np.int32)
        return [x, b.const(idx), b.const(np.array([axis], dtype=np.int64))], {"batch_dims": batch_dims}, shape

    return build


def _gather_naive(x: np.ndarray, consts: list[np.ndarray]) -> np.ndarray:
    idx, axis = consts[0], int(consts[1].reshape(-1)[0])
    if idx.ndim == 2:  # batch_dims=1 on axis 1: fancy indexing per batch
        return x[np.arange(x.shape[0])[:, None], idx]
    return np.take(x, idx, axis=axis)


def _revseq_build(batch_axis: int, seq_axis: int):
    def build(b: IRBuilder, x: Out, shape: tuple[int, ...], rng: np.random.Generator):
        lengths = rng.integers(1, shape[seq_axis] + 1, size=shape[batch_axis]).astype(np.int32)
        return [x, b.const(lengths)], {"batch_axis": batch_axis, "seq_axis": seq_axis}, shape

    return build


def _revseq_naive(batch_axis: int, seq_axis: int):
    def naive(x: np.ndarray, consts: list[np.ndarray]) -> np.ndarray:
        out = x.copy()
        for bi, n in enumerate(consts[0].tolist()):  # flip each batch's prefix
            dst: list[Any] = [slice(None)] * x.ndim
            dst[batch_axis], dst[seq_axis] = bi, slice(0, n)
            src = list(dst)
            src[seq_axis] = slice(n - 1, None, -1) if n > 1 else slice(0, 1)
            out[tuple(dst)] = x[tuple(src)]
        return out

    return naive


def _consts_build(attrs: dict[str, Any], *values: Any, twice: bool = False):
    """A build whose extra inputs are the given Consts (a callable gets the shape)."""
    def build(b: IRBuilder, x: Out, shape: tuple[int, ...], rng: np.random.Generator):
        consts = [np.array(v(shape) if callable(v) else v, np.int64) for v in values]
        ins = [x, x] if twice else [x]
        return ins + [b.const(c) for c in consts], attrs, None

    return build


def _crop(shape: tuple[int, ...]) -> tuple[list[int], list[int]]:
    return [0, 0, 1, 1], [shape[0], shape[1], shape[2] - 1, shape[3] - 1]


CASES = [
    Case("roll-1-axis", "Roll", "opset7", _roll_build((2,)), _roll_naive, "memcpy<=1.3"),
    Case("roll-2-axes", "Roll", "opset7", _roll_build((2, 3)), _roll_naive, "memcpy<=1.3"),
    Case("gather-axis1-perm", "Gather", "opset8", _gather_build(1), _gather_naive, "memcpy<=1.3"),
    Case("gather-last-axis", "Gather", "opset8", _gather_build(3), _gather_naive, ""),
    Case("gather-batch_dims1", "Gather", "opset8", _gather_build(1, batch_dims=1), _gather_naive, "memcpy<=1.3"),
    Case("revseq-b0-s1", "ReverseSequence", "opset1", _revseq_build(0, 1), _revseq_naive(0, 1), "memcpy<=2"),
    Case("revseq-s0-b1", "ReverseSequence", "opset1", _revseq_build(1, 0), _revseq_naive(1, 0), "memcpy<=2"),
    Case("transpose-0231", "Transpose", "opset1", _consts_build({}, [0, 2, 3, 1]),
         lambda x, c: np.ascontiguousarray(x.transpose(0, 2, 3, 1)), "memcpy<=1.5"),
    Case("slice-crop", "Slice", "opset8", _consts_build({}, lambda s: _crop(s)[0], lambda s: _crop(s)[1], [1, 1, 1, 1]),
         lambda x, c: np.ascontiguousarray(x[:, :, 1:-1, 1:-1]), "memcpy<=1.5"),
    Case("stridedslice-flip", "StridedSlice", "opset1",
         _consts_build({"begin_mask": "1,1,1,1", "end_mask": "1,1,1,1"}, [0, 0, 0, 0], [0, 0, 0, 0], [1, 1, -1, 1]),
         lambda x, c: np.ascontiguousarray(x[:, :, ::-1]), "memcpy<=1.5"),
    Case("concat-axis1", "Concat", "opset1", _consts_build({"axis": 1}, twice=True),
         lambda x, c: np.concatenate([x, x], axis=1), "memcpy<=1.5"),
    Case("tile-last-x2", "Tile", "opset1", _consts_build({}, [1, 1, 1, 2]), lambda x, c: np.tile(x, (1, 1, 1, 2)),
         "memcpy<=1.5"),
    Case("pad-constant", "Pad", "opset12", _consts_build({"pad_mode": "constant"}, [0, 0, 2, 2], [0, 0, 2, 2]),
         lambda x, c: np.pad(x, ((0, 0), (0, 0), (2, 2), (2, 2))), "memcpy<=1.5"),
    Case("pad-edge", "Pad", "opset12", _consts_build({"pad_mode": "edge"}, [0, 0, 2, 2], [0, 0, 2, 2]),
         lambda x, c: np.pad(x, ((0, 0), (0, 0), (2, 2), (2, 2)), mode="edge"), "memcpy<=1.5"),
    Case("broadcast-x2", "Broadcast", "opset3", _consts_build({"mode": "numpy"}, lambda s: [2, *s]),
         lambda x, c: np.broadcast_to(x, (2, *x.shape)).copy(), "memcpy<=1.5"),
]


def write_single_op(case: Case, shape: tuple[int, ...], directory: Path, rng: np.random.Generator) -> Path:
    b = IRBuilder(name=case.name)
    x = b.parameter("data", shape, "f32")
    inputs, attrs, out_shape = case.build(b, x, shape, rng)
    outputs = None if out_shape is None else [(out_shape, "f32")]  # None: irexec infers the output dims
    y = b.layer(case.op, case.version, inputs, attrs or None, outputs=outputs, names=["out"])
    b.result(y)
    xml = directory / f"{case.name}-{'x'.join(map(str, shape))}.xml"
    b.write(xml)
    return xml


@dataclass
class OpRow:
    case: str
    size: str
    times: dict[str, float] = field(default_factory=dict)
    note: str = ""


def bench_case(case: Case, shape: tuple[int, ...], rounds: int, inner: int, directory: Path, use_ov: bool,
               ov_threads: int = 0) -> OpRow:
    rng = np.random.default_rng(0)
    xml = write_single_op(case, shape, directory, rng)
    x = rng.standard_normal(shape, dtype=np.float32)
    row = OpRow(case.name, f"{x.nbytes / MiB:g} MiB" if x.nbytes >= MiB else f"{x.nbytes >> 10} KiB")
    dst = np.empty_like(x)

    model = irexec.read_model(str(xml))
    layer = next(l for l in model.layers.values() if l.type == case.op)
    srcs = model.graph.inputs_of(layer.id)
    n_data = sum(1 for s in srcs if model.layers[s[0]].type == "Parameter")
    consts = [np.asarray(model.ops[s[0]].run()[0]) for s in srcs[n_data:]]  # type: ignore[index,union-attr]
    expected = case.naive(x, consts)
    if expected.shape != x.shape:  # the floor is a copy of the output's bytes
        src_o, dst = np.ones_like(expected), np.empty_like(expected)
    else:
        src_o = x
    args_of = [x] * n_data + consts

    contenders: dict[str, Callable[[], Any]] = {
        "memcpy": lambda: np.copyto(dst, src_o),
        "copy": lambda: x.copy(),
        "naive": lambda: case.naive(x, consts),
    }
    op = model.ops[layer.id]
    if resolve(case.op, case.version) is None or op is None:
        row.note = f"{case.op} not implemented"
    else:
        plan = op.plan_for(args_of).plan  # inference once, as a run caches it per input signature
        got = op.compute(plan, *args_of)[0]
        if not np.array_equal(got, expected):
            row.note = "irexec differs from NumPy!"
        loaded = irexec.load(str(xml))
        contenders["irexec"] = lambda: op.compute(plan, *args_of)
        warm = warm_kernel(op, [plan, *args_of], expected)
        if warm is not None:
            contenders["warm"] = warm
        contenders["run"] = lambda: irexec.run(loaded, {"data": x})
    if use_ov:
        config = {"INFERENCE_NUM_THREADS": ov_threads} if ov_threads else {}
        compiled = ov.Core().compile_model(str(xml), "CPU", config)
        request = compiled.create_infer_request()
        ov_out = request.infer({0: x}, share_inputs=True, share_outputs=True)[0]
        if not np.array_equal(ov_out, expected):
            row.note = (row.note + "; " if row.note else "") + "OpenVINO differs from NumPy"
        contenders["openvino"] = lambda: request.infer({0: x}, share_inputs=True, share_outputs=True)
    row.times = measure(contenders, rounds, inner)
    return row


class _WarmNumpy:
    """Stands in for numpy inside an op's module so that its ``np.empty`` of
    the output returns one reused, already faulted-in buffer: the kernel's
    time without the cost of fresh pages (a diagnostic, not what a run does)."""

    def __init__(self, buffer: np.ndarray):
        self._buffer = buffer

    def empty(self, shape: Any, dtype: Any = float, *args: Any, **kwargs: Any) -> np.ndarray:
        if tuple(np.atleast_1d(shape)) == self._buffer.shape and np.dtype(dtype) == self._buffer.dtype and not args and not kwargs:
            return self._buffer
        return np.empty(shape, dtype, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(np, name)


def warm_kernel(op: Any, args: list[np.ndarray], expected: np.ndarray) -> Callable[[], Any] | None:
    """op.compute with its output buffer reused, or None when the op's module
    does not allocate through ``np.empty`` (or the result would be wrong)."""
    module = sys.modules[type(op).__module__]
    if getattr(module, "np", None) is not np:
        return None
    buffer = np.empty_like(expected)
    proxy = _WarmNumpy(buffer)

    def call() -> Any:
        module.np = proxy  # type: ignore[attr-defined]
        try:
            return op.compute(*args)
        finally:
            module.np = np  # type: ignore[attr-defined]

    got = call()[0]
    if got is not buffer or not np.array_equal(got, expected):
        return None
    return call


def ratio(row: OpRow, ref: str) -> float | None:
    if "irexec" not in row.times or ref not in row.times:
        return None
    return row.times["irexec"] / row.times[ref]


def _div(times: dict[str, float], a: str, b: str) -> float | None:
    return times[a] / times[b] if a in times and b in times else None


def fmt_ratio(r: float | None) -> str:
    return "n/a" if r is None else f"{r:.2f}"


def section_ops(args: argparse.Namespace, directory: Path) -> list[str]:
    use_ov = ov is not None and not args.no_openvino
    sizes = [SMALL, (2, 64, 64, 64)] if args.quick else [SMALL, LARGE]
    rows: list[OpRow] = []
    for case in [c for c in CASES if not args.case or any(k in c.name for k in args.case)]:
        for shape in sizes:
            big = int(np.prod(shape)) * 4 >= 8 * MiB
            rounds = args.rounds or ((5 if args.quick else 31) if big else (9 if args.quick else 101))
            inner = 1 if big else (5 if args.quick else 20)
            row = bench_case(case, shape, rounds, inner, directory, use_ov, args.ov_threads)
            rows.append(row)
            print(f"  measured {row.case} {row.size}", file=sys.stderr, flush=True)

    out = ["Kernels: median ms per call; ratios are irexec kernel time / other time",
           "(memcpy: np.copyto into a preallocated array, the floor; copy: x.copy(), the floor for",
           "a kernel that allocates its output, as every irexec kernel does; below 1 = irexec faster)", ""]
    headers = ["case", "size", "irexec ms", "run ms", "memcpy ms", "copy ms", "naive ms", "OpenVINO ms",
               "x memcpy", "x copy", "x naive", "x OpenVINO", "warm x memcpy", "note"]
    body = []
    for r in rows:
        t = r.times

        def ms(k: str, t: dict[str, float] = t) -> str:
            return f"{t[k] * 1e3:.3f}" if k in t else "n/a"

        body.append([r.case, r.size, ms("irexec"), ms("run"), ms("memcpy"), ms("copy"), ms("naive"), ms("openvino"),
                     fmt_ratio(ratio(r, "memcpy")), fmt_ratio(ratio(r, "copy")), fmt_ratio(ratio(r, "naive")),
                     fmt_ratio(ratio(r, "openvino")), fmt_ratio(_div(t, "warm", "memcpy")), r.note])
    out.append(table(headers, body))
    out.append("")
    out.append("irexec ms: op.compute(plan, ...) alone; run ms: the whole irexec.run of the single-op model (feeds,")
    out.append("Parameter, Const, Result, bookkeeping). Both allocate the output on every call.")
    out.append("warm x memcpy: the same kernel writing into a reused output buffer, over memcpy: its data")
    out.append("movement alone, without the fresh output's page faults (a diagnostic; a run always allocates).")
    if use_ov:
        threads = args.ov_threads or f"default ({os.cpu_count()} cores)"
        out.append(f"OpenVINO {ov.get_version()} CPU plugin, {threads} inference threads, one InferRequest, "
                   "share_inputs=True, share_outputs=True.")
    else:
        out.append("OpenVINO not importable (or --no-openvino): no OpenVINO column.")
    out.append(f"irexec kernels: up to {parallel.num_threads()} threads ({parallel.ENV_VAR}) on outputs of "
               f"{parallel.MIN_PARALLEL_BYTES >> 20} MiB or more, where the kernel uses them.")
    out.append("")
    out.extend(targets(rows, large=f"{int(np.prod(sizes[-1])) * 4 / MiB:g} MiB"))
    return out


def targets(rows: list[OpRow], large: str) -> list[str]:
    out = [f"Targets (memcpy targets on the {large} tensor, the largest measured; bandwidth bound at 32 MiB;",
           "OpenVINO targets at every size):"]
    checks: list[list[str]] = []
    by_case: dict[str, list[OpRow]] = {}
    for r in rows:
        by_case.setdefault(r.case, []).append(r)
    for case in CASES:
        big = [r for r in by_case.get(case.name, []) if r.size == large]
        if case.target and big:
            limit = float(case.target.split("<=")[1])
            r = ratio(big[0], "memcpy")
            checks.append([case.name, f"<= {limit:g}x memcpy ({large})", fmt_ratio(r), _verdict(r, limit)])
        for r in by_case.get(case.name, []):
            rr = ratio(r, "openvino")
            checks.append([case.name, f"no slower than OpenVINO ({r.size})", fmt_ratio(rr), _verdict(rr, 1.0)])
    out.append(table(["case", "target", "ratio", "status"], checks))
    return out


def _verdict(r: float | None, limit: float) -> str:
    return "n/a" if r is None else ("met" if r <= limit else "NOT MET")


# ---------------------------------------------------------------- overhead


def write_chain(op: str, n: int, shape: tuple[int, ...], path: Path, dtype: str = "f32") -> Path:
    b = IRBuilder(name=f"{op.lower()}-chain")
    y = b.parameter("data", shape, dtype)
    if op == "Roll":
        shift, axes = b.const(np.array([1], dtype=np.int64)), b.const(np.array([0], dtype=np.int64))
    for _ in range(n):
        if op == "Roll":
            y = b.layer("Roll", "opset7", [y, shift, axes], outputs=[(shape, dtype)])
        else:
            y = b.layer("Convert", "opset1", [y], {"destination_type": dtype}, outputs=[(shape, dtype)])
    b.result(y)
    b.write(path)
    return path


def section_overhead(args: argparse.Namespace, directory: Path) -> list[str]:
    from irexec.executor import layer as execute  # the module whose compute_layer refuses

    n = 200 if args.quick else 1000
    rounds = args.rounds or (5 if args.quick else 15)
    shape = (4, 8)
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    # The run checks each layer's inferred output against the memory limit
    # before its kernel runs; its share is measured by switching it off.
    hook = getattr(execute, "refuse_over_memory_limit", None)
    variants: dict[str, tuple[Any, bool]] = {}
    loads: dict[str, float] = {}
    for op in ("Roll", "Convert"):
        if resolve(op, "opset7") is None:
            continue
        xml = write_chain(op, n, shape, directory / f"{op.lower()}-chain.xml")
        t0 = time.perf_counter()
        model = irexec.load(str(xml))
        loads[op] = time.perf_counter() - t0
        variants[f"{n} x {op}"] = (model, True)
        if hook is not None:
            variants[f"{n} x {op}, memory-limit check off"] = (model, False)

    samples: dict[str, list[tuple[float, float, int]]] = {k: [] for k in variants}

    def one(name: str) -> None:
        model, checked = variants[name]
        if not checked:
            execute.refuse_over_memory_limit = lambda *a, **k: None  # type: ignore[attr-defined]
        try:
            t0 = time.perf_counter()
            result = run_model(model, {"data": x})
            w = time.perf_counter() - t0
        finally:
            if hook is not None:
                execute.refuse_over_memory_limit = hook  # type: ignore[attr-defined]
        samples[name].append((w, sum(result.times.values()), len(result.times)))

    names = list(variants)
    for name in names:
        one(name)
        samples[name].clear()
    for r in range(rounds):  # interleaved, rotating, like the kernels
        k = r % len(names)
        for name in names[k:] + names[:k]:
            one(name)
    rows = []
    for name in names:
        w = statistics.median(s[0] for s in samples[name])
        kern = statistics.median(s[1] for s in samples[name])
        layers = samples[name][0][2]
        per = statistics.median((s[0] - s[1]) / s[2] for s in samples[name])
        op = name.split(" x ")[1].split(",")[0]
        rows.append([name, str(layers), f"{w * 1e3:.1f}", f"{kern * 1e3:.1f}", f"{per * 1e6:.1f}",
                     ("met" if per <= 50e-6 else "NOT MET") if variants[name][1] else "-",
                     f"{loads[op] / layers * 1e6:.1f}"])
    out = [(f"Executor overhead: a chain of {n} layers on a {'x'.join(map(str, shape))} f32 tensor, median of {rounds} "
            "interleaved runs"),
           "(overhead = run time minus the kernels' own times, per executed layer; target <= 50 us;",
           " load = irexec.load of the chain, per layer, once)", ""]
    out.append(table(["chain", "layers run", "run ms", "kernels ms", "overhead us/layer", "target", "load us/layer"], rows))
    return out


# ------------------------------------------------------------------ memory


def section_memory(args: argparse.Namespace, directory: Path) -> list[str]:
    nbytes = (16 if args.quick else 256) * MiB
    shape = (nbytes // 4 // (1024 * 1024), 1024, 1024) if nbytes >= 4 * MiB else (nbytes // 4,)
    op = "Roll" if resolve("Roll", "opset7") is not None else "Convert"
    b = IRBuilder(name="memory-chain")
    y = b.parameter("data", shape, "f32")
    for i in range(3):
        if op == "Roll":
            y = b.layer("Roll", "opset7", [y, b.const(np.array([i + 1], dtype=np.int64)), b.const(np.array([0], dtype=np.int64))],
                        outputs=[(shape, "f32")])
        else:
            y = b.layer("Convert", "opset1", [y], {"destination_type": "f32"}, outputs=[(shape, "f32")])
    b.result(y)
    xml = directory / "memory-chain.xml"
    b.write(xml)
    inputs, output = directory / "memory-in.npz", directory / "memory-out.npz"
    np.savez(inputs, data=np.ones(shape, dtype=np.float32))

    py = sys.executable
    base_cmd = [py, "-c", "import numpy, irexec.cli, irexec.executor.engine, irexec.api.load, irexec.system.tensorfile"]
    run_cmd = [py, "-m", "irexec", "run", str(xml), "--inputs", str(inputs), "--output", str(output)]
    reps = 1 if args.quick else 3
    base = min(peak_rss_mib(base_cmd) for _ in range(reps))
    peaks = [peak_rss_mib(run_cmd) for _ in range(reps)]
    peak = min(peaks)  # the least disturbed run; RSS only grows with noise
    mib = nbytes / MiB
    budget = base + 4 * mib
    verdict = "met" if peak <= budget else "NOT MET"
    return [
        f"Memory: `irexec run --output` on Parameter -> 3 x {op} -> Result, every tensor {mib:g} MiB f32",
        "",
        table(["measure", "MiB"], [
            ["interpreter + irexec modules (baseline)", f"{base:.0f}"],
            ["peak RSS of irexec run", f"{peak:.0f}"],
            ["peak minus baseline", f"{peak - base:.0f}  (= {(peak - base) / mib:.2f} tensors)"],
            ["budget: baseline + input + output + 2 intermediates", f"{budget:.0f}"],
        ]),
        f"peak <= budget: {verdict}",
    ]


# --------------------------------------------------------------- cold start


def section_coldstart(args: argparse.Namespace, directory: Path) -> list[str]:
    xml = write_chain("Convert", 3, (2, 3), directory / "small.xml")
    py = sys.executable
    commands = {
        "python -c pass": [py, "-c", "pass"],
        "irexec --help": [py, "-m", "irexec", "--help"],
        "irexec ops": [py, "-m", "irexec", "ops"],
        "irexec check small.xml": [py, "-m", "irexec", "check", str(xml)],
        "python -c 'import irexec, numpy'": [py, "-c", "import irexec, numpy"],
    }
    if ov is not None and not args.no_openvino:
        commands["python -c 'import openvino'"] = [py, "-c", "import openvino"]
    reps = args.rounds or (3 if args.quick else 9)
    times = measure({k: (lambda c=c: wall(c)) for k, c in commands.items()}, reps)
    # measure() returns the duration of the lambda, which is the subprocess wall time
    heavy = ("networkx", "lxml", "ml_dtypes", "numpy")
    rows = []
    for name, cmd in commands.items():
        imported = "-"
        if "irexec" in name and "-m" in cmd:
            proc = subprocess.run([py, "-X", "importtime", *cmd[1:]], capture_output=True, text=True, env=subprocess_env(),
                                  check=False)
            mods = {m.group(1) for m in re.finditer(r"\|\s+(\S+)$", proc.stderr, re.MULTILINE)}
            imported = ", ".join(h for h in heavy if h in mods) or "none of them"
        rows.append([name, f"{times[name] * 1e3:.0f}", imported])
    return [f"Cold start: wall time of a fresh process, median of {reps} (`irexec` = `python -m irexec`)", "",
            table(["command", "ms", f"imports of {', '.join(heavy)}"], rows)]


# -------------------------------------------------------------------- main


def machine() -> str:
    model = platform.processor() or "?"
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
        m = re.search(r"Model name:\s*(.+)", out)
        model = m.group(1).strip() if m else model
    except OSError:
        pass
    ovv = ov.get_version() if ov is not None else "not installed"
    blas = {k: v for k, v in os.environ.items() if k.startswith("OPENBLAS_")}
    return (f"Machine: {model}, {os.cpu_count()} logical cores; Python {platform.python_version()}, NumPy {np.__version__}, "
            f"OpenVINO {ovv}" + (f"; {' '.join(f'{k}={v}' for k, v in sorted(blas.items()))}" if blas else ""))


# ------------------------------------------------------------------ math


@dataclass
class MathCase:
    name: str
    op: str
    version: str
    shapes: list[tuple[int, ...]]
    numpy: Callable[..., Any] | None  # the matching NumPy computation, None: no such ufunc
    attrs: dict[str, str] = field(default_factory=dict)
    consts: list[np.ndarray] = field(default_factory=list)  # trailing Const inputs
    target: str = ""


def _math_cases(quick: bool) -> list[MathCase]:
    big = (2, 64, 64, 64) if quick else LARGE
    rows = (8, 128, 768) if quick else (64, 128, 768)
    mm = ((64, 128, 768), (768, 768)) if not quick else ((8, 128, 768), (768, 768))
    ew = "numpy<=1.5"
    return [
        MathCase("add", "Add", "opset1", [big, big], np.add, target=ew),
        MathCase("multiply", "Multiply", "opset1", [big, big], np.multiply, target=ew),
        MathCase("divide", "Divide", "opset1", [big, big], np.divide, target=ew),
        MathCase("maximum", "Maximum", "opset1", [big, big], np.maximum, target=ew),
        MathCase("greater", "Greater", "opset1", [big, big], np.greater, target=ew),
        MathCase("relu", "ReLU", "opset1", [big], lambda x: np.maximum(x, 0), target=ew),
        MathCase("abs", "Abs", "opset1", [big], np.abs, target=ew),
        MathCase("floor", "Floor", "opset1", [big], np.floor, target=ew),
        MathCase("sqrt", "Sqrt", "opset1", [big], np.sqrt, target=ew),
        MathCase("exp", "Exp", "opset1", [big], np.exp, target=ew),
        MathCase("tanh", "Tanh", "opset1", [big], np.tanh, target=ew),
        MathCase("sigmoid", "Sigmoid", "opset1", [big], lambda x: 1 / (1 + np.exp(-x))),
        MathCase("gelu-erf", "Gelu", "opset7", [big], None, {"approximation_mode": "erf"}),
        MathCase("hswish", "HSwish", "opset4", [big], lambda x: x * np.clip(x + 3, 0, 6) / 6),
        MathCase("matmul", "MatMul", "opset1", [mm[0]], np.matmul, consts=[np.random.default_rng(1).standard_normal(
            mm[1], dtype=np.float32)], target="numpy<=1.3"),
        MathCase("softmax", "SoftMax", "opset8", [rows], None, {"axis": "-1"}, target="openvino>=1"),
        MathCase("mvn", "MVN", "opset6", [rows], None, {"normalize_variance": "true", "eps": "1e-5",
                                                        "eps_mode": "inside_sqrt"}, [np.array([-1], np.int64)],
                 target="openvino>=1"),
        MathCase("reduce-mean", "ReduceMean", "opset1", [rows], lambda x, a: np.mean(x, axis=-1), {},
                 [np.array([-1], np.int64)]),
    ]


def _bench_math_case(case: MathCase, args: argparse.Namespace, directory: Path, rng: np.random.Generator,
                     use_ov: bool) -> list[str]:
    xs = [rng.standard_normal(s, dtype=np.float32) for s in case.shapes]
    if case.op == "Sqrt":
        xs = [np.abs(x) for x in xs]
    cls = resolve(case.op, case.version)
    op = cls.build(None, case.attrs)[0] if cls is not None else None
    if op is None:
        return [case.name, "n/a", "n/a", "n/a", f"{case.op} not implemented"]
    inputs = xs + case.consts
    plan = op.plan_for(inputs).plan
    contenders: dict[str, Callable[[], Any]] = {"irexec": lambda: op.compute(plan, *inputs)}
    numpy_fn = case.numpy
    if numpy_fn is not None:
        contenders["numpy"] = lambda: numpy_fn(*inputs)
    if use_ov:
        b = IRBuilder(name=case.name)
        params = [b.parameter(f"in{i}", x.shape, "f32") for i, x in enumerate(xs)]
        y = b.layer(case.op, case.version, params + [b.const(c) for c in case.consts], case.attrs or None, names=["out"])
        b.result(y)
        xml = directory / f"math-{case.name}.xml"
        b.write(xml)
        config = {"INFERENCE_NUM_THREADS": args.ov_threads} if args.ov_threads else {}
        request = ov.Core().compile_model(str(xml), "CPU", config).create_infer_request()
        feeds = dict(enumerate(xs))
        contenders["openvino"] = lambda: request.infer(feeds, share_inputs=True, share_outputs=True)
    big = sum(x.nbytes for x in xs) >= 8 * MiB
    times = measure(contenders, args.rounds or ((3 if args.quick else 11) if big else 21))
    return [case.name, f"{times['irexec'] * 1e3:.1f}", fmt_ratio(_div(times, "irexec", "numpy")),
            fmt_ratio(_div(times, "irexec", "openvino")), case.target]


def section_math(args: argparse.Namespace, directory: Path) -> list[str]:
    use_ov = ov is not None and not args.no_openvino
    rng = np.random.default_rng(0)
    rows = []
    for case in [c for c in _math_cases(args.quick) if not args.case or any(k in c.name for k in args.case)]:
        rows.append(_bench_math_case(case, args, directory, rng, use_ov))
        print(f"  measured {case.name}", file=sys.stderr, flush=True)
    return ["Math kernels (`op.compute`, output allocated), f32; ratios are irexec time / other time", "",
            table(["case", "irexec ms", "x numpy", "x openvino", "target"], rows)]


SECTIONS = {"math": section_math, "ops": section_ops, "overhead": section_overhead, "memory": section_memory,
            "coldstart": section_coldstart}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small tensors and few repeats (a smoke run for CI)")
    parser.add_argument("--only", action="append", choices=list(SECTIONS), help="run only this section (repeatable)")
    parser.add_argument("--case", action="append", help="only the op cases whose name contains this (repeatable)")
    parser.add_argument("--rounds", type=int, default=0, help="repeats per measurement (default depends on size)")
    parser.add_argument("--ov-threads", type=int, default=0, help="OpenVINO INFERENCE_NUM_THREADS (default: its own)")
    parser.add_argument("--no-openvino", action="store_true", help="leave OpenVINO out even when importable")
    parser.add_argument("--irexec-threads", type=int, default=0,
                        help=f"threads irexec's kernels may use ({parallel.ENV_VAR}; default: the CPUs)")
    parser.add_argument("--no-retain", action="store_true",
                        help="return freed memory to the kernel (as library users get unless they opt in)")
    args = parser.parse_args(argv)
    retained = not args.no_retain and irexec.retain_freed_memory()  # as `irexec run` does
    if args.irexec_threads:
        os.environ[parallel.ENV_VAR] = str(args.irexec_threads)

    print(machine())
    print("quick mode: small sizes and few repeats, numbers are indicative only" if args.quick else
          "full mode")
    print("freed memory reused by the allocator, as in `irexec run`: " + ("yes" if retained else "no (--no-retain or not glibc)"))
    with tempfile.TemporaryDirectory(prefix="irexec-bench-") as tmp:
        for name in args.only or list(SECTIONS):
            print(f"\n== {name}", flush=True)
            print("\n".join(SECTIONS[name](args, Path(tmp))), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
