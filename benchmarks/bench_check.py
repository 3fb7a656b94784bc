#!/usr/bin/env python
"""How fast ``irexec check`` is on a long model, and how it scales.

    python benchmarks/bench_check.py              # 1,000 and 10,000 ops, 3 repeats
    python benchmarks/bench_check.py --ops 2000 --ops 20000 --repeat 5
    python benchmarks/bench_check.py --profile    # cProfile of the largest check
    python benchmarks/bench_check.py --ops 9375 --readers 7   # where check goes, and the cache, interleaved

The model is a chain of Roll-7 / Gather-8 / ReverseSequence-1 layers in turn on
a small f32 tensor, each with its Consts (about 2.7 layers per op), written by
a direct XML writer in OpenVINO's layout (so OpenVINO reads the same file).
For each size it reports the median wall time of ``irexec.check`` in-process,
the time per layer, the peak of Python allocations during the check
(tracemalloc, measured in a separate untimed pass) and that peak per layer, OpenVINO's
``Core().read_model`` of the same file (interleaved with irexec's repeats so
both see the same load), and finally how the time scales from the smallest to
the largest size (10x the ops should cost about 10x the time).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import os
import pstats
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
try:
    import irexec
except ImportError:  # a fresh clone, not installed
    sys.path.insert(0, str(REPO))
    import irexec

try:
    import openvino as ov
except ImportError:
    ov = None

SHAPE = (4, 6)
DATA_DIMS = "".join(f"\n\t\t\t\t\t<dim>{d}</dim>" for d in SHAPE)


def write_chain(path: Path, n_ops: int) -> int:
    """Write a Parameter -> n_ops x (Roll | Gather | ReverseSequence) -> Result
    model; returns its number of layers."""
    blob = bytearray()

    def put(arr: np.ndarray) -> tuple[int, int]:
        offset = len(blob)
        blob.extend(arr.tobytes())
        return offset, arr.nbytes

    # identical blobs share an offset, as OpenVINO writes them
    shift = put(np.array([1], np.int64))
    axes = put(np.array([1], np.int64))
    indices = put(np.array([5, 4, 3, 2, 1, 0], np.int64))
    axis = put(np.array(1, np.int64))
    seq_lengths = put(np.array([6, 5, 4, 3], np.int64))

    layers: list[str] = []
    edges: list[str] = []
    next_id = 0

    def const(blob_ref: tuple[int, int], dims: tuple[int, ...]) -> int:
        nonlocal next_id
        lid, next_id = next_id, next_id + 1
        dim_xml = "".join(f"<dim>{d}</dim>" for d in dims)
        layers.append(
            f'\t\t<layer id="{lid}" name="Const_{lid}" type="Const" version="opset1">\n'
            f'\t\t\t<data element_type="i64" shape="{", ".join(map(str, dims))}" offset="{blob_ref[0]}" size="{blob_ref[1]}" />\n'
            f'\t\t\t<output>\n\t\t\t\t<port id="0" precision="I64">{dim_xml}</port>\n\t\t\t</output>\n\t\t</layer>')
        return lid

    def data_port(pid: int, precision: str = "FP32", names: str = "") -> str:
        attr = f' names="{names}"' if names else ""
        return f'\t\t\t\t<port id="{pid}" precision="{precision}"{attr}>{DATA_DIMS}\n\t\t\t\t</port>\n'

    def index_port(pid: int, dims: tuple[int, ...]) -> str:
        return f'\t\t\t\t<port id="{pid}" precision="I64">' + "".join(f"<dim>{d}</dim>" for d in dims) + "</port>\n"

    layers.append(
        '\t\t<layer id="0" name="x" type="Parameter" version="opset1">\n'
        f'\t\t\t<data shape="{",".join(map(str, SHAPE))}" element_type="f32" />\n'
        f'\t\t\t<output>\n{data_port(0, names="x")}\t\t\t</output>\n\t\t</layer>')
    next_id = 1
    prev, prev_port = 0, 0
    for k in range(n_ops):
        kind = k % 3
        if kind == 0:
            c = [(const(shift, (1,)), (1,)), (const(axes, (1,)), (1,))]
            head = 'type="Roll" version="opset7">\n'
        elif kind == 1:
            c = [(const(indices, (6,)), (6,)), (const(axis, ()), ())]
            head = 'type="Gather" version="opset8">\n\t\t\t<data batch_dims="0" />\n'
        else:
            c = [(const(seq_lengths, (4,)), (4,))]
            head = 'type="ReverseSequence" version="opset1">\n\t\t\t<data batch_axis="0" seq_axis="1" />\n'
        lid, next_id = next_id, next_id + 1
        name = ("Roll", "Gather", "ReverseSequence")[kind]
        inputs = data_port(0) + "".join(index_port(i + 1, dims) for i, (_, dims) in enumerate(c))
        out_id = 1 + len(c)
        layers.append(f'\t\t<layer id="{lid}" name="{name}_{lid}" {head}'
                      f'\t\t\t<input>\n{inputs}\t\t\t</input>\n'
                      f'\t\t\t<output>\n{data_port(out_id)}\t\t\t</output>\n\t\t</layer>')
        edges.append(f'\t\t<edge from-layer="{prev}" from-port="{prev_port}" to-layer="{lid}" to-port="0" />')
        for i, (cid, _) in enumerate(c):
            edges.append(f'\t\t<edge from-layer="{cid}" from-port="0" to-layer="{lid}" to-port="{i + 1}" />')
        prev, prev_port = lid, out_id
    rid = next_id
    layers.append(f'\t\t<layer id="{rid}" name="y" type="Result" version="opset1">\n'
                  f'\t\t\t<input>\n{data_port(0)}\t\t\t</input>\n\t\t</layer>')
    edges.append(f'\t\t<edge from-layer="{prev}" from-port="{prev_port}" to-layer="{rid}" to-port="0" />')
    xml = ('<?xml version="1.0"?>\n<net name="chain" version="11">\n\t<layers>\n' + "\n".join(layers)
           + '\n\t</layers>\n\t<edges>\n' + "\n".join(edges) + "\n\t</edges>\n\t<rt_info />\n</net>\n")
    path.write_text(xml)
    path.with_suffix(".bin").write_bytes(bytes(blob))
    return rid + 1


def _time(fn) -> float:  # type: ignore[no-untyped-def]
    gc.collect()
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def _check(path: Path) -> None:
    result = irexec.check(str(path))
    errors = [d for d in result.diagnostics if d.severity == "error"]
    if errors:
        raise SystemExit("the benchmark model does not check clean:\n" + "\n".join(d.format() for d in errors[:5]))


def _peak_alloc(path: Path) -> int:
    gc.collect()
    tracemalloc.start()
    irexec.check(str(path))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def _compare_readers(path: Path, repeat: int, core: object | None) -> None:
    """Where a check of one file goes, and the same check served from the CLI's cache
    (``irexec check`` without --no-cache on an unchanged file), against OpenVINO's
    read_model, interleaved call by call with the collector paused as `irexec check`
    pauses it.  Wall and CPU time: on a loaded host the CPU time and the ratios are
    what to read."""
    from lxml import etree

    from irexec.cli.check_cmd import _one
    from irexec.ir.elements import Collector, read_edges, read_layers
    from irexec.ir.safe_xml import parse_xml_tolerant
    from irexec.system.gc_pause import gc_paused
    from irexec.system.user_cache import UserCache

    tree, _ = parse_xml_tolerant(str(path))
    root = tree.getroot()
    dims_text = etree.XPath("layers/layer/*/port/dim/text()", smart_strings=False)

    def walk() -> None:
        d = Collector(str(path))
        read_layers(root, d)
        read_edges(root, d)

    def visit_dims() -> None:
        for port in root.iter("port"):
            for dim in port:
                dim.text  # noqa: B018 - what the walk pays per <dim>

    with tempfile.TemporaryDirectory() as cache_dir:
        cache = UserCache("check", cache_dir)
        _one(str(path), None, {}, None, False, cache)  # fills it
        cases = {
            "lxml parse": lambda: parse_xml_tolerant(str(path)),
            "element walk": walk,
            "  of which each <dim>": visit_dims,
            "  <dim> texts by XPath": lambda: dims_text(root),
            "check": lambda: irexec.check(str(path)),
            "check from the cache": lambda: _one(str(path), None, {}, None, False, cache),
        }
        if core is not None:
            cases["OpenVINO read_model"] = lambda: core.read_model(str(path))  # type: ignore[attr-defined]
        wall: dict[str, list[float]] = {k: [] for k in cases}
        cpu: dict[str, list[float]] = {k: [] for k in cases}
        for _ in range(repeat):
            for name, fn in cases.items():
                gc.collect()
                with gc_paused():
                    t0, c0 = time.perf_counter(), time.process_time()
                    fn()
                    wall[name].append(time.perf_counter() - t0)
                    cpu[name].append(time.process_time() - c0)
    w = {k: statistics.median(v) for k, v in wall.items()}
    c = {k: statistics.median(v) for k, v in cpu.items()}
    ref = "OpenVINO read_model"
    print(f"where check goes, median of {repeat} interleaved rounds (wall s, CPU s, wall / read_model):")
    for name in cases:
        rel = f"{w[name] / w[ref]:6.2f}x" if ref in w else ""
        print(f"  {name:<26} {w[name]:7.3f} {c[name]:7.3f} {rel}")
    print(f"  from the cache / check: {w['check from the cache'] / w['check']:.3f}x wall")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ops", type=int, action="append", help="chain lengths (default: 1000 and 10000)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="print a cProfile of the largest check")
    parser.add_argument("--no-openvino", action="store_true")
    parser.add_argument("--readers", type=int, default=0, metavar="N",
                        help="also time the parts of check, check from the cache and read_model, N interleaved rounds")
    args = parser.parse_args()
    sizes = sorted(args.ops or [1000, 10000])
    use_ov = ov is not None and not args.no_openvino
    core = ov.Core() if use_ov else None
    print(f"irexec {irexec.__version__}, Python {sys.version.split()[0]}, "
          f"OpenVINO {ov.__version__ if use_ov else 'n/a'}, {os.cpu_count()} CPUs, median of {args.repeat}")
    print(f"{'ops':>7} {'layers':>7} {'xml MiB':>8} {'check s':>8} {'us/layer':>9} {'peak MiB':>9} {'B/layer':>8} "
          f"{'OV read s':>10} {'OV/check':>9}")
    times: dict[int, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            path = Path(tmp) / f"chain{n}.xml"
            n_layers = write_chain(path, n)
            _check(path)  # warm up and verify the model is clean
            if core is not None:
                core.read_model(str(path))
            ours: list[float] = []
            theirs: list[float] = []
            for _ in range(args.repeat):  # interleaved
                ours.append(_time(lambda p=path: irexec.check(str(p))))
                if core is not None:
                    theirs.append(_time(lambda p=path: core.read_model(str(p))))
            t = statistics.median(ours)
            times[n] = t
            peak = _peak_alloc(path) / (1 << 20)
            ov_text = f"{statistics.median(theirs):10.3f} {statistics.median(theirs) / t:8.2f}x" if theirs else \
                f"{'n/a':>10} {'n/a':>9}"
            print(f"{n:7d} {n_layers:7d} {path.stat().st_size / (1 << 20):8.2f} {t:8.3f} "
                  f"{t / n_layers * 1e6:9.1f} {peak:9.1f} {peak * (1 << 20) / n_layers:8.0f} {ov_text}", flush=True)
        if len(sizes) > 1:
            lo, hi = sizes[0], sizes[-1]
            print(f"scaling {lo} -> {hi} ops: time x{times[hi] / times[lo]:.2f} for x{hi / lo:.0f} the ops")
        if args.readers:
            _compare_readers(Path(tmp) / f"chain{sizes[-1]}.xml", args.readers, core)
        if args.profile:
            path = Path(tmp) / f"chain{sizes[-1]}.xml"
            prof = cProfile.Profile()
            prof.runcall(irexec.check, str(path))
            pstats.Stats(prof).sort_stats("cumulative").print_stats(30)


if __name__ == "__main__":
    main()
