#!/usr/bin/env python
"""Whole-model run time and peak memory of irexec against OpenVINO CPU on the
real models (``shared/models`` beside the repository, or ``--models DIR``).

    python benchmarks/bench_models.py [--repeat 15] [--models DIR] [--no-retain]

Time: median of ``--repeat`` runs through the Python API in one process
(irexec: a loaded model run on the inputs; OpenVINO: a compiled model, f32,
``share_inputs``/``share_outputs``), the two interleaved so they share the
machine's conditions.  Memory: in a fresh process per engine, the growth of
the peak RSS (``VmHWM``, reset when the engine is ready) from the engine ready to work
(imported, OpenVINO's Core created with its CPU plugin loaded, irexec's ops
and executor imported, the inputs loaded) to after loading the model and
running it once; the median of 3 processes.  What the engine costs before
it sees a model is not counted for either.
irexec reuses freed memory as `irexec run` does (``irexec.retain_freed_memory()``;
``--no-retain`` measures without it), in the timing process and in its memory processes.
A model irexec cannot run yet is reported and skipped.

Where irexec's time goes: over further runs, the share of the median run in
BLAS products (MatMul, Convolution, GroupConvolution other than depthwise),
in depthwise convolutions, in every other layer, and in the executor around
them (run time minus the layers' own times).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

DEFAULT_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "models"


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def _start_peak() -> int:
    """Reset this process's peak RSS to its current RSS and return it (KiB).
    ``getrusage``'s ``ru_maxrss`` cannot serve: it survives ``exec``, so a
    child started from a big parent reports the parent's size as its peak."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # resets VmHWM to the current RSS
        return _status_kib("VmRSS")
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _peak_kib() -> int:
    try:
        return _status_kib("VmHWM")
    except (OSError, KeyError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _child(engine: str, d: Path, retain: bool) -> None:
    """Make the engine ready, then load the model and run it once; print the
    growth of this process's peak RSS in bytes."""
    feeds = dict(np.load(d / "inputs.npz"))
    if engine == "openvino":
        import openvino as ov

        core = ov.Core()
        core.get_property("CPU", "FULL_DEVICE_NAME")  # loads the CPU plugin
        base = _start_peak()
        compiled = core.compile_model(core.read_model(str(d / "model.xml")), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
        compiled.create_infer_request().infer(feeds, share_inputs=True, share_outputs=True)
    else:
        import irexec
        import irexec.execute
        import irexec.ops  # noqa: F401 - every op module, as loading a model imports them
        from irexec.model import load

        if retain:
            irexec.retain_freed_memory()
        base = _start_peak()
        irexec.run(load(str(d / "model.xml")), feeds)
    print((_peak_kib() - base) * 1024)


def _peak(engine: str, d: Path, retain: bool) -> int | None:
    """Peak RSS growth of loading and running the model (median of 3 processes)."""
    growth = []
    for _ in range(3):
        p = subprocess.run([sys.executable, __file__, "--child", engine, str(d), *(["--no-retain"] if not retain else [])],
                           capture_output=True, text=True)
        if p.returncode != 0 or not p.stdout.strip():
            return None
        growth.append(int(p.stdout.split()[-1]))
    return int(statistics.median(growth))


# the layers whose kernels are BLAS products, and the depthwise convolutions (at most 4
# channels per group: a sum per kernel offset, no BLAS)
_BLAS = {"MatMul", "Convolution", "GroupConvolution", "ConvolutionBackpropData", "GroupConvolutionBackpropData"}
SHARES = ("BLAS products", "depthwise conv", "other layers", "executor")


def _category(model, lid: int) -> str:  # type: ignore[no-untyped-def]
    op = model.ops[lid]
    if op.type not in _BLAS:
        return "other layers"
    filters = model.find_layer(str(lid)).inputs[1].dims
    if op.type == "GroupConvolution" and filters is not None and len(filters) > 2 and filters[1] * filters[2] <= 4:
        return "depthwise conv"
    return "BLAS products"


def _shares(model, feeds: dict[str, np.ndarray], repeat: int) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """Per category, its share of the summed run time over ``repeat`` runs."""
    from irexec.execute import run_model

    totals = dict.fromkeys(SHARES, 0.0)
    category: dict[int, str] = {}  # per layer, found once
    wall = 0.0
    for _ in range(repeat):
        t = time.perf_counter()
        result = run_model(model, feeds)
        wall += time.perf_counter() - t
        for lid, seconds in result.times.items():
            if lid not in category:
                category[lid] = _category(model, lid)
            totals[category[lid]] += seconds
    totals["executor"] = max(0.0, wall - sum(totals.values()))
    return {k: v / wall for k, v in totals.items()}


def _bench(d: Path, repeat: int, retain: bool) -> dict[str, float | int | None]:
    import openvino as ov

    import irexec
    from irexec.model import load

    feeds = dict(np.load(d / "inputs.npz"))
    model = load(str(d / "model.xml"))
    core = ov.Core()
    request = core.compile_model(core.read_model(str(d / "model.xml")), "CPU",
                                 {"INFERENCE_PRECISION_HINT": "f32"}).create_infer_request()
    irexec.run(model, feeds)  # warm up both
    request.infer(feeds, share_inputs=True, share_outputs=True)
    ours, theirs = [], []
    for _ in range(repeat):
        t = time.perf_counter()
        irexec.run(model, feeds)
        ours.append(time.perf_counter() - t)
        t = time.perf_counter()
        request.infer(feeds, share_inputs=True, share_outputs=True)
        theirs.append(time.perf_counter() - t)
    return {"irexec_s": statistics.median(ours), "openvino_s": statistics.median(theirs),
            "irexec_peak": _peak("irexec", d, retain), "openvino_peak": _peak("openvino", d, retain),
            "shares": _shares(model, feeds, repeat)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", type=Path, default=DEFAULT_DIR)
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--no-retain", action="store_true", help="irexec returns freed memory to the kernel (library default)")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        _child(args.child[0], Path(args.child[1]), not args.no_retain)
        return
    import irexec

    retained = not args.no_retain and irexec.retain_freed_memory()
    print("freed memory reused by the allocator, as in `irexec run`: " + ("yes" if retained else "no (--no-retain or not glibc)"))
    from irexec.ops.registry import resolve

    ratios: list[float] = []
    shares: dict[str, dict[str, float]] = {}
    print(f"{'model':<20} {'irexec ms':>10} {'OpenVINO ms':>12} {'ratio':>7} {'irexec MiB':>11} {'OpenVINO MiB':>13} {'ratio':>7}")
    for d in sorted(p for p in args.models.iterdir() if (p / "model.xml").is_file()):
        meta = json.loads((d / "meta.json").read_text()) if (d / "meta.json").is_file() else {"ops": {}}
        missing = [k for k in meta["ops"] if resolve(k.rpartition("-")[0], k.rpartition("-")[2]) is None]
        if missing:
            print(f"{d.name:<20} skipped: not implemented: {', '.join(missing)}")
            continue
        r = _bench(d, args.repeat, retained)
        mem = ""
        if r["irexec_peak"] is not None and r["openvino_peak"]:
            mem = (f"{r['irexec_peak'] / 2**20:>11.1f} {r['openvino_peak'] / 2**20:>13.1f} "
                   f"{r['irexec_peak'] / r['openvino_peak']:>7.2f}")
        print(f"{d.name:<20} {r['irexec_s'] * 1e3:>10.1f} {r['openvino_s'] * 1e3:>12.2f} "
              f"{r['irexec_s'] / r['openvino_s']:>7.1f} {mem}")
        ratios.append(r["irexec_s"] / r["openvino_s"])
        shares[d.name] = r["shares"]  # type: ignore[assignment]
    if ratios:
        print(f"time ratio irexec/OpenVINO: median {statistics.median(ratios):.1f}, worst {max(ratios):.1f}")
    if shares:
        print("\nwhere irexec's time goes (% of its run time):")
        print(f"{'model':<20}" + "".join(f" {k:>15}" for k in SHARES))
        for name, share in shares.items():
            print(f"{name:<20}" + "".join(f" {100 * share[k]:>15.0f}" for k in SHARES))


if __name__ == "__main__":
    main()
